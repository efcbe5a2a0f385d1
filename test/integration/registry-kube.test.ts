// A release image pulled from a real registry (Debian's docker-registry) and applied to a real kube-apiserver by a
// real `syncworker serve --kubeconfig`: the update by digest completes, and the status and the cluster's objects
// show the release of that digest.
import assert from "node:assert/strict";
import { join } from "node:path";
import type { SyncWorkerStatus } from "@syncworker/client";
import { goArch } from "../../src/payload/index.js";
import { RegistryClient } from "../../src/retrieval/index.js";
import { pushPayload } from "../../src/retrieval/registry/index.js";
import { createForeignNamespaces, installMissingKinds, payloadManifests, playOperators, type OperatorPlayer } from "../harness/cluster-play.js";
import { startControlPlane, type ControlPlane } from "../harness/control-plane.js";
import { startRegistry, type TestRegistry } from "../harness/registry.js";
import { REPO_ROOT, startServer, waitForStatus, type ServerProcess } from "../harness/server.js";
import { tierTests } from "../harness/tiers.js";

const { after, before, test } = tierTests("registry", "kube", "tls");

const DEMO_1 = join(REPO_ROOT, "examples/payloads/demo-1.0.0");

let cp: ControlPlane;
let registry: TestRegistry;
let server: ServerProcess | undefined;
let player: OperatorPlayer | undefined;

// The first run on a machine builds kube-apiserver from source: allow the cold build inside the hook.
before(
  async () => {
    registry = await startRegistry();
    cp = await startControlPlane();
  },
  { timeout: 90 * 60_000 },
);
after(async () => {
  await player?.stop();
  await server?.stop();
  await cp?.stop();
  await registry?.stop();
});

test("an update by digest completes on a real kube-apiserver and reports the digest", { timeout: 300_000 }, async () => {
  const client = new RegistryClient({ authFile: "", authFileOptional: true, insecureHosts: [registry.host] });
  const image = await pushPayload(client, DEMO_1, `${registry.host}/release/demo:1.0.0`, goArch(process.arch), new AbortController().signal);
  await client.close();
  const demo = await payloadManifests(DEMO_1);
  await installMissingKinds(cp.api, demo.manifests);
  await createForeignNamespaces(cp.api, demo.manifests);
  player = playOperators(cp.api, demo.manifests);
  server = await startServer([
    "--kubeconfig",
    cp.kubeconfig,
    "--namespace",
    "syncworker-registry-kube",
    "--insecure-registry",
    registry.host,
    "--reconcile-interval",
    "60s",
  ]);

  const accepted = await server.client.update({
    generation: 1,
    desired: { version: "", image, force: false },
    overrides: [],
    capabilities: undefined,
    state: 0,
  });
  assert.equal(accepted.loadPayloadStatus?.step, "PayloadLoaded", JSON.stringify(accepted.loadPayloadStatus));
  const done = await waitForStatus(server.client, (s: SyncWorkerStatus) => s.actual?.image === image && s.completed >= 1 && !s.failure, 240_000);
  assert.equal(done.actual?.version, demo.version);
  assert.equal(done.history[0]?.image, image, "the history records the pull spec by digest");
  const config = (await cp.api.get("v1", "ConfigMap", "demo-config", "config-config")) as { data?: Record<string, string> } | undefined;
  assert.equal(config?.data?.["release"], "1.0.0", "the image's objects are in the cluster");
});
