export * from "./store.js";
export * from "./cluster-version.js";
export { summaryForReason, deriveConditions, OPERATOR_GRACE_MS, type Condition, type ConditionStatus } from "./conditions.js";
export { mergeHistory, pruneHistory, MAX_HISTORY, type HistoryEntry } from "./history.js";
export { ThrottledNotifier, isSnapshotEdge, isStatusEdge } from "./throttle.js";

export { percentComplete, progressCounts } from "./progress.js";
export { NO_DURATIONS, UpdateTimingTracker, type ComponentDurations, type UpdateProgress, type UpdateTiming } from "./timing.js";
export { boundStatus } from "./bound.js";
export { clusterVersionStatusShape, componentDurationsShape, updateProgressShape } from "./shapes.js";
export { listText, truncateText, redactCredentials, statusText, MAX_LISTED, MAX_STATUS_TEXT } from "./text.js";
