/**
 * The vocabulary every folder shares. It imports nothing of the project (the lint enforces it), so any
 * folder may import it without a cycle.
 */
export { asError, brandError } from "./errors.js";
export { INSTALL_WAIT_REASONS, UPDATE_EFFECTS, UpdateError, type TaskLike, type UpdateEffect, type UpdateErrorInit } from "./update-error.js";
export {
  NO_EVENTS,
  NO_LOG,
  NO_SPAN,
  NO_TRACING,
  systemClock,
  type Clock,
  type EventRecorder,
  type Logger,
  type Random,
  type SpanAttributes,
  type SpanRef,
  type Tracing,
  type WorkerSpan,
} from "./ports.js";
export { formatRef, isClusterOperator, objectKey, type ObjectRef } from "./object-identity.js";
export { deepFreeze, type Frozen } from "./deep-freeze.js";
export { CancelledError, abortReason, deadline, link, onAbort, sleep, type CancelKind, type Disposer, type Linked } from "./cancellation.js";
export { NO_RISKS, RISK_NAMES, acceptHint, accepts, isRiskName, type RiskAcceptance, type RiskName } from "./risks.js";
export { DURATION_UNITS, formatDuration, largestWholeUnit } from "./units.js";
