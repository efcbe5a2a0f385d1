/**
 * Input limits at the gRPC edge: request bytes checked against the proto before any handler sees them, and the
 * StatusWatch streams one client may hold. String lengths are checked with the fields (convert.ts).
 */
import { createFileRegistry, ScalarType, type DescField, type DescMessage } from "@bufbuild/protobuf";
import { BinaryReader, WireType } from "@bufbuild/protobuf/wire";
import type * as grpc from "@grpc/grpc-js";
import { InvalidArgumentError, ResourceExhaustedError } from "./errors.js";
import { descriptorSet } from "./reflection.js";

/** The largest request the server reads (grpc-js's default, made explicit); larger ones get RESOURCE_EXHAUSTED. */
export const MAX_RECEIVE_MESSAGE_BYTES = 4 * 1024 * 1024;

const INT64: ReadonlySet<ScalarType> = new Set([ScalarType.INT64, ScalarType.UINT64, ScalarType.SINT64, ScalarType.FIXED64, ScalarType.SFIXED64]);
const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);
const utf8 = new TextDecoder("utf-8", { fatal: true });

/**
 * The first problem in the encoded `bytes` of a `desc` message that decoding would hide or turn into an internal
 * error: bytes that are not protobuf, a string that is not UTF-8, a 64-bit integer beyond 2^53-1 (which JavaScript
 * numbers cannot hold exactly; the generated decoder throws on it). The field is named by its proto path, e.g.
 * `overrides[1].name`; bytes that do not parse at all name the enclosing message's path (`request` at the top).
 */
export function malformedField(desc: DescMessage, bytes: Uint8Array, path = ""): InvalidArgumentError | undefined {
  const reader = new BinaryReader(bytes);
  const seen = new Map<number, number>();
  const where = path || "request";
  while (reader.pos < reader.len) {
    let name = where;
    try {
      const [number, wireType] = reader.tag();
      const field = desc.fields.find((f) => f.number === number);
      if (!field) {
        reader.skip(wireType, number);
        continue;
      }
      const index = seen.get(number) ?? 0;
      seen.set(number, index + 1);
      name = `${path ? `${path}.` : ""}${field.name}${field.fieldKind === "list" ? `[${index}]` : ""}`;
      const problem = checkValue(field, wireType, reader, name);
      if (problem) return problem;
    } catch (err) {
      return new InvalidArgumentError(name, `${name} is not a valid protobuf encoding: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
  return undefined;
}

function checkValue(field: DescField, wireType: WireType, reader: BinaryReader, name: string): InvalidArgumentError | undefined {
  const message = field.fieldKind === "message" ? field.message : field.fieldKind === "list" && field.listKind === "message" ? field.message : undefined;
  const scalar = field.fieldKind === "scalar" || (field.fieldKind === "list" && field.listKind === "scalar") ? field.scalar : undefined;
  if (message && wireType === WireType.LengthDelimited) return malformedField(message, reader.bytes(), name);
  if (scalar === ScalarType.STRING && wireType === WireType.LengthDelimited) {
    try {
      utf8.decode(reader.bytes());
    } catch {
      return new InvalidArgumentError(name, `${name} is not valid UTF-8`);
    }
    return undefined;
  }
  if (scalar !== undefined && INT64.has(scalar) && (wireType === WireType.Varint || wireType === WireType.Bit64)) {
    const value = BigInt(wireType === WireType.Bit64 ? reader.fixed64() : scalar === ScalarType.UINT64 ? reader.uint64() : reader.int64());
    if (value > MAX_SAFE || value < -MAX_SAFE)
      return new InvalidArgumentError(name, `${name} is out of range: ${value} is beyond ±(2^53-1), the largest integer accepted`);
    return undefined;
  }
  reader.skip(wireType);
  return undefined;
}

/** Why a request was refused while decoding; the handlers see an empty request carrying it. */
const refusals = new WeakMap<object, InvalidArgumentError>();

/** `request`, unless it failed {@link malformedField} while decoding: then that refusal is thrown. */
export function accepted<T extends object>(request: T): T {
  const refusal = refusals.get(request);
  if (refusal) throw refusal;
  return request;
}

/**
 * `service` with request decoding that never throws (grpc-js would answer INTERNAL): a malformed request
 * decodes as the empty message, with its refusal kept for {@link accepted}.
 */
export function checkedDecoding<S extends grpc.ServiceDefinition>(service: S): S {
  const registry = createFileRegistry(descriptorSet());
  const checked: Record<string, grpc.MethodDefinition<object, unknown>> = {};
  for (const [key, method] of Object.entries(service) as [string, grpc.MethodDefinition<object, unknown>][]) {
    const [, serviceName = "", methodName = ""] = /^\/([^/]+)\/([^/]+)$/.exec(method.path) ?? [];
    const input = registry.getService(serviceName)?.methods.find((m) => m.name === methodName)?.input;
    if (!input) throw new Error(`no descriptor for ${method.path}`);
    checked[key] = {
      ...method,
      requestDeserialize: (bytes: Buffer) => {
        const problem = malformedField(input, bytes);
        if (!problem) return method.requestDeserialize(bytes);
        const empty = method.requestDeserialize(Buffer.alloc(0));
        refusals.set(empty, problem);
        return empty;
      },
    };
  }
  return checked as S;
}

/**
 * Counts the StatusWatch streams of each client host, so one client cannot hold an unbounded number. Hosts, not
 * connections: a client opening many connections is still one client.
 */
export class WatchLimiter {
  readonly #open = new Map<string, number>();

  constructor(private readonly perClient: number) {}

  /** Takes a stream slot for `peer` (grpc-js's `host:port`) and returns its release; refuses when the host has all of them. */
  acquire(peer: string): () => void {
    const host = peer.replace(/:\d+$/, "");
    const open = this.#open.get(host) ?? 0;
    if (open >= this.perClient) {
      throw new ResourceExhaustedError(
        "TooManyWatches",
        `${host} already has ${open} open StatusWatch streams, the most one client may hold (--max-watches-per-client)`,
      );
    }
    this.#open.set(host, open + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (this.#open.get(host) ?? 1) - 1;
      if (left > 0) this.#open.set(host, left);
      else this.#open.delete(host);
    };
  }
}
