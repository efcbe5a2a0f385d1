import type { ServiceError } from "@grpc/grpc-js";
import { BadRequest, ErrorInfo } from "./gen/google/rpc/error_details.js";
import { Status } from "./gen/google/rpc/status.js";

/** The gRPC status codes, by name: a closed set so a `switch` over them is checked for exhaustiveness. */
export enum Code {
  Canceled = 1,
  Unknown = 2,
  InvalidArgument = 3,
  DeadlineExceeded = 4,
  NotFound = 5,
  AlreadyExists = 6,
  PermissionDenied = 7,
  ResourceExhausted = 8,
  FailedPrecondition = 9,
  Aborted = 10,
  OutOfRange = 11,
  Unimplemented = 12,
  Internal = 13,
  Unavailable = 14,
  DataLoss = 15,
  Unauthenticated = 16,
}

/** One google.rpc detail the server attaches; unknown detail types keep their type URL and bytes. */
export type ErrorDetail =
  | { readonly type: "BadRequest"; readonly fieldViolations: ReadonlyArray<{ readonly field: string; readonly description: string }> }
  | { readonly type: "ErrorInfo"; readonly reason: string; readonly domain: string; readonly metadata: Readonly<Record<string, string>> }
  | { readonly type: "Unknown"; readonly typeUrl: string; readonly value: Uint8Array };

const BRAND = Symbol.for("syncworker.client.SyncWorkerError");

/**
 * Every failure of a client call: the gRPC code, the server's message and its google.rpc details.
 * `instanceof` works across duplicate copies of this module (a brand, not the prototype chain).
 */
export class SyncWorkerError extends Error {
  readonly [BRAND] = true;
  override readonly name = "SyncWorkerError";

  constructor(
    readonly code: Code,
    readonly rawMessage: string,
    readonly details: readonly ErrorDetail[] = [],
    options?: { cause?: unknown },
  ) {
    super(`[${Code[code] ?? code}] ${rawMessage}`, options);
  }

  /** The field violations of a google.rpc.BadRequest detail, if the server sent one. */
  get fieldViolations(): ReadonlyArray<{ readonly field: string; readonly description: string }> {
    return this.details.flatMap((d) => (d.type === "BadRequest" ? d.fieldViolations : []));
  }

  static override [Symbol.hasInstance](value: unknown): value is SyncWorkerError {
    return typeof value === "object" && value !== null && (value as Record<symbol, unknown>)[BRAND] === true;
  }

  /** Normalises anything a call can throw: grpc-js ServiceErrors, aborts, and plain errors. */
  static from(err: unknown): SyncWorkerError {
    if (err instanceof SyncWorkerError) return err;
    if (isServiceError(err)) {
      const code = err.code in Code ? (err.code as number as Code) : Code.Unknown;
      const bin = err.metadata?.get("grpc-status-details-bin")[0];
      return new SyncWorkerError(code, err.details, bin instanceof Buffer ? decodeDetails(bin) : [], { cause: err });
    }
    // AbortSignal reasons: abort() gives an AbortError, AbortSignal.timeout() a TimeoutError.
    if (err instanceof Error && err.name === "AbortError") return new SyncWorkerError(Code.Canceled, err.message, [], { cause: err });
    if (err instanceof Error && err.name === "TimeoutError") return new SyncWorkerError(Code.DeadlineExceeded, err.message, [], { cause: err });
    return new SyncWorkerError(Code.Unknown, err instanceof Error ? err.message : String(err), [], { cause: err });
  }
}

function isServiceError(err: unknown): err is ServiceError {
  return err instanceof Error && typeof (err as Partial<ServiceError>).code === "number" && "details" in err;
}

/** Codes after which a watch reconnects: the connection or server went away, not the request being wrong. */
export function isTransient(err: SyncWorkerError): boolean {
  switch (err.code) {
    case Code.Unavailable: // a dropped connection (grpc-js: "read ECONNRESET") or a server not listening yet
    case Code.ResourceExhausted:
    case Code.Aborted:
      return true;
    case Code.Internal:
      // grpc-js reports an HTTP/2 stream reset by a proxy in between as INTERNAL "Received RST_STREAM ...";
      // the server's own INTERNAL errors carry its message instead and are not retried.
      return /RST_STREAM/.test(err.rawMessage);
    default:
      return false;
  }
}

/** The details of a google.rpc.Status; a detail type this client does not know keeps its type URL and bytes. */
function decodeDetails(bytes: Uint8Array): ErrorDetail[] {
  return Status.decode(bytes).details.map(({ typeUrl, value }): ErrorDetail => {
    switch (typeUrl.slice(typeUrl.lastIndexOf("/") + 1)) {
      case "google.rpc.BadRequest":
        return { type: "BadRequest", fieldViolations: BadRequest.decode(value).fieldViolations.map(({ field, description }) => ({ field, description })) };
      case "google.rpc.ErrorInfo": {
        const { reason, domain, metadata } = ErrorInfo.decode(value);
        return { type: "ErrorInfo", reason, domain, metadata };
      }
      default:
        return { type: "Unknown", typeUrl, value };
    }
  });
}
