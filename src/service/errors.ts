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
