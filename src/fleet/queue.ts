/**
 * client-go's rate-limited work queue, on an injected clock: a key queued several times is worked on once, a key
 * added while it is being worked on comes back once after, and a key that keeps failing waits longer each time
 * (5 ms doubling to 60 s) until it is forgotten.
 */
import type { Clock } from "../core/index.js";

export interface Backoff {
  readonly baseMs: number;
  readonly maxMs: number;
}

export const DEFAULT_BACKOFF: Backoff = { baseMs: 5, maxMs: 60_000 };

export class WorkQueue {
  readonly #queue: string[] = [];
  readonly #dirty = new Set<string>();
  readonly #processing = new Set<string>();
  readonly #failures = new Map<string, number>();
  /** Keys waiting for a delayed add, and when it is due: a later delay for the same key adds nothing. */
  readonly #delayed = new Map<string, number>();
  /** Workers waiting in {@link get}; each change wakes them all and they look again. */
  #waiting: (() => void)[] = [];

  constructor(
    private readonly clock: Clock,
    private readonly signal: AbortSignal,
    private readonly backoff: Backoff = DEFAULT_BACKOFF,
  ) {
    signal.addEventListener("abort", () => this.#wake(), { once: true });
  }

  get length(): number {
    return this.#queue.length;
  }

  add(key: string): void {
    if (this.signal.aborted || this.#dirty.has(key)) return;
    this.#dirty.add(key);
    if (this.#processing.has(key)) return;
    this.#queue.push(key);
    this.#wake();
  }

  addAfter(key: string, ms: number): void {
    if (ms <= 0) return this.add(key);
    const due = this.clock.now().getTime() + ms;
    const waiting = this.#delayed.get(key);
    if (waiting !== undefined && waiting <= due) return;
    this.#delayed.set(key, due);
    this.clock.sleep(ms, this.signal).then(
      () => {
        if (this.#delayed.get(key) === due) this.#delayed.delete(key);
        this.add(key);
      },
      () => undefined,
    );
  }

  /** Adds `key` after its backoff, which doubles with each call until {@link forget}. */
  addRateLimited(key: string): void {
    const failures = this.#failures.get(key) ?? 0;
    this.#failures.set(key, failures + 1);
    this.addAfter(key, Math.min(this.backoff.baseMs * 2 ** failures, this.backoff.maxMs));
  }

  forget(key: string): void {
    this.#failures.delete(key);
  }

  /** The next key to work on, or undefined once the queue's signal aborted. Call {@link done} after working on it. */
  async get(): Promise<string | undefined> {
    while (this.#queue.length === 0) {
      if (this.signal.aborted) return undefined;
      await new Promise<void>((resolve) => this.#waiting.push(resolve));
    }
    if (this.signal.aborted) return undefined;
    const key = this.#queue.shift() as string;
    this.#dirty.delete(key);
    this.#processing.add(key);
    return key;
  }

  done(key: string): void {
    this.#processing.delete(key);
    if (this.#dirty.has(key)) {
      this.#queue.push(key);
      this.#wake();
    }
  }

  #wake(): void {
    const waiting = this.#waiting;
    this.#waiting = [];
    for (const resolve of waiting) resolve();
  }
}
