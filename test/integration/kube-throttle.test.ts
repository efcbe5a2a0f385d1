// A kube-apiserver that throttles hard (priority and fairness off, one mutating request at a time, so
// concurrent writes get 429 with Retry-After): the sync completes without a failure, and the client
// reports the 429s and the ceiling it paced itself at. Then the API server restarts and an object is
// edited right after: the watch cache resumes or re-lists and the edit is still undone.
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PayloadState, type SyncWorkerStatus } from "@syncworker/client";
import { startControlPlane, type ControlPlane } from "../harness/control-plane.js";
import { writePayload, type GeneratedManifest } from "../harness/payload-gen.js";
import { startServer, waitForStatus, type ServerProcess } from "../harness/server.js";
import { tierTests } from "../harness/tiers.js";

const { after, before, test } = tierTests("kube", "tls");

const INCLUDE = { "include.release.openshift.io/self-managed-high-availability": "true" };
const NAMESPACES = 8;
const PER_NAMESPACE = 30;

let cp: ControlPlane;
let server: ServerProcess | undefined;
let work = "";

before(
  async () => {
    cp = await startControlPlane({ apiServerArgs: ["--enable-priority-and-fairness=false", "--max-mutating-requests-inflight=1"] });
    work = await mkdtemp(join(tmpdir(), "syncworker-throttle-"));
  },
  { timeout: 90 * 60_000 },
);

after(async () => {
  await server?.stop();
  await cp?.stop();
  await rm(work, { recursive: true, force: true });
});

/**
 * A Namespace per component at run level 10, then its ConfigMaps at run level 20: applied as an update (run level
 * by run level, the components of one side by side), every ConfigMap finds its Namespace, and the eight components
 * write at once. (An install would apply everything at once, as upstream does, and a ConfigMap may then come
 * before its Namespace: a NotFound that a retry cures, but a failure all the same.)
 */
function manifests(): GeneratedManifest[] {
  const out: GeneratedManifest[] = [];
  for (let n = 0; n < NAMESPACES; n++) {
    const namespace = `throttle-${n}`;
    out.push({ file: `0000_10_throttle-${n}_00_ns.yaml`, obj: { apiVersion: "v1", kind: "Namespace", metadata: { name: namespace, annotations: INCLUDE } } });
    for (let i = 0; i < PER_NAMESPACE; i++) {
      out.push({
        file: `0000_20_throttle-${n}_${String(i).padStart(3, "0")}.yaml`,
        obj: { apiVersion: "v1", kind: "ConfigMap", metadata: { name: `cm-${i}`, namespace, annotations: INCLUDE }, data: { key: `value-${i}` } },
      });
    }
  }
  return out;
}

/** The sum of a metric's samples whose labels include every `labels` pair (all samples without `labels`). */
async function metric(name: string, labels: Readonly<Record<string, string>> = {}): Promise<number> {
  assert.ok(server);
  const text = await (await fetch(`http://${server.adminAddress}/metrics`)).text();
  const wanted = Object.entries(labels).map(([k, v]) => `${k}="${v}"`);
  return text
    .split("\n")
    .filter((l) => (l.startsWith(`${name} `) || l.startsWith(`${name}{`)) && wanted.every((pair) => l.includes(pair)))
    .reduce((sum, l) => sum + Number(l.slice(l.lastIndexOf(" ") + 1)), 0);
}

test("429 answers slow the client down; the sync completes and nothing fails for throttling alone", { timeout: 600_000 }, async () => {
  const payload = join(work, "payload");
  await writePayload(payload, "1.0.0", manifests());
  server = await startServer([
    "--kubeconfig",
    cp.operatorKubeconfig,
    "--namespace",
    "syncworker-throttle",
    "--reconcile-interval",
    "120s",
    "--max-workers",
    "16",
  ]);
  await server.client.update({
    generation: 1,
    desired: { version: "", image: payload, force: false },
    overrides: [],
    capabilities: undefined,
    state: PayloadState.PAYLOAD_STATE_UPDATING,
  });
  const seen: SyncWorkerStatus[] = [];
  await waitForStatus(
    server.client,
    (s) => {
      seen.push(s);
      return s.completed >= 1;
    },
    300_000,
  );
  const failures = seen.filter((s) => s.failure).map((s) => `${s.failure?.reason}: ${s.failure?.message}`);
  assert.deepEqual(failures, [], "no status reported a failure");
  const throttled = await metric("syncworker_kube_client_throttled_total");
  console.log(`429 answers during the sync: ${throttled}; the client's ceiling after the last: ${await metric("syncworker_kube_client_rate_ceiling")} req/s`);
  assert.ok(throttled > 0, "the server did throttle the client");
  assert.equal(await metric("syncworker_kube_request_duration_seconds_count", { code: "429" }), throttled, "every 429 is timed among the answers");
  const patches = await metric("syncworker_kube_request_duration_seconds_count", { verb: "PATCH" });
  assert.ok(patches >= NAMESPACES * PER_NAMESPACE, `every apply is timed: ${patches} PATCH answers`);
});

test("after an API server restart the cache follows again: an edit right after it is undone", { timeout: 300_000 }, async () => {
  assert.ok(server);
  await cp.stopApiServer();
  await cp.startApiServer();
  const path = "/api/v1/namespaces/throttle-0/configmaps/cm-1";
  await cp.api.must("PATCH", `${path}?fieldManager=kubectl-edit`, { data: { key: "tampered" } }, "application/merge-patch+json");
  const edited = Date.now();
  let restored = 0;
  while (!restored && Date.now() - edited < 60_000) {
    const live = (await cp.api.must("GET", path)) as { data?: Record<string, string> };
    if (live.data?.["key"] === "value-1") restored = Date.now();
    else await new Promise((r) => setTimeout(r, 100));
  }
  assert.ok(restored, "the edit made right after the restart was undone, long before the 120 s reconcile interval");
  console.log(`an edit after an API server restart was undone after ${restored - edited} ms`);
});
