// The public surface of the TypeScript client: the client, its errors, and the message types it returns.
export { SyncWorkerClient, isComplete, type CallOpts, type ClientOptions, type TlsOptions, type UpdateInput, type WatchOptions } from "./client.js";
export { Code, SyncWorkerError, type ErrorDetail } from "./errors.js";
export type { Failure, Release, LoadPayloadStatus, Condition } from "./gen/syncworker/v1/syncworker.js";
// SyncWorkerStatus is the type and its codec: `SyncWorkerStatus.toJSON(status)` gives the proto3 JSON mapping.
export { PayloadState, SyncWorkerStatus } from "./gen/syncworker/v1/syncworker.js";
