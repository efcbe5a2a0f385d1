import { hasBrand } from "../payload/update-error.js";
import { NotLeaderError } from "../service/index.js";
import { BinaryWriter } from "@bufbuild/protobuf/wire";
import { Metadata, status as Status, type ServiceError } from "@grpc/grpc-js";

const INVALID_ARGUMENT = Symbol.for("syncworker.InvalidArgumentError");

/** A request field that fails validation; becomes INVALID_ARGUMENT with a google.rpc.BadRequest. */
export class InvalidArgumentError extends Error {
  readonly [INVALID_ARGUMENT] = true;
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(message);
    this.name = "InvalidArgumentError";
  }
  static override [Symbol.hasInstance](value: unknown): value is InvalidArgumentError {
    return hasBrand(value, INVALID_ARGUMENT);
  }
}

const RESOURCE_EXHAUSTED = Symbol.for("syncworker.ResourceExhaustedError");

/** A client holds all it may of something (`reason`, e.g. `TooManyWatches`); becomes RESOURCE_EXHAUSTED. */
export class ResourceExhaustedError extends Error {
  readonly [RESOURCE_EXHAUSTED] = true;
  constructor(
    readonly reason: string,
    message: string,
  ) {
    super(message);
    this.name = "ResourceExhaustedError";
  }
  static override [Symbol.hasInstance](value: unknown): value is ResourceExhaustedError {
    return hasBrand(value, RESOURCE_EXHAUSTED);
  }
}

const ACCESS = Symbol.for("syncworker.AccessError");

/**
 * Why a call was refused at the edge: no or invalid credentials (`Unauthenticated`), a known caller without the
 * role or RBAC grant the RPC needs (`PermissionDenied`), or the authority that checks tokens could not be asked
 * (`AuthorityUnavailable`, worth a retry).
 */
export type AccessReason = "Unauthenticated" | "PermissionDenied" | "AuthorityUnavailable";

/** A refused call; the message says what was missing. */
export class AccessError extends Error {
  readonly [ACCESS] = true;
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
  static override [Symbol.hasInstance](value: unknown): value is AccessError {
    return hasBrand(value, ACCESS);
  }
}

const ACCESS_CODES: Readonly<Record<AccessReason, Status>> = {
  Unauthenticated: Status.UNAUTHENTICATED,
  PermissionDenied: Status.PERMISSION_DENIED,
  AuthorityUnavailable: Status.UNAVAILABLE,
};

const DOMAIN = "syncworker.v1";

/** google.rpc.Status with one Any detail, encoded by hand to avoid vendoring googleapis. */
function encodeStatus(code: number, message: string, typeUrl: string, detail: Uint8Array): Buffer {
  const w = new BinaryWriter();
  w.uint32(8).int32(code);
  w.uint32(18).string(message);
  w.uint32(26).fork().uint32(10).string(typeUrl).uint32(18).bytes(detail).join();
  return Buffer.from(w.finish());
}

function badRequest(field: string, description: string): Uint8Array {
  const w = new BinaryWriter();
  w.uint32(10).fork().uint32(10).string(field).uint32(18).string(description).join();
  return w.finish();
}

function errorInfo(reason: string, metadata: Readonly<Record<string, string>> = {}): Uint8Array {
  const w = new BinaryWriter();
  w.uint32(10).string(reason).uint32(18).string(DOMAIN);
  for (const [key, value] of Object.entries(metadata)) w.uint32(26).fork().uint32(10).string(key).uint32(18).string(value).join();
  return w.finish();
}

function serviceError(code: Status, message: string, typeUrl: string, detail: Uint8Array): Partial<ServiceError> {
  const metadata = new Metadata();
  metadata.set("grpc-status-details-bin", encodeStatus(code, message, typeUrl, detail));
  return { code, details: message, metadata };
}

/**
 * The one place where errors become gRPC statuses. Internal errors keep their message (never a
 * stack trace) and carry a google.rpc.ErrorInfo.
 */
export function toServiceError(err: unknown): Partial<ServiceError> {
  if (err instanceof InvalidArgumentError) {
    return serviceError(Status.INVALID_ARGUMENT, err.message, "type.googleapis.com/google.rpc.BadRequest", badRequest(err.field, err.message));
  }
  if (err instanceof ResourceExhaustedError) {
    return serviceError(Status.RESOURCE_EXHAUSTED, err.message, "type.googleapis.com/google.rpc.ErrorInfo", errorInfo(err.reason));
  }
  if (err instanceof AccessError) {
    return serviceError(ACCESS_CODES[err.reason], err.message, "type.googleapis.com/google.rpc.ErrorInfo", errorInfo(err.reason, { rpc: err.rpc }));
  }
  if (err instanceof NotLeaderError) {
    // The leader's identity rides in the ErrorInfo metadata, so a client can tell where writes go.
    return serviceError(Status.UNAVAILABLE, err.message, "type.googleapis.com/google.rpc.ErrorInfo", errorInfo("NotLeader", { leader: err.leader }));
  }
  if (err instanceof Error && err.name === "AbortError") {
    return serviceError(Status.CANCELLED, "request cancelled", "type.googleapis.com/google.rpc.ErrorInfo", errorInfo("Cancelled"));
  }
  const message = err instanceof Error ? err.message : String(err);
  return serviceError(Status.INTERNAL, message, "type.googleapis.com/google.rpc.ErrorInfo", errorInfo("Internal"));
}
