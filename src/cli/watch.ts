// Default import: Node's CommonJS export detection finds MultiBar but not Format or Presets (nested object literals).
import cliProgress, { MultiBar, type GenericBar } from "cli-progress";
import { ComponentState, SyncWorkerStatus, type SyncWorkerClient } from "@syncworker/client";
import { headline } from "./headline.js";
import { doneLine, liveLines, overallText } from "./progress-view.js";
import { percentComplete } from "../status/index.js";
import { terminalSafe } from "./terminal-text.js";
import { verdict } from "./wait.js";

export interface WatchOptions {
  /** Stop once this version (or any, when "") is completely applied, or is not taken (see wait.ts). */
  readonly untilComplete?: string | undefined;
  readonly sinceRevision?: number;
  readonly signal: AbortSignal;
  readonly out: NodeJS.WriteStream;
  /** How to show snapshots when `out` is not a terminal: JSON lines (default) or one human line each. */
  readonly plain?: "json" | "lines";
}

/**
 * The live area on a terminal: the overall bar, then a line per component in progress or waiting (see
 * progress-view.ts), redrawn ten times a second so durations tick between snapshots; a finished component
 * leaves a line above the area, which scrolls away. cli-progress draws and clears the area.
 */
class LiveArea {
  readonly #multi: MultiBar;
  readonly #overall: GenericBar;
  readonly #rows: GenericBar[] = [];
  #status: SyncWorkerStatus | undefined;
  /** Components already reported done in the update shown. */
  readonly #reported = new Set<string>();

  constructor(out: NodeJS.WriteStream) {
    this.#multi = new MultiBar({ stream: out, hideCursor: true, forceRedraw: true, barsize: 30 }, cliProgress.Presets.shades_classic);
    this.#overall = this.#multi.create(
      1,
      0,
      {},
      {
        // The percentage from the same status as the counts beside it, so one line never shows two figures of
        // progress (a final frame once read "99% | 315/315", the bar's own value one step behind).
        format: (options, params) =>
          `${cliProgress.Format.BarFormat(params.progress, options)} ${this.#status ? percentComplete(this.#status.done, this.#status.total) : 0}% | ${this.#status ? terminalSafe(overallText(this.#status, new Date())) : ""}`,
      },
    );
  }

  /** A new update is shown from here on: its components are reported done anew. */
  restart(): void {
    this.#reported.clear();
  }

  /** A line above the area, which scrolls away with the finished components. */
  note(line: string): void {
    this.#multi.log(`${ERASE_LINE}${line}\n`);
  }

  show(status: SyncWorkerStatus): void {
    this.#status = status;
    for (const c of status.components) {
      const key = `${c.runLevel}/${c.component}`;
      if (c.state === ComponentState.COMPONENT_STATE_DONE && !this.#reported.has(key)) {
        this.#reported.add(key);
        // cli-progress writes logged lines over the area's old rows without clearing them: erase each row first.
        this.#multi.log(`${ERASE_LINE}${terminalSafe(doneLine(c, status.timing?.startedAt))}\n`);
      }
    }
    const rows = liveLines(status, new Date()).length;
    while (this.#rows.length < rows) {
      const i = this.#rows.length;
      this.#rows.push(this.#multi.create(1, 0, {}, { format: () => terminalSafe(this.#status ? (liveLines(this.#status, new Date())[i] ?? "") : "") }));
    }
    while (this.#rows.length > rows) this.#multi.remove(this.#rows.pop()!);
    this.#overall.setTotal(Math.max(status.total, 1));
    this.#overall.update(status.done);
  }

  stop(): void {
    this.#multi.stop();
  }
}

const ERASE_LINE = "\u001b[2K";

/** Which update a snapshot belongs to: its release and when the update to it started ("" before any update). */
export function updateKey(status: SyncWorkerStatus): string {
  return status.actual?.image ? `${status.actual.image}@${status.timing?.startedAt?.toISOString() ?? ""}` : "";
}

/**
 * The line shown before the first snapshot of each update followed, so one release's lines never run into the next's;
 * shown again once the release's version is known, when the update starts without it (the payload tells it).
 */
export function followingLine(status: SyncWorkerStatus): string {
  const release = status.actual;
  return `── following ${release?.version ? `${release.version} (${release.image})` : `${release?.image ?? ""}, version not known yet`} ──`;
}

/** {@link followingLine} as a JSON line: told from a status line by its `following` key. */
export function followingRecord(status: SyncWorkerStatus): string {
  return JSON.stringify({
    following: { version: status.actual?.version ?? "", image: status.actual?.image ?? "", startedAt: status.timing?.startedAt?.toISOString() ?? "" },
  });
}

/**
 * Streams status: a live area on a terminal (LiveArea), JSON lines otherwise; before the first snapshot of each
 * update, a line naming its release ({@link followingLine}, {@link followingRecord} in JSON lines). A dropped stream (a restart, a proxy)
 * is resumed from the last revision shown, so no snapshot is shown twice. Resolves with the last snapshot when
 * `untilComplete` is met or the signal aborts; rejects on an error that a reconnect cannot cure.
 */
export async function watch(client: SyncWorkerClient, options: WatchOptions): Promise<SyncWorkerStatus | undefined> {
  const live = options.out.isTTY ? new LiveArea(options.out) : undefined;
  let last: SyncWorkerStatus | undefined;
  let following = "";
  let followingVersion = "";
  try {
    for await (const status of client.watchStatus({ sinceRevision: options.sinceRevision ?? 0, signal: options.signal })) {
      last = status;
      const update = updateKey(status);
      const version = status.actual?.version ?? "";
      if (update !== "" && (update !== following || version !== followingVersion)) {
        if (update !== following) live?.restart();
        [following, followingVersion] = [update, version];
        if (live) live.note(terminalSafe(followingLine(status)));
        else options.out.write(`${terminalSafe(options.plain === "lines" ? followingLine(status) : followingRecord(status))}\n`);
      }
      if (live) {
        live.show(status);
      } else if (options.plain === "lines") {
        options.out.write(`[rev ${status.revision}] ${status.done}/${status.total} ${terminalSafe(headline(status))}\n`);
      } else {
        options.out.write(`${terminalSafe(JSON.stringify(SyncWorkerStatus.toJSON(status)))}\n`);
      }
      if (options.untilComplete !== undefined && verdict(status, { version: options.untilComplete })) break;
    }
  } catch (err) {
    // The caller's abort ends the watch; anything else was not cured by reconnecting.
    if (!options.signal.aborted) throw err;
  } finally {
    live?.stop();
  }
  return last;
}
