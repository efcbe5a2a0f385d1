// The live-object cache against the harness's real kube-apiserver: after a completed sync a reconcile
// pass writes nothing (counted from the API server's own metrics), and an edit by another field manager
// or a deletion of a managed object is undone by a pass the drift starts, without waiting for the
// reconcile interval.
import assert from "node:assert/strict";
import { join } from "node:path";
import type { SyncWorkerStatus } from "@syncworker/client";
import type { Manifest } from "../../src/payload/index.js";
import { createForeignNamespaces, installMissingKinds, payloadManifests, playOperators, type OperatorPlayer } from "../harness/cluster-play.js";
import { startControlPlane, type ControlPlane } from "../harness/control-plane.js";
import { REPO_ROOT, startServer, waitForStatus, type ServerProcess } from "../harness/server.js";
import { tierTests } from "../harness/tiers.js";

const { after, before, test } = tierTests("kube", "tls");

const DEMO = join(REPO_ROOT, "examples/payloads/demo-1.0.0");
/** Long enough that a correction within it cannot be the periodic pass. */
const INTERVAL_S = 40;

let cp: ControlPlane;
let player: OperatorPlayer | undefined;
let server: ServerProcess | undefined;
let manifests: Manifest[] = [];

before(
  async () => {
    cp = await startControlPlane();
    const payload = await payloadManifests(DEMO);
    manifests = payload.manifests;
    await installMissingKinds(cp.api, manifests);
    await createForeignNamespaces(cp.api, manifests);
    player = playOperators(cp.api, manifests);
    server = await startServer([
      "--kubeconfig",
      cp.kubeconfig,
      "--namespace",
      "syncworker-drift",
      "--reconcile-interval",
      `${INTERVAL_S}s`,
      "--backoff-steps",
      "2",
    ]);
    await server.client.update({ generation: 1, desired: { version: "", image: DEMO, force: false }, overrides: [], capabilities: undefined, state: 0 });
    await waitForStatus(server.client, (s) => s.completed >= 1 && !s.failure, 180_000);
  },
  { timeout: 90 * 60_000 },
);

after(async () => {
  await player?.stop();
  await server?.stop();
  await cp?.stop();
});

const WRITES = ["APPLY", "PATCH", "POST", "PUT", "DELETE", "CREATE", "UPDATE"];

async function nextPass(after: number, timeoutMs: number): Promise<SyncWorkerStatus> {
  assert.ok(server);
  return waitForStatus(server.client, (s) => s.completed > after && s.done === s.total && !s.failure, timeoutMs);
}

test("a reconcile pass after a completed sync writes nothing and reads little", { timeout: 300_000 }, async () => {
  assert.ok(server);
  const start = await server.client.getStatus();
  // Let the pass that may be running end, so the counts cover exactly one whole pass.
  const settled = await nextPass(start.completed, 3 * INTERVAL_S * 1000);
  // The operator player polls the cluster; everything it reports is in place, so it pauses while the pass is counted.
  await player?.stop();
  const before = await cp.api.requestCounts();
  await nextPass(settled.completed, 3 * INTERVAL_S * 1000);
  const afterPass = await cp.api.requestCounts();
  player = playOperators(cp.api, manifests);
  const delta = (verb: string): number => (afterPass.get(verb) ?? 0) - (before.get(verb) ?? 0);
  const keys = [...new Set([...before.keys(), ...afterPass.keys()])];
  const writes: Record<string, number> = Object.fromEntries(
    keys
      .filter((k) => WRITES.includes(k.split(" ")[0] ?? ""))
      .map((k): [string, number] => [k, delta(k)])
      .filter(([, n]) => n !== 0),
  );
  assert.deepEqual(writes, {}, "no write to any payload object");
  const all = keys.reduce((sum, key) => sum + delta(key), 0);
  console.log(
    `requests of a no-op reconcile pass over ${manifests.length} manifests: ${all} (${keys
      .filter((k) => delta(k) > 0)
      .map((k) => `${k}=${delta(k)}`)
      .join(", ")})`,
  );
  // The metrics scrapes of this test count too (two GETs of /metrics, as non-resource requests they have no resource).
  assert.ok(all <= 20, `a handful of requests, not one per manifest: ${all}`);
});

test("an edit by another field manager and a deletion are undone by the pass the drift starts", { timeout: 300_000 }, async () => {
  assert.ok(server);
  const configMap = manifests.find((m) => m.gvk.kind === "ConfigMap" && m.obj["data"]);
  const deployment = manifests.find((m) => m.gvk.kind === "Deployment");
  assert.ok(configMap && deployment);
  const cmPath = await cp.api.pathOf("v1", "ConfigMap", configMap.obj.metadata?.namespace, configMap.obj.metadata?.name);
  const deployPath = await cp.api.pathOf("apps/v1", "Deployment", deployment.obj.metadata?.namespace, deployment.obj.metadata?.name);
  const want = configMap.obj["data"] as Record<string, string>;
  const [key] = Object.keys(want);
  assert.ok(key);

  // Right after a periodic pass, so the next one is a whole interval away.
  const status = await server.client.getStatus();
  const passed = await nextPass(status.completed, 3 * INTERVAL_S * 1000);
  const edited = Date.now();
  await cp.api.must("PATCH", `${cmPath}?fieldManager=kubectl-edit`, { data: { [key]: "tampered" } }, "application/merge-patch+json");
  let restored = 0;
  while (!restored && Date.now() - edited < INTERVAL_S * 1000) {
    const live = (await cp.api.must("GET", cmPath)) as { data?: Record<string, string> };
    if (live.data?.[key] === want[key]) restored = Date.now();
    else await new Promise((r) => setTimeout(r, 100));
  }
  assert.ok(restored, "the edit was undone");
  console.log(`an edited ConfigMap was restored after ${restored - edited} ms`);
  assert.ok(restored - edited < (INTERVAL_S * 1000) / 2, "long before the periodic pass was due");

  const uid = ((await cp.api.must("GET", deployPath)) as { metadata: { uid: string } }).metadata.uid;
  const deleted = Date.now();
  await cp.api.must("DELETE", deployPath);
  let recreated = 0;
  while (!recreated && Date.now() - deleted < INTERVAL_S * 1000) {
    const live = await cp.api.request("GET", deployPath);
    if (live.status === 200 && (live.body as { metadata: { uid: string } }).metadata.uid !== uid) recreated = Date.now();
    else await new Promise((r) => setTimeout(r, 100));
  }
  assert.ok(recreated, "the deleted Deployment was created again");
  console.log(`a deleted Deployment was recreated after ${recreated - deleted} ms`);
  const after = await server.client.getStatus();
  assert.ok(after.completed > passed.completed, "the status shows the passes the drift started");

  const metrics = await (await fetch(`http://${server.adminAddress}/metrics`)).text();
  assert.match(metrics, /syncworker_cache_drift_events_total\{kind="ConfigMap"\} [1-9]/);
  assert.match(metrics, /syncworker_cache_drift_events_total\{kind="Deployment"\} [1-9]/);
  assert.match(metrics, /syncworker_cache_objects [1-9]/);
});
