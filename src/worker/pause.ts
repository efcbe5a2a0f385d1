import { brandError, onAbort, type Clock } from "../core/index.js";
import type { PassPosition, PauseStatus } from "./shapes.js";

export type { PassPosition, PauseStatus };

/**
 * The position a pass of `payload` starts from: the one a held pass left behind when it was of the same payload
 * (same image and manifests), else none. Returns a copy the pass adds to.
 */
export function keptPosition(
  kept: PassPosition | undefined,
  payload: { readonly release: { readonly image: string }; readonly manifestHash: string },
): PassPosition & { readonly done: Set<number> } {
  const same = kept?.image === payload.release.image && kept.versionHash === payload.manifestHash;
  return { image: payload.release.image, versionHash: payload.manifestHash, done: new Set(same ? kept.done : []) };
}

export type PauseErrorReason = "AlreadyPaused" | "NotPaused";

/** Pausing a paused worker or resuming a running one: the request contradicts the worker's state. */
export class PauseError extends Error {
  constructor(
    readonly reason: PauseErrorReason,
    message: string,
  ) {
    super(message);
    this.name = "PauseError";
  }
  static {
    brandError(this, "PauseError");
  }
}

/** "since 2026-01-01T00:00:00.000Z by alice: maintenance window" (the words the status and errors share). */
export function describePause(pause: PauseStatus): string {
  return `by ${pause.pausedBy || "an unknown caller"} since ${pause.pausedAt.toISOString()}${pause.reason ? `: ${pause.reason}` : ""}`;
}

/**
 * The worker's pause switch: every place that would start work (a pass, a node's precreation, a task, a task's
 * next attempt) waits on it, so a pause lets running attempts finish and starts nothing new. It only holds state;
 * nothing here touches a cluster. It closes for a pause (PauseUpdate, shown as `pause`) and for a hold (a maintenance
 * window that is closed, shown apart): both at once keep it closed until both end.
 *
 * Time spent closed is accounted, so a deadline of a pass or an update can leave it out ({@link PauseGate.activeSleep}).
 */
export class PauseGate {
  #status: PauseStatus | undefined;
  /** Why the worker is held (a closed maintenance window); undefined while not held. */
  #held: string | undefined;
  /** Opens the current closing's waiters; undefined while open. */
  #open: (() => void) | undefined;
  #opened: Promise<void> = Promise.resolve();
  /** Since when the gate is closed (pause or hold), in ms; undefined while open. */
  #closedSince: number | undefined;
  /** Milliseconds spent closed before `#closedSince`. */
  #closedBefore = 0;

  constructor(
    private readonly clock: Pick<Clock, "now">,
    initial?: PauseStatus,
  ) {
    if (initial) {
      this.#status = initial;
      this.#closed(initial.pausedAt.getTime());
    }
  }

  /** The current pause; undefined while running. */
  get status(): PauseStatus | undefined {
    return this.#status;
  }

  /** Why the worker is held by a closed maintenance window; undefined while not held. */
  get held(): string | undefined {
    return this.#held;
  }

  /** A {@link PauseError} when the gate cannot be closed (`pausing`) or opened now. */
  check(pausing: boolean): void {
    if (pausing && this.#status) throw new PauseError("AlreadyPaused", `the update is already paused ${describePause(this.#status)}; resume it first`);
    if (!pausing && !this.#status) throw new PauseError("NotPaused", "the update is not paused; there is nothing to resume");
  }

  /** Closes the gate; a {@link PauseError} when it already is. */
  pause(pausedBy: string, reason: string): PauseStatus {
    this.check(true);
    const status: PauseStatus = { pausedBy, reason, pausedAt: this.clock.now(), updatePending: false };
    this.#status = status;
    this.#closed(status.pausedAt.getTime());
    return status;
  }

  /** Ends the pause and lets every waiter go unless a hold remains; a {@link PauseError} when not paused. */
  resume(): void {
    this.check(false);
    this.#status = undefined;
    this.#reopen();
  }

  /** Holds the worker with `reason` (a closed maintenance window), or ends the hold (undefined). */
  hold(reason: string | undefined): void {
    if (reason === undefined) {
      if (this.#held === undefined) return;
      this.#held = undefined;
      this.#reopen();
      return;
    }
    this.#held = reason;
    this.#closed(this.clock.now().getTime());
  }

  /** Records that an Update was accepted while paused (no-op while running). */
  markUpdatePending(): void {
    if (this.#status && !this.#status.updatePending) this.#status = { ...this.#status, updatePending: true };
  }

  /** The Update accepted while paused was cancelled: none is pending any more. */
  clearUpdatePending(): void {
    if (this.#status?.updatePending) this.#status = { ...this.#status, updatePending: false };
  }

  /** Resolves at once while open, else when it opens or when `signal` aborts (callers check `signal.aborted`). */
  async wait(signal: AbortSignal): Promise<void> {
    if (this.#closedSince === undefined || signal.aborted) return;
    let unlisten = (): void => undefined;
    const aborted = new Promise<void>((resolve) => (unlisten = onAbort(signal, () => resolve())));
    try {
      // A closing that follows an opening before this waiter ran holds it again.
      while (this.#closedSince !== undefined && !signal.aborted) await Promise.race([this.#opened, aborted]);
    } finally {
      unlisten();
    }
  }

  /**
   * Sleeps `ms` of time spent open: paused or held time does not count, so a deadline cannot expire while the work
   * is held. Rejects with the signal's reason when it aborts, as {@link Clock.sleep} does.
   */
  async activeSleep(ms: number, clock: Clock, signal: AbortSignal): Promise<void> {
    const start = clock.now().getTime();
    const closedAtStart = this.#closedMs();
    for (;;) {
      signal.throwIfAborted();
      if (this.#closedSince !== undefined) {
        await this.wait(signal);
        continue;
      }
      const left = ms - (clock.now().getTime() - start - (this.#closedMs() - closedAtStart));
      if (left <= 0) return;
      await clock.sleep(left, signal);
    }
  }

  /** The gate closes at `since` unless it already is closed. */
  #closed(since: number): void {
    if (this.#closedSince !== undefined) return;
    this.#closedSince = since;
    this.#opened = new Promise((resolve) => (this.#open = resolve));
  }

  /** Opens the gate once neither a pause nor a hold keeps it closed. */
  #reopen(): void {
    if (this.#status !== undefined || this.#held !== undefined || this.#closedSince === undefined) return;
    this.#closedBefore += Math.max(0, this.clock.now().getTime() - this.#closedSince);
    this.#closedSince = undefined;
    this.#open?.();
    this.#open = undefined;
  }

  #closedMs(): number {
    return this.#closedBefore + (this.#closedSince === undefined ? 0 : Math.max(0, this.clock.now().getTime() - this.#closedSince));
  }
}
