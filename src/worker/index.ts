export { SyncWorker } from "./sync-worker.js";
export type { Logger, SyncWorkerOptions, UpdateInput } from "./sync-worker.js";
export type { PayloadLoader, PayloadSyncDeps } from "./payload-sync.js";
export type { ResourceApplier } from "./task-run.js";
export { describeStatus } from "./describe.js";
export { systemClock } from "./clock.js";
export { OperatorStartTimes } from "./operator-start-times.js";
export * from "./types.js";

// Library-internal below.
export { classifyApplyError, runTask } from "./task-run.js";
export { summarizeTaskGraphErrors, condenseClusterOperators, ContextError } from "./summarize.js";
export { StatusWrapper, ConsistentReporter, equalDigest } from "./reporter.js";
