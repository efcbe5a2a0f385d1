import { brandError } from "../core/index.js";

/**
 * A write reached a replica that does not lead: it serves reads only. `leader` names the holder of the
 * Lease as last observed ("" when none is known yet), so the caller can go there.
 */
export class NotLeaderError extends Error {
  constructor(readonly leader: string) {
    super(leader ? `this replica is a standby; the leader is ${leader}` : "this replica is a standby and no leader is known yet; retry shortly");
    this.name = "NotLeaderError";
  }
  static {
    brandError(this, "NotLeaderError");
  }
}

/**
 * An Update, pause or resume whose state could not be saved: it was not made (an acknowledgement means it is
 * saved). The cause names the store and why, e.g. `state file /x/state.json: cannot be written: ENOSPC`.
 */
export class StateNotSavedError extends Error {
  constructor(
    /** What was refused: `Update`, `PauseUpdate`, `ResumeUpdate`. */
    readonly change: string,
    cause: unknown,
  ) {
    super(`${change} was not applied because its state could not be saved: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
    this.name = "StateNotSavedError";
  }
  static {
    brandError(this, "StateNotSavedError");
  }
}

/** An Update older than the last one accepted: applying it would go back, and a restart would show another release. */
export class StaleGenerationError extends Error {
  constructor(
    readonly generation: number,
    readonly accepted: number,
  ) {
    super(`generation ${generation} is older than the last accepted Update's generation ${accepted}; send generation ${accepted} or higher`);
    this.name = "StaleGenerationError";
  }
  static {
    brandError(this, "StaleGenerationError");
  }
}
