/** One published value with its position in the stream. */
export interface Snapshot<T> {
  /** Strictly increasing; a watcher resumes after the last revision it saw. */
  readonly revision: number;
  /** Wall-clock milliseconds when the snapshot was published. */
  readonly publishedAt: number;
  readonly value: Readonly<T>;
}

/**
 * Latest-value store with revisions: the worker publishes immutable snapshots, any number of watchers
 * read them. A watcher never queues: when it wakes it reads the newest snapshot, so a slow watcher
 * skips intermediate ones (level-based status, like the CVO's lossy StatusCh) and each watcher costs
 * a constant amount of memory however far behind it is.
 */
export class SnapshotStore<T> {
  #latest: Snapshot<T>;
  #changed: { promise: Promise<void>; resolve: () => void } | undefined;
  readonly #now: () => number;

  constructor(initial: T, now: () => number) {
    this.#now = now;
    this.#latest = { revision: 1, publishedAt: now(), value: deepFreeze(initial) };
  }

  latest(): Snapshot<T> {
    return this.#latest;
  }

  /** Publishes a new snapshot and wakes every waiting watcher once. */
  publish(value: T): Snapshot<T> {
    this.#latest = { revision: this.#latest.revision + 1, publishedAt: this.#now(), value: deepFreeze(value) };
    const changed = this.#changed;
    this.#changed = undefined;
    changed?.resolve();
    return this.#latest;
  }

  /**
   * Yields the current snapshot unless the watcher already has it (`sinceRevision`), then the newest
   * snapshot after each change. A `sinceRevision` ahead of the store (a resume point from an earlier
   * process) is treated as stale and gets the current snapshot. Ends when `signal` aborts.
   */
  async *watch(sinceRevision: number, signal: AbortSignal): AsyncGenerator<Snapshot<T>> {
    let seen = sinceRevision > this.#latest.revision ? 0 : sinceRevision;
    while (!signal.aborted) {
      const snapshot = this.#latest;
      if (snapshot.revision > seen) {
        seen = snapshot.revision;
        yield snapshot;
        continue;
      }
      await this.#nextChange(signal);
    }
  }

  #nextChange(signal: AbortSignal): Promise<void> {
    if (!this.#changed) {
      let resolve!: () => void;
      const promise = new Promise<void>((r) => (resolve = r));
      this.#changed = { promise, resolve };
    }
    const changed = this.#changed.promise;
    return new Promise<void>((resolve) => {
      const onAbort = (): void => resolve();
      signal.addEventListener("abort", onAbort, { once: true });
      void changed.then(() => {
        signal.removeEventListener("abort", onAbort);
        resolve();
      });
    });
  }
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === "object" && !Object.isFrozen(value) && !(value instanceof Error)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}
