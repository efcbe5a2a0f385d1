import type { SyncWorkerStatus } from "../worker/types.js";
import type { Clock } from "../core/index.js";

/** An edge: something a consumer must hear about at once (CVO `runThrottledStatusNotifier`). */
export function isStatusEdge(last: SyncWorkerStatus | undefined, next: SyncWorkerStatus): boolean {
  return (
    !last ||
    next.generation !== last.generation ||
    next.actual.image !== last.actual.image ||
    next.reconciling !== last.reconciling ||
    (next.failure !== undefined) !== (last.failure !== undefined) ||
    // Paused, resumed, or an Update became pending: shown and saved at once.
    next.pause !== last.pause
  );
}

/**
 * An edge for watchers: besides the notifier's edges, a pass completing and a step of the payload load, which
 * clients wait for (a progress throttle must not hold "completed" back).
 */
export function isSnapshotEdge(last: SyncWorkerStatus | undefined, next: SyncWorkerStatus): boolean {
  return (
    isStatusEdge(last, next) ||
    next.completed !== last?.completed ||
    next.loadPayloadStatus.step !== last.loadPayloadStatus.step ||
    next.loadPayloadStatus.message !== last.loadPayloadStatus.message
  );
}

/**
 * Calls `fn` for every status, but for statuses that are not edges no more often than a token
 * bucket allows (one token per `intervalMs`, at most `burst` saved). Throttled statuses coalesce:
 * `fn` runs once when the next token is due. Edges are never throttled and take no token.
 */
export class ThrottledNotifier {
  #last: SyncWorkerStatus | undefined;
  #tokens: number;
  #refilledAt: number;
  #pending: AbortController | undefined;

  constructor(
    private readonly intervalMs: number,
    private readonly burst: number,
    private readonly clock: Clock,
    private readonly fn: (status: SyncWorkerStatus) => void,
    private readonly isEdge: (last: SyncWorkerStatus | undefined, next: SyncWorkerStatus) => boolean = isStatusEdge,
  ) {
    this.#tokens = burst;
    this.#refilledAt = clock.now().getTime();
  }

  push(status: SyncWorkerStatus): void {
    const edge = this.isEdge(this.#last, status);
    this.#last = status;
    if (edge) return this.#fire(status);
    this.#refill();
    if (this.#tokens >= 1) {
      this.#tokens -= 1;
      return this.#fire(status);
    }
    if (this.#pending) return; // already waiting for a token; it will deliver the latest status
    const pending = new AbortController();
    this.#pending = pending;
    const wait = (1 - this.#tokens) * this.intervalMs;
    this.clock.sleep(wait, pending.signal).then(
      () => {
        this.#pending = undefined;
        this.#refill();
        this.#tokens = Math.max(0, this.#tokens - 1);
        if (this.#last) this.fn(this.#last);
      },
      () => undefined,
    );
  }

  /** Makes a pending delayed call now. */
  flush(): void {
    if (this.#pending && this.#last) this.#fire(this.#last);
  }

  /** Drops a pending delayed call. */
  stop(): void {
    this.#pending?.abort();
    this.#pending = undefined;
  }

  #fire(status: SyncWorkerStatus): void {
    this.stop();
    this.fn(status);
  }

  #refill(): void {
    const now = this.clock.now().getTime();
    this.#tokens = Math.min(this.burst, this.#tokens + (now - this.#refilledAt) / this.intervalMs);
    this.#refilledAt = now;
  }
}
