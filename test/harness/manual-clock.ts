import type { Clock } from "../../src/core/index.js";

interface Sleeper {
  at: number;
  resolve: () => void;
}

/** A clock that only moves when the test says so; sleepers wake in time order. */
export class ManualClock implements Clock {
  #now: number;
  #sleepers: Sleeper[] = [];

  constructor(start = Date.UTC(2026, 0, 1)) {
    this.#now = start;
  }

  now(): Date {
    return new Date(this.#now);
  }

  sleep(ms: number, signal: AbortSignal): Promise<void> {
    if (signal.aborted) return Promise.reject(reasonOf(signal));
    return new Promise((resolve, reject) => {
      const sleeper: Sleeper = { at: this.#now + ms, resolve };
      this.#sleepers.push(sleeper);
      signal.addEventListener(
        "abort",
        () => {
          this.#sleepers = this.#sleepers.filter((s) => s !== sleeper);
          reject(reasonOf(signal));
        },
        { once: true },
      );
    });
  }

  /** Number of pending sleeps (e.g. to wait until the code under test is idle). */
  get pending(): number {
    return this.#sleepers.length;
  }

  /** Moves time forward, waking each due sleeper and letting its continuation run. */
  async advance(ms: number): Promise<void> {
    const target = this.#now + ms;
    for (;;) {
      await settle();
      const due = this.#sleepers.filter((s) => s.at <= target).sort((a, b) => a.at - b.at)[0];
      if (!due) break;
      this.#now = due.at;
      this.#sleepers = this.#sleepers.filter((s) => s !== due);
      due.resolve();
    }
    this.#now = target;
    await settle();
  }
}

/** Lets pending promise continuations and immediate callbacks run. */
export async function settle(): Promise<void> {
  for (let i = 0; i < 5; i++) await new Promise<void>((resolve) => setImmediate(resolve));
}

function reasonOf(signal: AbortSignal): Error {
  return signal.reason instanceof Error ? signal.reason : new Error(String(signal.reason));
}
