import { asError, link, type Clock } from "../core/index.js";
import type { PersistedState } from "./state.js";
import { StateNotSavedError } from "./errors.js";
import type { StateStore } from "./state-store.js";

/**
 * A change that is saved before it is made: `draft` edits the state a save builds into the state as it will be,
 * `apply` makes the change live once that state is stored. Drafts compose in the order the changes were committed.
 */
export interface StateChange<T> {
  /** What is changed, for the refusal: `Update`, `PauseUpdate`, `ResumeUpdate`. */
  readonly name: string;
  readonly draft: (state: PersistedState) => PersistedState;
  readonly apply: () => T;
}

interface Waiter {
  readonly ticket: number;
  readonly draft: (state: PersistedState) => PersistedState;
  /** Applies the change and settles the commit (with what apply returned or threw). */
  readonly applied: () => void;
  readonly reject: (err: Error) => void;
}

const unchanged = (state: PersistedState): PersistedState => state;

/**
 * Saves the service's state through a {@link StateStore} without ever having two saves in flight and
 * without writing on every status: `schedule()` saves within `intervalMs` of the previous save (edges
 * may pass `urgent`), changes in between coalesce into one save of the latest state. `commit()` saves a
 * change before making it, which is what an accepted Update, pause or resume waits for: an acknowledged
 * change is stored, and a change whose save failed is never made.
 */
export class StateWriter {
  /** Incremented by every request to save; a save covers every ticket up to the one it built its state at. */
  #requested = 0;
  #saved = 0;
  #lastSaveAt = Number.NEGATIVE_INFINITY;
  #running = false;
  #urgent = false;
  #timer: AbortController | undefined;
  #waiters: Waiter[] = [];
  #stopped = false;
  /** The last save's failure, undefined once one succeeds: what an orderly stop reports. */
  #failure: Error | undefined;
  /** Aborted by stop(): a save in flight is abandoned. */
  readonly #lifetime = new AbortController();

  /**
   * @param build the state to save, built when a save starts (so it is the latest)
   * @param onError a failed save (it is retried after `intervalMs`); the commits waiting on it fail too
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

  /**
   * Saves the state with `change` drafted in (after a save in flight), then applies it and resolves with what
   * `apply` returned. A failed save rejects with a {@link StateNotSavedError} and the change is never applied. `apply` runs in the
   * same turn as the save's end, so no later save is built from a state without the change.
   */
  commit<T>(change: StateChange<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const applied = (): void => {
        try {
          resolve(change.apply());
        } catch (err) {
          reject(asError(err));
        }
      };
      this.#enqueue(change.draft, applied, (err) => reject(new StateNotSavedError(change.name, err)));
    });
  }

  /** Saves the current state now (after a save in flight) and resolves when it is stored. */
  flush(): Promise<void> {
    return new Promise<void>((resolve, reject) => this.#enqueue(unchanged, resolve, reject));
  }

  #enqueue(draft: Waiter["draft"], applied: () => void, reject: (err: Error) => void): void {
    if (this.#stopped) return reject(new Error("the state writer is stopped"));
    // The ticket is taken before the save starts: building the state may request another save (a held
    // status published on the way), which must not leave this one waiting for the next, throttled save.
    this.#requested++;
    this.#urgent = true;
    this.#waiters.push({ ticket: this.#requested, draft, applied, reject });
    this.#kick();
  }

  /** The error of the last save when it failed (none has succeeded since); undefined otherwise. */
  get failure(): Error | undefined {
    return this.#failure;
  }

  /** No more saves start; a save in flight is abandoned and pending commits fail. */
  stop(): void {
    this.#stopped = true;
    this.#lifetime.abort(new Error("the state writer is stopped"));
    this.#timer?.abort();
    this.#fail(new Error("the state writer is stopped"), Number.POSITIVE_INFINITY);
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
    const linked = link(timer.signal, this.#lifetime.signal);
    this.clock
      .sleep(wait, linked.signal)
      .finally(linked.dispose)
      .then(
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
    let ticket = this.#requested;
    let covered: Waiter[] = [];
    try {
      const built = this.build();
      // Taken after building: whatever was requested while the state was built is in it.
      ticket = this.#requested;
      covered = this.#waiters.filter((w) => w.ticket <= ticket);
      await this.store.save(
        covered.reduce((state, w) => w.draft(state), built),
        this.#lifetime.signal,
      );
    } catch (err) {
      this.#failure = asError(err);
      this.onError(err);
      this.#fail(this.#failure, ticket);
      this.#finish();
      return;
    }
    this.#failure = undefined;
    this.#saved = Math.max(this.#saved, ticket);
    this.#waiters = this.#waiters.filter((w) => w.ticket > ticket);
    for (const waiter of covered) waiter.applied();
    this.#finish();
  }

  #finish(): void {
    this.#lastSaveAt = this.clock.now().getTime();
    this.#running = false;
    if (!this.#stopped) this.#kick();
  }

  /** Rejects the commits a failed save was to cover: their changes are dropped, never applied. */
  #fail(err: Error, ticket: number): void {
    const failed = this.#waiters.filter((w) => w.ticket <= ticket);
    this.#waiters = this.#waiters.filter((w) => w.ticket > ticket);
    for (const waiter of failed) waiter.reject(err);
  }
}
