export { SyncService, type ClusterPorts, type ClusterTarget, type ServiceLogger, type SyncServiceOptions } from "./sync-service.js";
export { NotLeaderError, StaleGenerationError, StateNotSavedError } from "./errors.js";
export { FileStateStore, defaultStateDir } from "./file-state-store.js";
export { StateConflictError, type StateStore } from "./state-store.js";
export { StateError, decodeState, encodeState, type DesiredSpec, type PersistedState } from "./state.js";
export { LeaderElector, DEFAULT_LEASE_TIMING, type LeaseClient, type LeaseRecord, type LeaseTiming } from "./leader-election.js";

// Library-internal below.
export { chooseState } from "./choose-state.js";
export { OperatorWaits } from "./operator-waits.js";
export { StateWriter } from "./state-writer.js";
