export { SyncWorker } from "./sync-worker.js";
export type { SyncWorkerOptions, UpdateOutcome, UpdateRequest, WorkerReports } from "./sync-worker.js";
export type { PayloadSyncDeps } from "./payload-sync.js";
export type { ResourceApplier } from "./task-run.js";
// Planning (plan, preview, the acceptance check) is a room of its own below the worker; the worker exports it whole.
export * from "./planning/index.js";
export * from "./types.js";
export { PauseError, describePause, type PassPosition, type PauseErrorReason, type PauseStatus } from "./pause.js";
export { COMPONENT_STATES, componentKey, type ComponentProgress, type ComponentState } from "./components.js";
export { count, desiredSpecShape, isoDate, passPositionShape, syncWorkerStatusShape } from "./shapes.js";

// Library-internal below.
export { classifyApplyError, runTask } from "./task-run.js";
export { summarizeTaskGraphErrors, condenseClusterOperators, ContextError } from "./summarize.js";
export { StatusWrapper, ConsistentReporter, equalDigest } from "./reporter.js";
export { DeadlineWatch, deadlineMessage, effectiveDeadlines, type DeadlineKind, type UpdateDeadlines } from "./deadlines.js";
export { ON_DEADLINE } from "./shapes.js";
export { CancelUpdateError, appliedText, type CancelPlan, type CancelRefusal } from "./cancel-update.js";
