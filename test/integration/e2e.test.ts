import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { loadUpdate } from "../../src/payload/index.js";
import { nodePayloadFs } from "../../src/retrieval/node-fs.js";
import { KNOWN_CAPABILITIES } from "../../src/policy/index.js";
import { writeReleases } from "../harness/payload-gen.js";
import { embeddedObjects, startServer, waitForStatus, type ServerProcess } from "../harness/server.js";

let server: ServerProcess;
// The embedded cluster's objects are read back through the admin endpoint's debug route.
before(async () => (server = await startServer(["--debug-endpoints"])));
after(async () => assert.equal(await server.stop(), 0, "serve exits 0 on SIGTERM"));

const key = (apiVersion: string, kind: string, namespace: string | undefined, name: string): string => {
  const group = apiVersion.includes("/") ? apiVersion.slice(0, apiVersion.indexOf("/")) : "";
  return `${group}/${kind}/${namespace ?? ""}/${name}`;
};

async function expectedObjects(dir: string): Promise<{ version: string; total: number; keys: string[] }> {
  const payload = await loadUpdate(
    dir,
    dir,
    {
      clusterProfile: "self-managed-high-availability",
      knownCapabilities: KNOWN_CAPABILITIES,
      architecture: "amd64",
    },
    nodePayloadFs,
  );
  const keys = payload.manifests
    .filter((m) => m.obj.metadata?.annotations?.["release.openshift.io/delete"] === undefined)
    .map((m) => key(m.obj.apiVersion ?? "", m.gvk.kind, m.obj.metadata?.namespace, m.obj.metadata?.name ?? ""));
  return { version: payload.release.version, total: payload.manifests.length, keys };
}

async function syncTo(dir: string, generation: number): Promise<void> {
  const { version, total, keys } = await expectedObjects(dir);
  const response = await server.client.update({
    generation,
    desired: { version: "", image: dir, force: false },
    overrides: [],
    capabilities: undefined,
    state: 0,
  });
  assert.equal(response.loadPayloadStatus?.failure, undefined, "the payload loads");
  assert.equal(response.loadPayloadStatus?.step, "PayloadLoaded");
  assert.equal(response.loadPayloadStatus?.update?.version, version, "the payload's version is adopted");

  const done = await waitForStatus(
    server.client,
    (s) => s.actual?.version === version && s.total > 0 && s.done === s.total && s.completed >= 1 && !s.failure,
    60_000,
  );
  assert.equal(done.generation, generation);
  assert.equal(done.total, total, "total counts every included manifest");
  assert.match(done.versionHash, /^[A-Za-z0-9_-]{11}=$/);
  assert.equal(done.message, `Cluster version is ${version}`);

  const stored = new Set((await embeddedObjects(server.adminAddress)).map((o) => key(o.apiVersion, o.kind, o.metadata.namespace, o.metadata.name)));
  const missing = keys.filter((k) => !stored.has(k));
  assert.deepEqual(missing, [], "the embedded cluster holds every included object");
}

test("syncs release a to completion, then release b supersedes it and completes", { timeout: 180_000 }, async () => {
  const { a, b } = await writeReleases();
  await syncTo(a, 1);
  await syncTo(b, 2);
});
