// The server's google.rpc.Status details, read back by the TypeScript client: both sides use the messages generated
// from the vendored google/rpc protos, so a detail the server sends is one the client decodes.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Metadata, status as GrpcStatus, type ServiceError } from "@grpc/grpc-js";
import { Status } from "@syncworker/client/gen/google/rpc/status";
import { Code, SyncWorkerError, type ErrorDetail } from "../../../clients/ts/src/index.js";
import { AccessError, InvalidArgumentError, toServiceError } from "../../../src/api/index.js";
import { ResourceExhaustedError } from "../../../src/api/errors.js";
import { CancelledError } from "../../../src/core/index.js";
import { NotLeaderError, StaleGenerationError, StateError, StateNotSavedError } from "../../../src/service/index.js";

const cases: [name: string, err: unknown, code: Code, details: ErrorDetail[]][] = [
  [
    "an invalid field",
    new InvalidArgumentError("desired.image", "desired.image: is required"),
    Code.InvalidArgument,
    [{ type: "BadRequest", fieldViolations: [{ field: "desired.image", description: "desired.image: is required" }] }],
  ],
  [
    "a standby",
    new NotLeaderError("replica-a"),
    Code.Unavailable,
    [{ type: "ErrorInfo", reason: "NotLeader", domain: "syncworker.v1", metadata: { leader: "replica-a" } }],
  ],
  [
    "a refused caller",
    new AccessError("PermissionDenied", "Update", "no"),
    Code.PermissionDenied,
    [{ type: "ErrorInfo", reason: "PermissionDenied", domain: "syncworker.v1", metadata: { rpc: "Update" } }],
  ],
  [
    "too many watches",
    new ResourceExhaustedError("TooManyWatches", "too many"),
    Code.ResourceExhausted,
    [{ type: "ErrorInfo", reason: "TooManyWatches", domain: "syncworker.v1", metadata: {} }],
  ],
  [
    "a change whose state was not saved",
    new StateNotSavedError("Update", new StateError("state file /s/state.json", "cannot be written: ENOSPC")),
    Code.Unavailable,
    [{ type: "ErrorInfo", reason: "StateNotSaved", domain: "syncworker.v1", metadata: { change: "Update" } }],
  ],
  [
    "a stale generation",
    new StaleGenerationError(5, 10),
    Code.InvalidArgument,
    [
      {
        type: "BadRequest",
        fieldViolations: [
          { field: "generation", description: "generation 5 is older than the last accepted Update's generation 10; send generation 10 or higher" },
        ],
      },
    ],
  ],
  [
    "a deadline that passed",
    new CancelledError("deadline"),
    Code.DeadlineExceeded,
    [{ type: "ErrorInfo", reason: "DeadlineExceeded", domain: "syncworker.v1", metadata: {} }],
  ],
  ["anything else", new Error("boom"), Code.Internal, [{ type: "ErrorInfo", reason: "Internal", domain: "syncworker.v1", metadata: {} }]],
];
/** What a client call fails with when the server answers with `status`. */
const received = (status: Partial<ServiceError>): SyncWorkerError => SyncWorkerError.from(Object.assign(new Error(status.details), status));

for (const [name, err, code, details] of cases) {
  test(`${name}: the client reads the server's code, message and details`, () => {
    const read = received(toServiceError(err));
    assert.deepEqual([read.code, read.rawMessage, read.details], [code, (err as Error).message, details]);
  });
}

test("a cancellation, ours or DOM's, is CANCELLED as a cancelled request", () => {
  for (const err of [new CancelledError(), new DOMException("This operation was aborted", "AbortError")]) {
    const read = received(toServiceError(err));
    assert.deepEqual(
      [read.code, read.rawMessage, read.details],
      [Code.Canceled, "request cancelled", [{ type: "ErrorInfo", reason: "Cancelled", domain: "syncworker.v1", metadata: {} }]],
    );
  }
});

test("a detail type the client does not know keeps its type URL and bytes", () => {
  const metadata = new Metadata();
  const unknown = { typeUrl: "type.googleapis.com/example.v1.Other", value: Buffer.from([8, 1]) };
  metadata.set("grpc-status-details-bin", Buffer.from(Status.encode({ code: Code.Internal, message: "boom", details: [unknown] }).finish()));
  assert.deepEqual(received({ code: GrpcStatus.INTERNAL, details: "boom", metadata }).details, [{ type: "Unknown", ...unknown }]);
});
