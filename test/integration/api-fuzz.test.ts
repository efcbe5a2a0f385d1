// Fuzzing the API of a real server: generated UpdateRequests (integers beyond 2^53, odd strings, unknown enums)
// and raw garbage bytes for every method, sent with a raw grpc-js client. The server never fails otherwise than
// with INVALID_ARGUMENT naming a field, keeps serving, and the release it accepted stays in effect.
import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { BinaryWriter } from "@bufbuild/protobuf/wire";
import * as grpc from "@grpc/grpc-js";
import fc from "fast-check";
import { UpdateRequest } from "@syncworker/client/gen/syncworker/v1/syncworker";
import { violatedField } from "../harness/grpc-errors.js";
import { REPO_ROOT, startServer, waitForStatus, type ServerProcess } from "../harness/server.js";

const EXAMPLES = join(REPO_ROOT, "examples/payloads");
const DEMO = join(EXAMPLES, "demo-1.0.0");

let server: ServerProcess;
let client: grpc.Client;

before(async () => {
  server = await startServer(["--payload-root", EXAMPLES]);
  client = new grpc.Client(server.address, grpc.credentials.createInsecure());
  await server.client.update({ generation: 1, desired: { version: "", image: DEMO, force: false }, overrides: [], capabilities: undefined, state: 0 });
  await waitForStatus(server.client, (s) => s.actual?.version === "1.0.0" && s.completed >= 1, 60_000);
});

after(async () => {
  client.close();
  assert.equal(await server.stop(), 0, server.stderr());
});

const identity = (b: Buffer): Buffer => b;

/** The outcome of one call with raw request bytes: OK, or the error. */
function call(method: string, bytes: Uint8Array): Promise<grpc.ServiceError | undefined> {
  const path = `/syncworker.v1.SyncWorker/${method}`;
  if (method === "StatusWatch") {
    return new Promise((resolve) => {
      const stream = client.makeServerStreamRequest(path, identity, identity, Buffer.from(bytes));
      stream.once("data", () => {
        stream.removeAllListeners("error");
        stream.on("error", () => undefined);
        stream.cancel();
        resolve(undefined);
      });
      stream.once("error", (err: grpc.ServiceError) => resolve(err));
    });
  }
  return new Promise((resolve) => client.makeUnaryRequest(path, identity, identity, Buffer.from(bytes), (err) => resolve(err ?? undefined)));
}

/** Every refusal is INVALID_ARGUMENT with a google.rpc.BadRequest naming a field. */
function assertRefusalNamesField(err: grpc.ServiceError | undefined, what: string): void {
  if (!err) return;
  assert.equal(err.code, grpc.status.INVALID_ARGUMENT, `${what}: ${grpc.status[err.code]} ${err.details}`);
  assert.notEqual(violatedField(err), "", what);
}

const text = fc.oneof(
  fc.string(),
  fc.string({ unit: "grapheme", maxLength: 40 }),
  fc.constantFrom("", "/", "/etc", "file:///etc/passwd", `${EXAMPLES}/../..`, EXAMPLES, join(EXAMPLES, "missing"), "quay.io/x@sha256:0"),
);
const updateRequest = fc.record({
  generation: fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }),
  desired: fc.option(fc.record({ version: text, image: text, force: fc.boolean() }), { nil: undefined }),
  overrides: fc.array(fc.record({ kind: text, group: text, namespace: text, name: text, unmanaged: fc.boolean() }), { maxLength: 4 }),
  capabilities: fc.option(
    fc.record({ baselineCapabilitySet: fc.oneof(text, fc.constantFrom("None", "vCurrent")), additionalEnabledCapabilities: fc.array(text, { maxLength: 4 }) }),
    { nil: undefined },
  ),
  state: fc.integer({ min: -3, max: 8 }),
});

test("generated UpdateRequests: accepted or refused naming a field, and the accepted release stays", { timeout: 300_000 }, async () => {
  await fc.assert(
    fc.asyncProperty(updateRequest, async ({ generation, ...rest }) => {
      // The generated code cannot encode integers beyond 2^53, so generation is written by hand after the rest.
      const bytes = Buffer.concat([UpdateRequest.encode(UpdateRequest.fromPartial(rest)).finish(), new BinaryWriter().uint32(8).int64(generation).finish()]);
      assertRefusalNamesField(await call("Update", bytes), `Update ${JSON.stringify({ ...rest, generation: String(generation) })}`);
    }),
    { numRuns: 150 },
  );
  const status = await server.client.getStatus();
  assert.deepEqual([status.actual?.version, status.actual?.image], ["1.0.0", DEMO]);
});

test("raw garbage bytes to every method: OK or INVALID_ARGUMENT naming a field, never a crash", { timeout: 300_000 }, async () => {
  for (const method of ["Update", "GetStatus", "StatusWatch", "NotifyResourceActivity"]) {
    await fc.assert(
      fc.asyncProperty(fc.uint8Array({ maxLength: 256 }), async (bytes) =>
        assertRefusalNamesField(await call(method, bytes), `${method} ${Buffer.from(bytes).toString("hex")}`),
      ),
      { numRuns: 100 },
    );
  }
  const status = await server.client.getStatus();
  assert.deepEqual([status.actual?.version, status.actual?.image], ["1.0.0", DEMO]);
  assert.equal(server.child.exitCode, null, "the server still runs");
});
