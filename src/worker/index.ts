export { SyncWorker } from "./sync-worker.js";
export type { Logger, SyncWorkerOptions, UpdateInput, WorkerReports } from "./sync-worker.js";
export type { PayloadLoader, PayloadSyncDeps } from "./payload-sync.js";
export type { ResourceApplier } from "./task-run.js";
export { systemClock } from "./clock.js";
export * from "./types.js";

// Library-internal below.
export { classifyApplyError, runTask } from "./task-run.js";
export { summarizeTaskGraphErrors, condenseClusterOperators, ContextError } from "./summarize.js";
export { StatusWrapper, ConsistentReporter, equalDigest } from "./reporter.js";
