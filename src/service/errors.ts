import { hasBrand } from "../payload/update-error.js";

const NOT_LEADER = Symbol.for("syncworker.NotLeaderError");

/**
 * A write reached a replica that does not lead: it serves reads only. `leader` names the holder of the
 * Lease as last observed ("" when none is known yet), so the caller can go there.
 */
export class NotLeaderError extends Error {
  readonly [NOT_LEADER] = true;
  constructor(readonly leader: string) {
    super(leader ? `this replica is a standby; the leader is ${leader}` : "this replica is a standby and no leader is known yet; retry shortly");
    this.name = "NotLeaderError";
  }
  static override [Symbol.hasInstance](value: unknown): value is NotLeaderError {
    return hasBrand(value, NOT_LEADER);
  }
}

const STATE_NOT_SAVED = Symbol.for("syncworker.StateNotSavedError");

/**
 * An Update, pause or resume whose state could not be saved: it was not made (an acknowledgement means it is
 * saved). The cause names the store and why, e.g. `state file /x/state.json: cannot be written: ENOSPC`.
 */
export class StateNotSavedError extends Error {
  readonly [STATE_NOT_SAVED] = true;
  constructor(
    /** What was refused: `Update`, `PauseUpdate`, `ResumeUpdate`. */
    readonly change: string,
    cause: unknown,
  ) {
    super(`${change} was not applied because its state could not be saved: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
    this.name = "StateNotSavedError";
  }
  static override [Symbol.hasInstance](value: unknown): value is StateNotSavedError {
    return hasBrand(value, STATE_NOT_SAVED);
  }
}

const STALE_GENERATION = Symbol.for("syncworker.StaleGenerationError");

/** An Update older than the last one accepted: applying it would go back, and a restart would show another release. */
export class StaleGenerationError extends Error {
  readonly [STALE_GENERATION] = true;
  constructor(
    readonly generation: number,
    readonly accepted: number,
  ) {
    super(`generation ${generation} is older than the last accepted Update's generation ${accepted}; send generation ${accepted} or higher`);
    this.name = "StaleGenerationError";
  }
  static override [Symbol.hasInstance](value: unknown): value is StaleGenerationError {
    return hasBrand(value, STALE_GENERATION);
  }
}
