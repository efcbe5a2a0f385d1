import { SingleBar } from "cli-progress";
import type { SyncWorkerClient, SyncWorkerStatus } from "../gen/syncworker/v1/syncworker.js";
import { isComplete, statusJson } from "./client.js";

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
 * Streams status: a live progress bar on a terminal, JSON lines otherwise. Resolves with the last
 * snapshot when `untilComplete` is met, or when the stream or signal ends.
 */
export async function watch(client: SyncWorkerClient, options: WatchOptions): Promise<SyncWorkerStatus | undefined> {
  const stream = client.statusWatch({ sinceRevision: options.sinceRevision ?? 0 });
  const cancel = (): void => stream.cancel();
  options.signal.addEventListener("abort", cancel, { once: true });
  const bar = options.out.isTTY
    ? new SingleBar({ format: "{bar} {percentage}% | {value}/{total} | {message}", hideCursor: true, stream: options.out, barsize: 30 })
    : undefined;
  let started = false;
  let last: SyncWorkerStatus | undefined;
  try {
    for await (const response of stream as AsyncIterable<{ status?: SyncWorkerStatus }>) {
      const status = response.status;
      if (!status) continue;
      last = status;
      if (bar) {
        if (!started) bar.start(Math.max(status.total, 1), status.done, { message: status.message });
        started = true;
        bar.setTotal(Math.max(status.total, 1));
        bar.update(status.done, { message: status.message });
      } else if (options.plain === "lines") {
        options.out.write(`[rev ${status.revision}] ${status.done}/${status.total} ${status.message}\n`);
      } else {
        options.out.write(`${JSON.stringify(statusJson(status))}\n`);
      }
      if (options.untilComplete !== undefined && isComplete(status, options.untilComplete)) break;
    }
  } catch (err) {
    if (!options.signal.aborted && (err as { code?: number }).code !== 1) throw err;
  } finally {
    options.signal.removeEventListener("abort", cancel);
    stream.cancel();
    bar?.stop();
  }
  return last;
}
