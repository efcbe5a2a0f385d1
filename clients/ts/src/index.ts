// The public surface of the TypeScript client: the client, its errors, and the message types it returns.
export {
  SyncWorkerClient,
  isComplete,
  type CallOpts,
  type ClientOptions,
  type PreviewInput,
  type TlsOptions,
  type UpdateInput,
  type WatchOptions,
} from "./client.js";
export { Code, SyncWorkerError, isTransient, type ErrorDetail } from "./errors.js";
export type { ReconnectOptions } from "./reconnect.js";
// The fleet's hub: one resuming watch of a rollout and its members.
export { FleetClient, type FleetWatch, type FleetWatchOptions } from "./fleet.js";
export { MemberState, FleetWatchResponse, MemberView, RolloutView } from "./gen/syncworker/v1/fleet.js";
export type { MemberCursor, RolloutCondition, StageView, StateCounts, Synced } from "./gen/syncworker/v1/fleet.js";
export type {
  Failure,
  Release,
  LoadPayloadStatus,
  Condition,
  ObjectPreview,
  PreviewResponse,
  PreviewSummary,
  BlastRadiusLimits,
} from "./gen/syncworker/v1/syncworker.js";
// SyncWorkerStatus is the type and its codec: `SyncWorkerStatus.toJSON(status)` gives the proto3 JSON mapping.
export { OnDeadline, PayloadState, PreviewAction, SyncWorkerStatus } from "./gen/syncworker/v1/syncworker.js";
// Per-component progress and the update timing carried by every status.
export { ComponentState } from "./gen/syncworker/v1/syncworker.js";
export type { ComponentProgress, UpdateTiming } from "./gen/syncworker/v1/syncworker.js";
export type { PauseStatus } from "./gen/syncworker/v1/syncworker.js";
