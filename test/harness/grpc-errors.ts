import assert from "node:assert/strict";
import type { ServiceError } from "@grpc/grpc-js";
import { SyncWorkerError } from "@syncworker/client";

/**
 * The field of the first google.rpc.BadRequest violation an error carries (the client decodes them from the
 * grpc-status-details-bin trailer). Raw grpc-js errors go through SyncWorkerError.from, so every test reads the
 * trailer the same way.
 */
export function violatedField(error: SyncWorkerError | ServiceError): string {
  const [detail] = SyncWorkerError.from(error).details;
  assert.ok(detail, "the error carries google.rpc.Status details");
  assert.equal(detail.type, "BadRequest");
  const [violation] = detail.fieldViolations;
  assert.ok(violation, "the BadRequest names a field");
  return violation.field;
}
