// The public surface of the TypeScript client: the client, its errors, and the message types it returns.
export { SyncWorkerClient, isComplete, type CallOpts, type ClientOptions, type TlsOptions, type UpdateInput, type WatchOptions } from "./client.js";
export { Code, SyncWorkerError, type ErrorDetail } from "./errors.js";
export type { SyncWorkerStatus, Failure, Release, LoadPayloadStatus, Condition } from "./gen/syncworker/v1/syncworker.js";
export { PayloadState } from "./gen/syncworker/v1/syncworker.js";
