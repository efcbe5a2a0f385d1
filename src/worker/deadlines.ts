import { formatDuration, link, onAbort, type Clock } from "../core/index.js";
import type { PauseGate } from "./pause.js";
import type { ComponentProgress, UpdateDeadlines } from "./shapes.js";

export type { UpdateDeadlines };

/** Which deadline passed: no manifest applied for too long, or the whole update took too long. */
export type DeadlineKind = "Progress" | "Total";

/** The flag and field each deadline is set by, for messages. */
const FIELDS: Readonly<Record<DeadlineKind, string>> = { Progress: "progress_deadline", Total: "total_deadline" };

/**
 * Times one update's deadlines (none by default, as upstream has none): the progress deadline restarts whenever a
 * manifest is applied, the total one runs from the update's acceptance until its release is first completely
 * applied. Time spent paused counts toward neither ({@link PauseGate.activeSleep}), so a pause cannot fail an update.
 * A progress deadline fires once per stall and is cleared by the next manifest applied; the total one fires once.
 * Only holds state and timers: what an expiry does (fail, pause) is the caller's `changed`.
 */
export class DeadlineWatch {
  #armed: { readonly image: string; readonly stop: AbortController; restartProgress: () => void } | undefined;
  readonly #exceeded = new Set<DeadlineKind>();

  /**
   * @param changed told after a deadline passed (`kind`) or an exceeded one was cleared (undefined)
   */
  constructor(
    private readonly clock: Clock,
    private readonly gate: PauseGate,
    private readonly changed: (kind: DeadlineKind | undefined) => void,
  ) {}

  /** The deadlines passed and not cleared, total first. */
  get exceeded(): readonly DeadlineKind[] {
    return (["Total", "Progress"] as const).filter((kind) => this.#exceeded.has(kind));
  }

  /** Starts timing the update of `image`, replacing any earlier one; a release without deadlines is not timed. */
  arm(image: string, deadlines: UpdateDeadlines | undefined): void {
    this.disarm();
    if (deadlines?.progressMs === undefined && deadlines?.totalMs === undefined) return;
    const stop = new AbortController();
    const armed = { image, stop, restartProgress: (): void => undefined };
    this.#armed = armed;
    if (deadlines.totalMs !== undefined) void this.#total(deadlines.totalMs, stop.signal);
    if (deadlines.progressMs !== undefined) void this.#progress(deadlines.progressMs, armed, stop.signal);
  }

  /** A manifest was applied: the progress deadline starts again, and one that had passed is cleared. */
  progressed(): void {
    this.#armed?.restartProgress();
  }

  /** The update of `image` is complete (or another replaced it): nothing is timed and nothing stays exceeded. */
  disarm(image?: string): void {
    if (!this.#armed || (image !== undefined && image !== this.#armed.image)) return;
    this.#armed.stop.abort();
    this.#armed = undefined;
    const hadExceeded = this.#exceeded.size > 0;
    this.#exceeded.clear();
    if (hadExceeded) this.changed(undefined);
  }

  async #total(ms: number, signal: AbortSignal): Promise<void> {
    try {
      await this.gate.activeSleep(ms, this.clock, signal);
    } catch {
      return; // disarmed
    }
    this.#exceed("Total");
  }

  async #progress(ms: number, armed: { restartProgress: () => void }, signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      const restart = new AbortController();
      armed.restartProgress = () => restart.abort();
      const bounded = link(signal, restart.signal);
      try {
        await this.gate.activeSleep(ms, this.clock, bounded.signal);
      } catch {
        continue; // progressed in time, or disarmed (the loop condition ends it)
      } finally {
        bounded.dispose();
      }
      this.#exceed("Progress");
      // Stalled: nothing is timed until the next manifest is applied, which clears it.
      await new Promise<void>((resolve) => {
        armed.restartProgress = resolve;
        onAbort(signal, resolve);
      });
      if (signal.aborted) return;
      this.#exceeded.delete("Progress");
      this.changed(undefined);
    }
  }

  #exceed(kind: DeadlineKind): void {
    this.#exceeded.add(kind);
    this.changed(kind);
  }
}

/**
 * What the failure of a passed deadline says: which deadline, how long, and what the update waits on (the first
 * component waiting, else applying, else failed: its object, reason, since when and attempts).
 */
export function deadlineMessage(kind: DeadlineKind, ms: number, components: readonly ComponentProgress[]): string {
  const what = kind === "Progress" ? `no manifest was applied for ${formatDuration(ms)}` : `the update did not complete within ${formatDuration(ms)}`;
  const blocking = (["Waiting", "Applying", "Failed"] as const).map((state) => components.find((c) => c.state === state)).find((c) => c !== undefined);
  if (!blocking) return `${what} (${FIELDS[kind]})`;
  const details = [
    blocking.waitReason,
    blocking.waitingSince ? `since ${blocking.waitingSince.toISOString()}` : "",
    blocking.attempts ? `attempt ${blocking.attempts}` : "",
  ].filter((d) => d !== "");
  const object = blocking.currentObject ? ` on ${blocking.currentObject}` : "";
  const component = `component ${blocking.component} at run level ${blocking.runLevel}`;
  return `${what} (${FIELDS[kind]}); it waits${object} of ${component}${details.length > 0 ? ` (${details.join(", ")})` : ""}`;
}

/** An Update's deadlines over the server's, field by field; none when neither sets any. */
export function effectiveDeadlines(own: UpdateDeadlines | undefined, server: UpdateDeadlines | undefined): UpdateDeadlines | undefined {
  if (!own) return server;
  const progressMs = own.progressMs ?? server?.progressMs;
  const totalMs = own.totalMs ?? server?.totalMs;
  return { ...(progressMs === undefined ? {} : { progressMs }), ...(totalMs === undefined ? {} : { totalMs }), onDeadline: own.onDeadline };
}
