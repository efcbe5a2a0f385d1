import { brandError } from "../core/index.js";
import type { PersistedState } from "./state.js";

/**
 * Where the service keeps its state between processes: a file on the embedded cluster, a Kubernetes
 * object on a real one. Implementations name their location in every error ({@link StateError}).
 */
export interface StateStore {
  /** Where the state lives, for messages: `state file /path`, `ConfigMap ns/name`. */
  readonly where: string;
  /** The saved state, or undefined when none was ever saved. A state that cannot be read or has a bad shape throws. */
  load(signal: AbortSignal): Promise<PersistedState | undefined>;
  /**
   * Saves `state`. A store shared by replicas writes with optimistic concurrency: if anyone else saved
   * since this store last loaded or saved, it throws {@link StateConflictError} and writes nothing.
   */
  save(state: PersistedState, signal: AbortSignal): Promise<void>;
  /**
   * Calls `onChange` with every state saved by another process until `signal` aborts (standbys follow
   * the leader this way); absent where there is no other process.
   */
  watch?(onChange: (state: PersistedState) => void, signal: AbortSignal): void;
}

/** Another writer saved the state first: this process no longer owns it. */
export class StateConflictError extends Error {
  constructor(
    readonly where: string,
    readonly writer: string,
  ) {
    super(`${where} was written by ${writer || "another writer"} since this process last saved it`);
    this.name = "StateConflictError";
  }
  static {
    brandError(this, "StateConflictError");
  }
}
