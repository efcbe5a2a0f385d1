import { ComponentState, type ComponentProgress, type PauseStatus, type SyncWorkerStatus } from "@syncworker/client";
import { headline } from "./headline.js";

/** Components shown in the live area at most; the rest are counted in one line. */
export const MAX_ACTIVE_ROWS = 6;

type Duration = { readonly seconds: number; readonly nanos: number };
const ms = (d: Duration | undefined): number | undefined => (d ? d.seconds * 1000 + d.nanos / 1e6 : undefined);

/** `42s`, `3m05s`, `2h07m`: short enough for a status line. */
export function formatDuration(milliseconds: number): string {
  const s = Math.max(0, Math.floor(milliseconds / 1000));
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m${String(s % 60).padStart(2, "0")}s`;
  return `${Math.floor(m / 60)}h${String(m % 60).padStart(2, "0")}m`;
}

const ACTIVE: ReadonlySet<ComponentState> = new Set([
  ComponentState.COMPONENT_STATE_APPLYING,
  ComponentState.COMPONENT_STATE_WAITING,
  ComponentState.COMPONENT_STATE_FAILED,
]);

const name = (c: ComponentProgress): string => `${String(c.runLevel).padStart(2, "0")}/${c.component}`;

/** The overall line after the bar: counts, elapsed and the estimate of the time left, live at `now`. */
export function overallText(status: SyncWorkerStatus, now: Date): string {
  const timing = status.timing;
  const parts = [`${status.done}/${status.total}`];
  if (timing?.startedAt) {
    const elapsed = status.completed > 0 ? (ms(timing.elapsed) ?? 0) : now.getTime() - timing.startedAt.getTime();
    parts.push(`elapsed ${formatDuration(elapsed)}`);
  }
  const eta = etaText(status, now);
  if (eta !== undefined) parts.push(`ETA ${eta}`);
  return `${parts.join(" | ")} | ${headline(status)}`;
}

/** The estimate of the time left at `now` with its basis, `unknown` before a first completion without one; undefined when done. */
export function etaText(status: SyncWorkerStatus, now: Date): string | undefined {
  const timing = status.timing;
  const remaining = ms(timing?.estimatedRemaining);
  if (remaining !== undefined && status.publishedAt) {
    // The estimate was made when the snapshot was published; the time since counts down.
    const left = remaining - (now.getTime() - status.publishedAt.getTime());
    return `${left > 0 ? formatDuration(left) : "overdue"} (${timing?.estimateBasis ?? ""})`;
  }
  return status.completed === 0 && status.total > 0 ? "unknown" : undefined;
}

/** One component in progress: what it applies or waits for, and for how long. */
export function componentLine(c: ComponentProgress, now: Date): string {
  const head = `  ${name(c)} ${c.done}/${c.total}`;
  const attempts = c.attempts > 1 ? `, attempt ${c.attempts}` : "";
  switch (c.state) {
    case ComponentState.COMPONENT_STATE_WAITING: {
      const since = c.waitingSince ? ` for ${formatDuration(now.getTime() - c.waitingSince.getTime())}` : "";
      return `${head} waiting${since} on ${c.currentObject} (${c.waitReason}${attempts})${c.slow ? " SLOW" : ""}`;
    }
    case ComponentState.COMPONENT_STATE_FAILED:
      return `${head} failed on ${c.currentObject}${attempts ? ` (${attempts.slice(2)})` : ""}`;
    default:
      return `${head} applying${c.currentObject ? ` ${c.currentObject}` : ""}${attempts ? ` (${attempts.slice(2)})` : ""}`;
  }
}

/** The line a finished component leaves above the live area: when it finished, counted from the update's start. */
export function doneLine(c: ComponentProgress, updateStartedAt: Date | undefined): string {
  const at = updateStartedAt && c.finishedAt ? ` at +${formatDuration(c.finishedAt.getTime() - updateStartedAt.getTime())}` : "";
  return `done ${name(c)} ${c.done}/${c.total}${at}`;
}

/** A paused update: who paused it, for how long, why, and whether an Update waits for the resume. */
export function pausedLine(pause: PauseStatus, now: Date): string {
  const since = pause.pausedAt ? ` for ${formatDuration(now.getTime() - pause.pausedAt.getTime())}` : "";
  const pending = pause.updatePending ? " (an Update waits for resume)" : "";
  return `  PAUSED by ${pause.pausedBy}${since}${pause.reason ? `: ${pause.reason}` : ""}${pending}`;
}

/**
 * The lines under the overall bar, in order: each section adds its own (none when it has nothing to say).
 * A new kind of line (e.g. a paused update) is one more section here.
 */
const SECTIONS: ReadonlyArray<(status: SyncWorkerStatus, now: Date) => string[]> = [
  (status, now) => (status.pause?.paused ? [pausedLine(status.pause, now)] : []),
  (status, now) => {
    // Waits and failures first: they are what a person looks for (and always carry their details).
    const stuck = (c: ComponentProgress): boolean => c.state !== ComponentState.COMPONENT_STATE_APPLYING;
    const active = status.components.filter((c) => ACTIVE.has(c.state) && stuck(c)).concat(status.components.filter((c) => ACTIVE.has(c.state) && !stuck(c)));
    const lines = active.slice(0, MAX_ACTIVE_ROWS).map((c) => componentLine(c, now));
    if (active.length > MAX_ACTIVE_ROWS) lines.push(`  … and ${active.length - MAX_ACTIVE_ROWS} more in progress`);
    return lines;
  },
];

/** The live area's lines under the overall bar for a snapshot, at `now`. */
export function liveLines(status: SyncWorkerStatus, now: Date): string[] {
  return SECTIONS.flatMap((section) => section(status, now));
}
