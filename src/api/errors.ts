import { CancelledError, UpdateError, brandError } from "../core/index.js";
import { CancelUpdateError, PauseError, PlanError } from "../worker/index.js";
import { NotLeaderError, StaleGenerationError, StateNotSavedError } from "../service/index.js";
import { Metadata, status as Status, type ServiceError } from "@grpc/grpc-js";
import type { Any } from "@syncworker/client/gen/google/protobuf/any";
import { BadRequest, ErrorInfo } from "@syncworker/client/gen/google/rpc/error_details";
import { Status as RpcStatus } from "@syncworker/client/gen/google/rpc/status";

/** A request field that fails validation; becomes INVALID_ARGUMENT with a google.rpc.BadRequest. */
export class InvalidArgumentError extends Error {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(message);
    this.name = "InvalidArgumentError";
  }
  static {
    brandError(this, "InvalidArgumentError");
  }
}

/** A client holds all it may of something (`reason`, e.g. `TooManyWatches`); becomes RESOURCE_EXHAUSTED. */
export class ResourceExhaustedError extends Error {
  constructor(
    readonly reason: string,
    message: string,
  ) {
    super(message);
    this.name = "ResourceExhaustedError";
  }
  static {
    brandError(this, "ResourceExhaustedError");
  }
}

/**
 * Why a call was refused at the edge: no or invalid credentials (`Unauthenticated`), a known caller without the
 * role or RBAC grant the RPC needs (`PermissionDenied`), or the authority that checks tokens could not be asked
 * (`AuthorityUnavailable`, worth a retry).
 */
export type AccessReason = "Unauthenticated" | "PermissionDenied" | "AuthorityUnavailable";

/** A refused call; the message says what was missing. */
export class AccessError extends Error {
  constructor(
    readonly reason: AccessReason,
    /** The RPC refused, e.g. `Update`. */
    readonly rpc: string,
    message: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
    this.name = "AccessError";
  }
  static {
    brandError(this, "AccessError");
  }
}

const ACCESS_CODES: Readonly<Record<AccessReason, Status>> = {
  Unauthenticated: Status.UNAUTHENTICATED,
  PermissionDenied: Status.PERMISSION_DENIED,
  AuthorityUnavailable: Status.UNAVAILABLE,
};

const DOMAIN = "syncworker.v1";

/** A google.rpc detail packed in an Any, as google.rpc.Status carries its details. */
function pack<T>(type: string, codec: { encode(message: T): { finish(): Uint8Array } }, message: T): Any {
  return { typeUrl: `type.googleapis.com/google.rpc.${type}`, value: Buffer.from(codec.encode(message).finish()) };
}

function badRequest(field: string, description: string): Any {
  return pack("BadRequest", BadRequest, BadRequest.fromPartial({ fieldViolations: [{ field, description }] }));
}

function errorInfo(reason: string, metadata: Readonly<Record<string, string>> = {}): Any {
  return pack("ErrorInfo", ErrorInfo, { reason, domain: DOMAIN, metadata: { ...metadata } });
}

/** The status with its google.rpc.Status (one detail) in `grpc-status-details-bin`, where gRPC clients look for it. */
function serviceError(code: Status, message: string, detail: Any): Partial<ServiceError> {
  const metadata = new Metadata();
  metadata.set("grpc-status-details-bin", Buffer.from(RpcStatus.encode({ code, message, details: [detail] }).finish()));
  return { code, details: message, metadata };
}

/**
 * The one place where errors become gRPC statuses. Internal errors keep their message (never a
 * stack trace) and carry a google.rpc.ErrorInfo.
 */
export function toServiceError(err: unknown): Partial<ServiceError> {
  if (err instanceof InvalidArgumentError) {
    return serviceError(Status.INVALID_ARGUMENT, err.message, badRequest(err.field, err.message));
  }
  if (err instanceof ResourceExhaustedError) {
    return serviceError(Status.RESOURCE_EXHAUSTED, err.message, errorInfo(err.reason));
  }
  if (err instanceof AccessError) {
    return serviceError(ACCESS_CODES[err.reason], err.message, errorInfo(err.reason, { rpc: err.rpc }));
  }
  if (err instanceof NotLeaderError) {
    // The leader's identity rides in the ErrorInfo metadata, so a client can tell where writes go.
    return serviceError(Status.UNAVAILABLE, err.message, errorInfo("NotLeader", { leader: err.leader }));
  }
  if (err instanceof StateNotSavedError) {
    // Nothing was changed and the cause (a full disk, a lost write) may pass: worth a retry, as UNAVAILABLE says.
    return serviceError(Status.UNAVAILABLE, err.message, errorInfo("StateNotSaved", { change: err.change }));
  }
  if (err instanceof StaleGenerationError) {
    // The field the client must change, like any other refused field (a retry as sent is refused the same way).
    return serviceError(Status.INVALID_ARGUMENT, err.message, badRequest("generation", err.message));
  }
  if (err instanceof CancelUpdateError) {
    // ApplyStarted and the rest contradict where the update stands: the caller must change its request, not retry it.
    return serviceError(Status.FAILED_PRECONDITION, err.message, errorInfo(err.reason));
  }
  if (err instanceof PauseError) {
    // Pausing a paused update, resuming a running one: the worker's state, not the request, is in the way.
    return serviceError(Status.FAILED_PRECONDITION, err.message, errorInfo(err.reason));
  }
  if (err instanceof PlanError) {
    // A Preview whose object the cluster would not dry-run: the request was fine, the cluster's state is not.
    return serviceError(Status.FAILED_PRECONDITION, err.message, errorInfo(err.reason, err.object ? { object: err.object } : {}));
  }
  if (err instanceof UpdateError) {
    // A Preview's payload that does not retrieve, load or match its version (PayloadError is an UpdateError).
    return serviceError(Status.FAILED_PRECONDITION, err.message, errorInfo(err.reason));
  }
  if (err instanceof CancelledError && err.kind === "deadline") {
    // Work that ran out of its time ("context deadline exceeded"); a retry may well finish in time.
    return serviceError(Status.DEADLINE_EXCEEDED, err.message, errorInfo("DeadlineExceeded"));
  }
  // A CancelledError of kind canceled is named AbortError, as DOM's own is.
  if (err instanceof Error && err.name === "AbortError") {
    return serviceError(Status.CANCELLED, "request cancelled", errorInfo("Cancelled"));
  }
  const message = err instanceof Error ? err.message : String(err);
  return serviceError(Status.INTERNAL, message, errorInfo("Internal"));
}
