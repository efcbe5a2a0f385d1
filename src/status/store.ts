import { deepFreeze } from "../core/index.js";
/** One published value with its position in the stream. */
export interface Snapshot<T> {
  /** Strictly increasing; a watcher resumes after the last revision it saw. */
  readonly revision: number;
  /** Wall-clock milliseconds when the snapshot was published. */
  readonly publishedAt: number;
  readonly value: Readonly<T>;
}

/**
 * Hands one snapshot to a watcher; the watcher calls `done` once it has sent it (e.g. the gRPC write
 * completed). Until then newer snapshots wait in the store, not in a queue of the watcher.
 */
export type Deliver<T> = (snapshot: Snapshot<T>, done: () => void) => void;

interface Subscription<T> {
  seen: number;
  busy: boolean;
  readonly deliver: Deliver<T>;
}

/**
 * Latest-value store with revisions: the worker publishes immutable snapshots, any number of watchers
 * read them. Each watcher has at most one snapshot in flight; when it is done it gets the newest
 * snapshot it has not seen, so a slow watcher skips intermediate ones (level-based status, like the
 * CVO's lossy StatusCh) and costs constant memory however far behind it is. Publishes made in one
 * turn of the event loop reach watchers as one (the last).
 */
export class SnapshotStore<T> {
  #latest: Snapshot<T>;
  readonly #subscriptions = new Set<Subscription<T>>();
  #flushScheduled = false;

  /**
   * @param now wall clock in milliseconds
   * @param schedule runs the fan-out after the current turn (setImmediate in the service)
   * @param onCoalesced told how many snapshots a watcher skipped each time it receives one (for a metric)
   * @param firstRevision the revision of `initial`; a restarted service starts above what it published before
   * @param bound applied to every value before it is published or mirrored (the service bounds its texts)
   */
  constructor(
    initial: T,
    private readonly now: () => number,
    private readonly schedule: (fn: () => void) => void = queueMicrotask,
    private readonly onCoalesced: (skipped: number) => void = () => undefined,
    firstRevision = 1,
    private readonly bound: (value: T) => T = (value) => value,
  ) {
    this.#latest = { revision: firstRevision, publishedAt: now(), value: deepFreeze(bound(initial)) };
  }

  latest(): Snapshot<T> {
    return this.#latest;
  }

  get watchers(): number {
    return this.#subscriptions.size;
  }

  /** Publishes a new snapshot; watchers receive it after the current turn. */
  publish(value: T): Snapshot<T> {
    return this.#publish({ revision: this.#latest.revision + 1, publishedAt: this.now(), value: deepFreeze(this.bound(value)) });
  }

  /**
   * Publishes a snapshot made elsewhere with its own revision (a standby mirrors the leader's); one
   * not above the latest revision is ignored, so revisions never move back.
   */
  mirror(snapshot: Snapshot<T>): Snapshot<T> {
    if (snapshot.revision <= this.#latest.revision) return this.#latest;
    return this.#publish({ ...snapshot, value: deepFreeze(this.bound(snapshot.value)) });
  }

  #publish(snapshot: Snapshot<T>): Snapshot<T> {
    this.#latest = snapshot;
    if (!this.#flushScheduled) {
      this.#flushScheduled = true;
      this.schedule(() => {
        this.#flushScheduled = false;
        for (const subscription of this.#subscriptions) this.#offer(subscription);
      });
    }
    return this.#latest;
  }

  /**
   * Delivers the current snapshot unless the watcher already has it (`sinceRevision`), then the
   * newest one after each change. A `sinceRevision` ahead of the store (a resume point from an
   * earlier process) is treated as stale and gets the current snapshot. Returns the unsubscribe.
   */
  subscribe(sinceRevision: number, deliver: Deliver<T>): () => void {
    const subscription: Subscription<T> = { seen: sinceRevision > this.#latest.revision ? 0 : sinceRevision, busy: false, deliver };
    this.#subscriptions.add(subscription);
    this.#offer(subscription);
    return () => this.#subscriptions.delete(subscription);
  }

  #offer(subscription: Subscription<T>): void {
    const snapshot = this.#latest;
    if (subscription.busy || snapshot.revision <= subscription.seen || !this.#subscriptions.has(subscription)) return;
    subscription.busy = true;
    // A watcher that has seen nothing yet (or resumes) skipped nothing it was owed.
    if (subscription.seen > 0 && snapshot.revision - subscription.seen > 1) this.onCoalesced(snapshot.revision - subscription.seen - 1);
    subscription.seen = snapshot.revision;
    subscription.deliver(snapshot, () => {
      subscription.busy = false;
      this.#offer(subscription);
    });
  }
}
