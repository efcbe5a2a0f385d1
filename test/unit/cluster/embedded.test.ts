import assert from "node:assert/strict";
import { test } from "node:test";
import { refOf } from "../../../src/cluster/errors.js";
import { createEmbeddedCluster, ObjectStore } from "../../../src/cluster/embedded/index.js";
import { type Manifest, gvkOf } from "../../../src/payload/manifest.js";
import { UpdateError } from "../../../src/core/index.js";
import { ManualClock } from "../../harness/manual-clock.js";

const cm = (data: Record<string, string>, labels: Record<string, string> = {}) => ({
  apiVersion: "v1",
  kind: "ConfigMap",
  metadata: { name: "c", namespace: "ns", labels },
  data,
});

test("store: generation follows spec changes; identical applies write nothing", () => {
  const store = new ObjectStore(() => new Date(0));
  const created = store.apply(cm({ a: "1" }));
  assert.equal(created.action, "created");
  assert.equal(created.object.metadata.generation, 1);
  const same = store.apply(cm({ a: "1" }));
  assert.equal(same.action, "unchanged");
  assert.equal(same.object.metadata.resourceVersion, created.object.metadata.resourceVersion);
  const relabeled = store.apply(cm({ a: "1" }, { tier: "x" }));
  assert.equal(relabeled.action, "configured");
  assert.equal(relabeled.object.metadata.generation, 1, "metadata changes do not bump the generation");
  const changed = store.apply(cm({ a: "2" }));
  assert.equal(changed.object.metadata.generation, 2);
  assert.deepEqual(changed.object.metadata.labels, { tier: "x" }, "labels merge key by key");
  store.updateStatus(refOf(changed.object), { ok: true });
  assert.deepEqual(store.apply(cm({ a: "3" })).object["status"], { ok: true }, "apply leaves status alone");
  assert.throws(() => store.get({ group: "", version: "v1", kind: "ConfigMap", namespace: "ns", name: "nope" }), /NotFound/);
});

function manifest(obj: Manifest["obj"], file = "0000_50_x_00.yaml"): Manifest {
  return { originalFilename: file, raw: JSON.stringify(obj), gvk: gvkOf(obj), obj };
}

test("cluster operators report the payload's versions after the operator delay, then pass the health check", async () => {
  const clock = new ManualClock();
  const activity: string[] = [];
  const controller = new AbortController();
  const cluster = createEmbeddedCluster({ operatorDelayMs: 300, clock, onActivity: (m) => activity.push(m) }, controller.signal);
  const co = manifest({
    apiVersion: "config.openshift.io/v1",
    kind: "ClusterOperator",
    metadata: { name: "demo" },
    status: { versions: [{ name: "operator", version: "1.0.0" }], relatedObjects: [{ group: "", resource: "namespaces", name: "demo" }] },
  });
  const signal = controller.signal;
  await cluster.applier.apply(co, "Precreating", signal);
  assert.deepEqual((cluster.store.list()[0]?.["status"] as { relatedObjects: unknown[] }).relatedObjects.length, 1);

  await assert.rejects(
    cluster.applier.apply(co, "Updating", signal),
    (err: unknown) => err instanceof UpdateError && err.reason === "ClusterOperatorNotAvailable",
  );
  await clock.advance(299);
  assert.deepEqual(activity, []);
  await clock.advance(1);
  assert.deepEqual(activity, ["Cluster operator demo changed versions"]);
  await cluster.applier.apply(co, "Updating", signal);
  controller.abort();
});

test("deployments become available after the delay; the delete annotation removes objects only while updating", async () => {
  const clock = new ManualClock();
  const controller = new AbortController();
  const cluster = createEmbeddedCluster({ operatorDelayMs: 100, clock, onActivity: () => undefined }, controller.signal);
  const deployment = manifest({ apiVersion: "apps/v1", kind: "Deployment", metadata: { name: "d", namespace: "ns" }, spec: { replicas: 2 } });
  await cluster.applier.apply(deployment, "Updating", controller.signal);
  await clock.advance(100);
  const stored = cluster.store.get(refOf(deployment.obj));
  assert.equal((stored["status"] as { availableReplicas: number }).availableReplicas, 2);

  await cluster.applier.apply(manifest(cm({})), "Updating", controller.signal);
  const removal = manifest({ ...cm({}), metadata: { name: "c", namespace: "ns", annotations: { "release.openshift.io/delete": "true" } } });
  await cluster.applier.apply(removal, "Reconciling", controller.signal);
  assert.ok(cluster.store.tryGet(refOf(removal.obj)), "no deletion outside Updating");
  await cluster.applier.apply(removal, "Updating", controller.signal);
  assert.equal(cluster.store.tryGet(refOf(removal.obj)), undefined);
  controller.abort();
});
