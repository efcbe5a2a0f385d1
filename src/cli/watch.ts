import { SingleBar } from "cli-progress";
import { isComplete, SyncWorkerStatus, type SyncWorkerClient } from "@syncworker/client";

export interface WatchOptions {
  /** Stop once this version (or any, when "") is completely applied. */
  readonly untilComplete?: string | undefined;
  readonly sinceRevision?: number;
  readonly signal: AbortSignal;
  readonly out: NodeJS.WriteStream;
  /** How to show snapshots when `out` is not a terminal: JSON lines (default) or one human line each. */
  readonly plain?: "json" | "lines";
}

/**
 * Streams status: a live progress bar on a terminal, JSON lines otherwise. A dropped stream (a restart, a proxy)
 * is resumed from the last revision shown, so no snapshot is shown twice. Resolves with the last snapshot when
 * `untilComplete` is met or the signal aborts; rejects on an error that a reconnect cannot cure.
 */
export async function watch(client: SyncWorkerClient, options: WatchOptions): Promise<SyncWorkerStatus | undefined> {
  const bar = options.out.isTTY
    ? new SingleBar({ format: "{bar} {percentage}% | {value}/{total} | {message}", hideCursor: true, stream: options.out, barsize: 30 })
    : undefined;
  let started = false;
  let last: SyncWorkerStatus | undefined;
  try {
    for await (const status of client.watchStatus({ sinceRevision: options.sinceRevision ?? 0, signal: options.signal })) {
      last = status;
      if (bar) {
        if (!started) bar.start(Math.max(status.total, 1), status.done, { message: status.message });
        started = true;
        bar.setTotal(Math.max(status.total, 1));
        bar.update(status.done, { message: status.message });
      } else if (options.plain === "lines") {
        options.out.write(`[rev ${status.revision}] ${status.done}/${status.total} ${status.message}\n`);
      } else {
        options.out.write(`${JSON.stringify(SyncWorkerStatus.toJSON(status))}\n`);
      }
      if (options.untilComplete !== undefined && isComplete(status, options.untilComplete)) break;
    }
  } catch (err) {
    // The caller's abort ends the watch; anything else was not cured by reconnecting.
    if (!options.signal.aborted) throw err;
  } finally {
    bar?.stop();
  }
  return last;
}
