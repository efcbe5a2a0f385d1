export * from "./store.js";
export * from "./cluster-version.js";
export { summaryForReason, deriveConditions, OPERATOR_GRACE_MS, type Condition, type ConditionStatus } from "./conditions.js";
export { mergeHistory, pruneHistory, MAX_HISTORY, type HistoryEntry } from "./history.js";
export { ThrottledNotifier, isSnapshotEdge, isStatusEdge } from "./throttle.js";

export { percentComplete, progressCounts } from "./progress.js";
export { NO_DURATIONS, UpdateTimingTracker, type ComponentDurations, type UpdateProgress, type UpdateTiming } from "./timing.js";
