// The plan of an update over the embedded cluster's store (the real dry-run seam, no cluster process): actions,
// diffs, skips, the digest's stability and sensitivity, and the blast-radius arithmetic.
import assert from "node:assert/strict";
import { test } from "node:test";
import { EmbeddedObjectClient } from "../../../src/cluster/embedded/object-client.js";
import { ObjectStore } from "../../../src/cluster/embedded/index.js";
import { ClusterPlanner } from "../../../src/cluster/planner.js";
import { NO_RISKS, type RiskAcceptance } from "../../../src/core/index.js";
import { NO_CAPABILITIES, setCapabilities, type ComponentOverride } from "../../../src/policy/index.js";
import { computePlan, effectiveLimits, limitViolations, planDigest, type PlannedObject } from "../../../src/worker/index.js";
import { checkPlan, PreviewedImages } from "../../../src/worker/planning/acceptance.js";
import { configMap, manifest, payload } from "../../harness/worker-harness.js";

const cm = (name: string, data: Record<string, string>, annotations: Record<string, string> = {}) =>
  manifest(`0000_50_test_${name}.yaml`, { apiVersion: "v1", kind: "ConfigMap", metadata: { name, namespace: "test", annotations }, data });

function cluster(): { store: ObjectStore; planner: ClusterPlanner } {
  const store = new ObjectStore(() => new Date(0));
  // No round trip through the event loop: the store answers at once.
  return { store, planner: new ClusterPlanner(new EmbeddedObjectClient(store, () => Promise.resolve())) };
}

async function plan(planner: ClusterPlanner, manifests: Parameters<typeof payload>[2], overrides: ComponentOverride[] = [], image = "/p") {
  const objects: PlannedObject[] = [];
  const result = await computePlan(
    payload("2.0.0", image, manifests),
    { overrides, capabilities: setCapabilities({ baselineCapabilitySet: "", additionalEnabledCapabilities: [] }, new Set()) },
    planner,
    (o) => objects.push(o),
    AbortSignal.timeout(5_000),
  );
  return { ...result, objects };
}

test("each object's action: create, change with a diff of the changed field, unchanged, delete, skipped by an override", async () => {
  const { store, planner } = cluster();
  for (const m of [cm("same", { a: "1" }), cm("edited", { a: "1", b: "2" }), cm("doomed", { x: "1" })]) store.apply(m.obj);
  const before = store.list().map((o) => `${o.metadata.name}@${o.metadata.resourceVersion}`);
  const result = await plan(
    planner,
    [
      cm("same", { a: "1" }),
      cm("edited", { a: "1", b: "3" }),
      cm("new", { n: "1" }),
      cm("doomed", { x: "1" }, { "release.openshift.io/delete": "true" }),
      cm("gone", {}, { "release.openshift.io/delete": "true" }),
      cm("mine", { m: "1" }),
    ],
    [{ kind: "ConfigMap", group: "", namespace: "test", name: "mine", unmanaged: true }],
  );
  assert.deepEqual(
    result.objects.map((o) => `${o.name}:${o.action}`),
    ["same:unchanged", "edited:change", "new:create", "doomed:delete", "gone:unchanged", "mine:skipped"],
  );
  const edited = result.objects.find((o) => o.name === "edited");
  assert.match(edited?.diff ?? "", /^--- live\/core\.v1\.ConfigMap\.test\.edited\n\+\+\+ merged\/core\.v1\.ConfigMap\.test\.edited\n/);
  assert.match(edited?.diff ?? "", /\n-  b: "2"\n\+  b: "3"\n/);
  assert.doesNotMatch(edited?.diff ?? "", /resourceVersion|generation|creationTimestamp|uid/, "server bookkeeping is no change");
  assert.equal(result.objects.find((o) => o.name === "mine")?.skippedReason, "unmanaged by a component override");
  assert.deepEqual(result.counts, { create: 1, change: 1, unchanged: 2, delete: 1, skipped: 1 });
  assert.deepEqual(
    store.list().map((o) => `${o.metadata.name}@${o.metadata.resourceVersion}`),
    before,
    "a plan writes nothing",
  );
});

test("the digest is stable while nothing changes and moves when the payload, its image or a live object does", async () => {
  const { store, planner } = cluster();
  store.apply(cm("a", { v: "1" }).obj);
  const manifests = [cm("a", { v: "2" }), cm("b", { v: "1" })];
  const first = await plan(planner, manifests);
  const again = await plan(planner, [...manifests].reverse());
  assert.equal(again.digest, first.digest, "same changes, same digest, whatever the order");
  assert.match(first.digest, /^sha256:[0-9a-f]{64}$/);
  assert.notEqual((await plan(planner, [cm("a", { v: "3" }), cm("b", { v: "1" })])).digest, first.digest, "another payload");
  assert.notEqual((await plan(planner, manifests, [], "/q")).digest, first.digest, "another release image making the same changes");
  store.apply(cm("a", { v: "9" }).obj);
  assert.notEqual((await plan(planner, manifests)).digest, first.digest, "a live object changed since");
  store.apply(cm("a", { v: "2" }).obj);
  store.apply(cm("b", { v: "1" }).obj);
  const applied = await plan(planner, manifests);
  assert.equal(applied.digest, planDigest("/p", []), "nothing left to change: the empty plan's digest");
  assert.deepEqual(applied.counts, { create: 0, change: 0, unchanged: 2, delete: 0, skipped: 0 });
});

test("capabilities that are not enabled skip their manifests, naming the capability", async () => {
  const { planner } = cluster();
  const console = configMap("console-config", "0000_50_console_00.yaml", { "capability.openshift.io/name": "Console" });
  const objects: PlannedObject[] = [];
  await computePlan(
    payload("2.0.0", "/p", [console]),
    { overrides: [], capabilities: NO_CAPABILITIES },
    planner,
    (o) => objects.push(o),
    AbortSignal.timeout(5_000),
  );
  assert.equal(objects[0]?.action, "skipped");
  assert.match(objects[0]?.skippedReason ?? "", /Console/);
});

test("blast-radius arithmetic: deletions and the changed share against their limits", () => {
  const counts = { create: 2, change: 3, unchanged: 14, delete: 1, skipped: 5 };
  const plan = { counts, manifests: 20 };
  assert.deepEqual(limitViolations(plan, {}), [], "no limits, no violation");
  assert.deepEqual(limitViolations(plan, { maxDeletions: 1, maxChangedPercent: 30 }), [], "at the limits is within them");
  assert.deepEqual(limitViolations(plan, { maxDeletions: 0, maxChangedPercent: 29.9 }), [
    "the update would delete 1 object, more than the limit of 0 (max_deletions)",
    "the update would change 6 of 20 objects (30%), more than the limit of 29.9% (max_changed_percent)",
  ]);
  assert.deepEqual(
    limitViolations({ counts: { ...counts, delete: 0, create: 0, change: 0 }, manifests: 0 }, { maxChangedPercent: 0 }),
    [],
    "an empty payload changes nothing",
  );
  assert.deepEqual(
    effectiveLimits({ maxDeletions: 3 }, { maxDeletions: 10, maxChangedPercent: 50 }),
    { maxDeletions: 3, maxChangedPercent: 50 },
    "the request's fields over the defaults",
  );
  assert.deepEqual(effectiveLimits(undefined, undefined), {});
});

test("a plan digest previewed with another image is refused naming both images; an unknown one names this update's", async () => {
  const { planner } = cluster();
  const manifests = [cm("a", { v: "1" })];
  const scope = { overrides: [], capabilities: setCapabilities({ baselineCapabilitySet: "", additionalEnabledCapabilities: [] }, new Set()) };
  const previewedImage = `registry.example/release@sha256:${"1".repeat(64)}`;
  const movedImage = `registry.example/release@sha256:${"2".repeat(64)}`;
  const previewed = new PreviewedImages();
  const expected = (await plan(planner, manifests, [], previewedImage)).digest;
  previewed.record(expected, previewedImage);
  const check = (image: string, expectedPlanDigest: string) =>
    checkPlan(
      { planner },
      payload("2.0.0", image, manifests),
      scope,
      { desired: { version: "", image, force: false }, expectedPlanDigest },
      NO_RISKS,
      previewed,
      AbortSignal.timeout(5_000),
    );

  assert.deepEqual(await check(previewedImage, expected), {}, "the previewed image with its plan applies");
  const moved = (await check(movedImage, expected)).failure;
  assert.equal(moved?.reason, "PlanDigestMismatch");
  assert.match(
    moved?.message ?? "",
    new RegExp(
      `plan digest ${expected} was previewed with ${previewedImage}, this update's image is ${movedImage} \\(plan digest sha256:[0-9a-f]{64}\\); a tag that moved`,
    ),
  );
  const unknown = `sha256:${"0".repeat(64)}`;
  const stale = (await check(movedImage, unknown)).failure;
  assert.match(
    stale?.message ?? "",
    new RegExp(
      `expected plan digest ${unknown}, computed sha256:[0-9a-f]{64} for release image ${movedImage} \\(the payload, the request or the live objects changed; preview again\\)`,
    ),
  );
});

test("the PlanDigest and BlastRadius risks, named or forced, turn a refusal into a recorded risk; each names only itself", async () => {
  const { store, planner } = cluster();
  store.apply(cm("doomed", { x: "1" }).obj);
  const scope = { overrides: [], capabilities: setCapabilities({ baselineCapabilitySet: "", additionalEnabledCapabilities: [] }, new Set()) };
  const image = "/release-2";
  const stale = `sha256:${"0".repeat(64)}`;
  const check = (acceptance: RiskAcceptance) =>
    checkPlan(
      { planner },
      payload("2.0.0", image, [cm("a", { v: "1" }), cm("doomed", { x: "1" }, { "release.openshift.io/delete": "true" })]),
      scope,
      { desired: { version: "", image, force: acceptance.force }, expectedPlanDigest: stale, limits: { maxDeletions: 0 } },
      acceptance,
      new PreviewedImages(),
      AbortSignal.timeout(5_000),
    );

  const refused = (await check(NO_RISKS)).failure;
  assert.equal(refused?.reason, "PlanDigestMismatch");
  assert.match(refused?.message ?? "", /; to apply it anyway, accept the risk PlanDigest \(accept_risks; --accept-risk in the CLI\)/);
  const overLimit = (await check({ force: false, named: ["PlanDigest"] })).failure;
  assert.equal(overLimit?.reason, "BlastRadiusExceeded", "the digest accepted, the limit still holds");
  assert.match(overLimit?.message ?? "", /the update would delete 1 objects?.*; to apply it anyway, accept the risk BlastRadius /);
  const named = await check({ force: false, named: ["BlastRadius", "PlanDigest"] });
  assert.equal(named.failure, undefined);
  assert.match(named.risk ?? "", /^accepted risk PlanDigest: the plan changed since it was previewed: .*\naccepted risk BlastRadius: the update would delete/);
  const forced = await check({ force: true, named: [] });
  assert.match(forced.risk ?? "", /^forced past a changed plan: .*\nforced past blast-radius limits: /);
});

test("the previewed images kept are the most recent ones, a preview again counting as recent", () => {
  const previewed = new PreviewedImages();
  for (let i = 0; i < 40; i++) {
    previewed.record(`plan-${i}`, `image-${i}`);
    if (i === 20) previewed.record("plan-0", "image-0");
  }
  assert.equal(previewed.imageOf("plan-0"), "image-0", "previewed again at 20: among the 32 most recent");
  assert.equal(previewed.imageOf("plan-1"), undefined, "the oldest are forgotten");
  assert.equal(previewed.imageOf("plan-8"), undefined);
  assert.equal(previewed.imageOf("plan-9"), "image-9");
  assert.equal(previewed.imageOf("plan-39"), "image-39");
});

test("a dry-run create draws a new uid, which the server copies into a Job's selector and pod labels: the plan's digest stays the same", async () => {
  let drawn = 0;
  const refuse = (): never => {
    throw new Error("a plan writes nothing");
  };
  // What kube-apiserver's dry-run create of a Job returns: a fresh uid, and the Job controller's labels carrying it.
  const planner = new ClusterPlanner({
    get: async () => undefined,
    dryRunApply: async (obj) => {
      const uid = `0000-${++drawn}`;
      const spec = (obj["spec"] ?? {}) as Record<string, unknown>;
      return {
        ...obj,
        metadata: { ...obj.metadata, uid },
        spec: {
          ...spec,
          selector: { matchLabels: { "batch.kubernetes.io/controller-uid": uid } },
          template: { metadata: { labels: { "controller-uid": uid } } },
        },
      };
    },
    apply: refuse,
    create: refuse,
    delete: refuse,
    patchStatus: refuse,
  });
  const job = manifest("0000_60_test_job.yaml", { apiVersion: "batch/v1", kind: "Job", metadata: { name: "migrate", namespace: "test" }, spec: {} });
  const first = await plan(planner, [job]);
  const second = await plan(planner, [job]);
  assert.equal(drawn, 2);
  assert.equal(first.counts.create, 1);
  assert.equal(second.digest, first.digest);
});
