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
 * nothing here touches a cluster.
 *
 * Time spent paused is accounted, so a deadline of a pass can leave it out ({@link PauseGate.activeSleep}).
 */
export class PauseGate {
  #status: PauseStatus | undefined;
  /** Opens the current pause's waiters; undefined while not paused. */
  #open: (() => void) | undefined;
  #opened: Promise<void> = Promise.resolve();
  /** Milliseconds spent in pauses that ended. */
  #pausedBefore = 0;

  constructor(
    private readonly clock: Pick<Clock, "now">,
    initial?: PauseStatus,
  ) {
    if (initial) this.#close(initial);
  }

  /** The current pause; undefined while running. */
  get status(): PauseStatus | undefined {
    return this.#status;
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
    this.#close(status);
    return status;
  }

  /** Opens the gate and lets every waiter go; a {@link PauseError} when it is not closed. */
  resume(): void {
    this.check(false);
    this.#pausedBefore += this.#currentMs();
    this.#status = undefined;
    this.#open?.();
    this.#open = undefined;
  }

  /** Records that an Update was accepted while paused (no-op while running). */
  markUpdatePending(): void {
    if (this.#status && !this.#status.updatePending) this.#status = { ...this.#status, updatePending: true };
  }

  /** The Update accepted while paused was cancelled: none is pending any more. */
  clearUpdatePending(): void {
    if (this.#status?.updatePending) this.#status = { ...this.#status, updatePending: false };
  }

  /** Resolves at once while running, else on resume or when `signal` aborts (callers check `signal.aborted`). */
  async wait(signal: AbortSignal): Promise<void> {
    if (!this.#status || signal.aborted) return;
    let unlisten = (): void => undefined;
    const aborted = new Promise<void>((resolve) => (unlisten = onAbort(signal, () => resolve())));
    try {
      // A pause that follows a resume before this waiter ran holds it again.
      while (this.#status && !signal.aborted) await Promise.race([this.#opened, aborted]);
    } finally {
      unlisten();
    }
  }

  /**
   * Sleeps `ms` of time spent running: paused time does not count, so a pass's deadline cannot expire while the
   * pass is held by a pause. Rejects with the signal's reason when it aborts, as {@link Clock.sleep} does.
   */
  async activeSleep(ms: number, clock: Clock, signal: AbortSignal): Promise<void> {
    const start = clock.now().getTime();
    const pausedAtStart = this.#pausedMs();
    for (;;) {
      signal.throwIfAborted();
      if (this.#status) {
        await this.wait(signal);
        continue;
      }
      const left = ms - (clock.now().getTime() - start - (this.#pausedMs() - pausedAtStart));
      if (left <= 0) return;
      await clock.sleep(left, signal);
    }
  }

  #close(status: PauseStatus): void {
    this.#status = status;
    this.#opened = new Promise((resolve) => (this.#open = resolve));
  }

  #currentMs(): number {
    return this.#status ? Math.max(0, this.clock.now().getTime() - this.#status.pausedAt.getTime()) : 0;
  }

  #pausedMs(): number {
    return this.#pausedBefore + this.#currentMs();
  }
}
