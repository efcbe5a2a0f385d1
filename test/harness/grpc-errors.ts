import assert from "node:assert/strict";
import type { Metadata } from "@grpc/grpc-js";
import { BadRequest } from "../../clients/ts/src/gen/google/rpc/error_details.js";
import { Status } from "../../clients/ts/src/gen/google/rpc/status.js";

/** Reads the field of the first google.rpc.BadRequest violation from the grpc-status-details-bin trailer. */
export function violatedField(metadata: Metadata): string {
  const [details] = metadata.get("grpc-status-details-bin");
  assert.ok(Buffer.isBuffer(details), "the error carries google.rpc.Status details");
  const [any] = Status.decode(details).details;
  assert.equal(any?.typeUrl, "type.googleapis.com/google.rpc.BadRequest");
  const [violation] = BadRequest.decode(any.value).fieldViolations;
  assert.ok(violation, "the BadRequest names a field");
  return violation.field;
}
