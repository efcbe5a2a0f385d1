import assert from "node:assert/strict";
import { BinaryReader, WireType } from "@bufbuild/protobuf/wire";
import type { Metadata } from "@grpc/grpc-js";

/** Reads the field of the first google.rpc.BadRequest violation from the grpc-status-details-bin trailer. */
export function violatedField(metadata: Metadata): string {
  const [details] = metadata.get("grpc-status-details-bin");
  assert.ok(Buffer.isBuffer(details), "the error carries google.rpc.Status details");
  // Walks google.rpc.Status.details (3) -> Any {type_url (1), value (2)} -> BadRequest.field_violations (1) -> field (1).
  const fields = (bytes: Uint8Array): Map<number, Uint8Array> => {
    const reader = new BinaryReader(bytes);
    const out = new Map<number, Uint8Array>();
    while (reader.pos < reader.len) {
      const [number, type] = reader.tag();
      if (type === WireType.LengthDelimited) {
        const value = reader.bytes();
        if (!out.has(number)) out.set(number, value);
      } else reader.skip(type);
    }
    return out;
  };
  const any = fields(fields(details).get(3)!);
  assert.equal(Buffer.from(any.get(1)!).toString(), "type.googleapis.com/google.rpc.BadRequest");
  const violation = fields(fields(any.get(2)!).get(1)!);
  return Buffer.from(violation.get(1)!).toString();
}
