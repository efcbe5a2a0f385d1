import type { Clock } from "../worker/index.js";
import type { PersistedState } from "./state.js";
import type { StateStore } from "./state-store.js";

interface Waiter {
  readonly ticket: number;
  readonly resolve: () => void;
  readonly reject: (err: unknown) => void;
}

/**
 * Saves the service's state through a {@link StateStore} without ever having two saves in flight and
 * without writing on every status: `schedule()` saves within `intervalMs` of the previous save (edges
 * may pass `urgent`), changes in between coalesce into one save of the latest state. `flush()` resolves
 * only once a save that began after the call succeeded, which is what an accepted Update waits for.
 */
export class StateWriter {
  /** Incremented by every request to save; a save covers every ticket up to the one it started with. */
  #requested = 0;
  #saved = 0;
  #lastSaveAt = Number.NEGATIVE_INFINITY;
  #running = false;
  #urgent = false;
  #timer: AbortController | undefined;
  #waiters: Waiter[] = [];
  #stopped = false;
  /** Aborted by stop(): a save in flight is abandoned. */
  readonly #lifetime = new AbortController();

  /**
   * @param build the state to save, built when a save starts (so it is the latest)
   * @param onError a failed save (it is retried after `intervalMs`); a flush waiting on it fails too
   */
  constructor(
    private readonly store: StateStore,
    private readonly build: () => PersistedState,
    private readonly clock: Clock,
    private readonly intervalMs: number,
    private readonly onError: (err: unknown) => void,
  ) {}

  /** Something worth saving changed. */
  schedule(urgent = false): void {
    if (this.#stopped) return;
    this.#requested++;
    if (urgent) this.#urgent = true;
    this.#kick();
  }

  /** Saves the current state now (after a save in flight) and resolves when it is stored. */
  flush(): Promise<void> {
    if (this.#stopped) return Promise.reject(new Error("the state writer is stopped"));
    this.schedule(true);
    const ticket = this.#requested;
    return new Promise((resolve, reject) => {
      this.#waiters.push({ ticket, resolve, reject });
    });
  }

  /** No more saves start; a save in flight is abandoned and pending flushes fail. */
  stop(): void {
    this.#stopped = true;
    this.#lifetime.abort(new Error("the state writer is stopped"));
    this.#timer?.abort();
    this.#settle(new Error("the state writer is stopped"));
  }

  #kick(): void {
    if (this.#running || this.#requested === this.#saved) return;
    const wait = this.#urgent ? 0 : Math.max(0, this.#lastSaveAt + this.intervalMs - this.clock.now().getTime());
    if (wait === 0) {
      this.#timer?.abort();
      this.#timer = undefined;
      void this.#save();
      return;
    }
    if (this.#timer) return;
    const timer = new AbortController();
    this.#timer = timer;
    this.clock.sleep(wait, AbortSignal.any([timer.signal, this.#lifetime.signal])).then(
      () => {
        if (this.#timer === timer) this.#timer = undefined;
        this.#urgent = true; // the throttle interval has passed
        this.#kick();
      },
      () => undefined,
    );
  }

  async #save(): Promise<void> {
    this.#running = true;
    this.#urgent = false;
    const ticket = this.#requested;
    try {
      await this.store.save(this.build(), this.#lifetime.signal);
      this.#saved = Math.max(this.#saved, ticket);
      this.#settle(undefined);
    } catch (err) {
      this.onError(err);
      this.#settle(err, ticket);
    } finally {
      this.#lastSaveAt = this.clock.now().getTime();
      this.#running = false;
    }
    if (!this.#stopped) this.#kick();
  }

  /** Resolves the flushes a save covered; on failure, rejects those it was meant to cover. */
  #settle(err: unknown, failedTicket = Number.POSITIVE_INFINITY): void {
    const remaining: Waiter[] = [];
    for (const waiter of this.#waiters) {
      if (err === undefined ? waiter.ticket <= this.#saved : waiter.ticket <= failedTicket) {
        if (err === undefined) waiter.resolve();
        else waiter.reject(err);
      } else remaining.push(waiter);
    }
    this.#waiters = remaining;
  }
}
