import assert from "node:assert/strict";
import { mkdtemp, mkdir, writeFile, cp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { Code, SyncWorkerError, type UpdateInput } from "@syncworker/client";
import { violatedField } from "../harness/grpc-errors.js";
import { REPO_ROOT, startServer, waitForStatus, type ServerProcess } from "../harness/server.js";

let server: ServerProcess;
before(async () => (server = await startServer()));
after(async () => assert.equal(await server.stop(), 0));

const DEMO = join(REPO_ROOT, "examples/payloads/demo-1.0.0");

function request(image: string, generation = 1, state = 0): UpdateInput {
  return { generation, desired: { version: "", image, force: false }, overrides: [], capabilities: undefined, state };
}

async function rejected(req: UpdateInput): Promise<SyncWorkerError> {
  try {
    await server.client.update(req);
  } catch (err) {
    assert.ok(err instanceof SyncWorkerError, String(err));
    return err;
  }
  assert.fail("expected the request to be rejected");
}

for (const tc of [
  { name: "no image", req: request(""), field: "desired.image" },
  { name: "negative generation", req: request(DEMO, -1), field: "generation" },
  { name: "unknown state", req: request(DEMO, 1, 42), field: "state" },
]) {
  test(`INVALID_ARGUMENT names the field: ${tc.name}`, async () => {
    const err = await rejected(tc.req);
    assert.equal(err.code, Code.InvalidArgument);
    assert.match(err.rawMessage, new RegExp(tc.field.replace(".", "\\.")));
    assert.equal(violatedField(err), tc.field);
  });
}

test("a bad payload is reported in load_payload_status and the accepted payload stays in effect", { timeout: 60_000 }, async () => {
  const accepted = await server.client.update(request(DEMO, 1));
  assert.equal(accepted.loadPayloadStatus?.step, "PayloadLoaded");
  await waitForStatus(server.client, (s) => s.completed >= 1 && s.done === s.total && !s.failure, 30_000);

  const missing = "/nonexistent/syncworker/payload";
  const notFound = await server.client.update(request(missing, 2));
  assert.equal(notFound.loadPayloadStatus?.step, "RetrievePayload");
  assert.match(notFound.loadPayloadStatus?.failure?.message ?? "", /nonexistent\/syncworker\/payload/);
  assert.equal(notFound.actual?.version, "1.0.0", "the accepted release is still the actual one");

  const broken = await mkdtemp(join(tmpdir(), "syncworker-broken-"));
  await cp(DEMO, broken, { recursive: true });
  await mkdir(join(broken, "release-manifests"), { recursive: true });
  await writeFile(join(broken, "release-manifests/0000_50_demo-web_04_broken.yaml"), "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: [unclosed\n");
  const malformed = await server.client.update(request(broken, 3));
  const load = malformed.loadPayloadStatus;
  assert.equal(load?.step, "LoadPayload");
  assert.equal(load?.failure?.reason, "UpdatePayloadIntegrity");
  assert.match(load?.failure?.message ?? "", /0000_50_demo-web_04_broken\.yaml/);
  assert.match(load?.failure?.message ?? "", /line \d+/);

  const status = await server.client.getStatus();
  assert.equal(status.actual?.version, "1.0.0");
  assert.equal(status.actual?.image, DEMO);
  assert.equal(status.failure, undefined, "the worker keeps applying the accepted payload");
});
