import assert from "node:assert/strict";
import { test } from "node:test";
import type { Manifest, PayloadUpdate } from "../../../src/payload/manifest.js";
import { PayloadError } from "../../../src/payload/index.js";
import type { PayloadRetriever } from "../../../src/payload/retrieval-port.js";
import { enabledFeatureGates } from "../../../src/policy/index.js";
import { SyncWorker, type PayloadState, type ResourceApplier, type SyncWorkerStatus, type UpdateRequest } from "../../../src/worker/index.js";
import { NO_LOG } from "../../../src/core/index.js";
import { ManualClock, settle } from "../../harness/manual-clock.js";
import { TUNING } from "../../../src/config/index.js";

function configMap(name: string, file: string): Manifest {
  const obj = {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name, namespace: "ns", annotations: { "include.release.openshift.io/self-managed-high-availability": "true" } },
  };
  return { originalFilename: file, raw: JSON.stringify(obj), gvk: { group: "", version: "v1", kind: "ConfigMap" }, obj };
}

function payload(image: string, version = "1.0.0-abc"): PayloadUpdate {
  return {
    release: { version, image, url: "", channels: [] },
    architecture: "amd64",
    manifestHash: "DL-FFQ2Uem8=",
    manifests: [configMap("a", "file-json"), configMap("b", "file-yaml"), configMap("c", "file-yml")],
    verifiedImage: false,
  };
}

class RecordingApplier implements ResourceApplier {
  applied: Array<[string, PayloadState]> = [];
  /** The payload each apply went through forPayload for. */
  appliedFor: string[] = [];
  failOn = new Map<string, Error>();
  /** forPayload refuses these images, as an applier refuses a payload's rules that do not compile. */
  refuse = new Map<string, Error>();
  async apply(manifest: Manifest, mode: PayloadState): Promise<void> {
    const name = manifest.obj.metadata?.name ?? "";
    this.applied.push([name, mode]);
    const failure = this.failOn.get(name);
    if (failure) throw failure;
  }
  forPayload(payload: PayloadUpdate): ResourceApplier {
    const refused = this.refuse.get(payload.release.image);
    if (refused) throw refused;
    return {
      apply: (manifest, mode) => {
        this.appliedFor.push(payload.release.image);
        return this.apply(manifest, mode);
      },
    };
  }
}

function setup(steps = 1, featureGates?: ReadonlySet<string>) {
  const clock = new ManualClock();
  const applier = new RecordingApplier();
  const statuses: SyncWorkerStatus[] = [];
  let retrievals = 0;
  const retriever: PayloadRetriever = {
    retrieve: async (desired, _signal, progress) => {
      retrievals++;
      if (desired.image === "missing") throw new Error("no such payload: missing");
      // "image/pulled:1" is downloaded in two halves.
      if (desired.image === "image/pulled:1") for (const done of [5, 10]) progress?.(`downloaded ${done} of 10 bytes`);
      return { directory: `/payloads/${desired.image}`, local: false, verified: false };
    },
  };
  const worker = new SyncWorker({
    retriever,
    // "stuck" never loads: it waits until its load is cancelled.
    loadPayload: (_dir, image, signal) =>
      image === "stuck"
        ? new Promise((_resolve, reject) => {
            if (signal.aborted) reject(signal.reason as Error);
            signal.addEventListener("abort", () => reject(signal.reason as Error), { once: true });
          })
        : Promise.resolve(payload(image, image === "image/image:2" ? "1.0.1-abc" : "1.0.0-abc")),
    applier,
    clock,
    random: () => 0,
    log: NO_LOG,
    minimumReconcileIntervalMs: 500,
    backoff: { durationMs: 100, factor: 2, jitter: 0, steps, capMs: 0 },
    installBackoff: TUNING.installBackoff,
    reports: { status: (s) => statuses.push(s), attemptsRestarted: () => undefined },
    ...(featureGates ? { featureGates } : {}),
  });
  return { clock, applier, statuses, worker, retrievals: () => retrievals };
}

const input = (image: string, state: PayloadState = "Initializing", generation = 1): UpdateRequest & { state: PayloadState } => ({
  generation,
  desired: { version: "", image, force: false },
  overrides: [],
  capabilities: { baselineCapabilitySet: "", additionalEnabledCapabilities: [] },
  state,
});

for (const tc of [
  { featureSet: "Default", want: { known: false, enabled: false } },
  { featureSet: "TechPreviewNoUpgrade", want: { known: true, enabled: true } },
]) {
  test(`feature-gated capabilities exist only when the feature set turns a gate on: ClusterAPI on ${tc.featureSet}`, async () => {
    const { worker } = setup(1, enabledFeatureGates(tc.featureSet));
    const { status } = await worker.update(input("image/image:1"), new AbortController().signal);
    const { known, enabled } = status.capabilitiesStatus;
    assert.deepEqual({ known: known.includes("ClusterAPI"), enabled: enabled.includes("ClusterAPI") }, tc.want);
    assert.ok(enabled.includes("Console"), "ungated capabilities are there either way");
  });
}

test("fresh install: load, then progress 0..2, then completion in Reconciling", async () => {
  const { clock, applier, statuses, worker } = setup();
  const controller = new AbortController();
  const { status, accepted } = await worker.update(input("image/image:1"), controller.signal);
  assert.equal(accepted, true);
  assert.equal(status.loadPayloadStatus.step, "PayloadLoaded");
  assert.equal(status.loadPayloadStatus.message, 'Payload loaded version="1.0.0-abc" image="image/image:1" architecture="amd64"');
  assert.equal(status.actual.image, "image/image:1");
  assert.deepEqual(
    statuses.map((s) => s.loadPayloadStatus.step),
    ["RetrievePayload", "PayloadLoaded", "PayloadLoaded"],
  );
  // The last write is update()'s own: capabilities and architecture of the accepted payload.
  assert.equal(statuses[2]?.architecture, "amd64");
  assert.ok(statuses[2]?.capabilitiesStatus.enabled.includes("Console"));

  const loop = worker.start(1, controller.signal);
  await clock.advance(0);
  const applied = statuses.slice(3);
  // Installing runs every component in parallel: one progress report per task, then completion.
  assert.equal(applied.length, 4);
  assert.ok(applied.slice(0, 3).every((s) => s.initial && s.total === 3 && s.completed === 0 && !s.reconciling));
  assert.deepEqual([applied[3]?.initial, applied[3]?.done, applied[3]?.completed, applied[3]?.reconciling], [false, 3, 1, true]);
  assert.deepEqual(applier.applied.map(([name]) => name).sort(), ["a", "b", "c"]);
  assert.ok(applied.at(-1)?.lastProgress, "completion counts as progress");
  assert.equal(applied.at(-1)?.versionHash, "DL-FFQ2Uem8=");

  // After the minimum reconcile interval the payload is re-applied in Reconciling state, without a new retrieval.
  applier.applied = [];
  await clock.advance(500);
  assert.deepEqual(new Set(applier.applied.map(([, mode]) => mode)), new Set(["Reconciling"]));
  assert.equal(statuses.at(-1)?.completed, 2);
  controller.abort();
  await loop;
});

test("a plain error while reconciling becomes UpdatePayloadFailed naming the task", async () => {
  const { clock, applier, statuses, worker } = setup();
  const controller = new AbortController();
  await worker.update(input("image/image:1", "Reconciling"), controller.signal);
  applier.failOn.set("c", new Error("injected"));
  const loop = worker.start(1, controller.signal);
  await clock.advance(0);
  const last = statuses.at(-1)!;
  assert.equal(last.done, 2);
  assert.equal(last.reconciling, true);
  assert.equal((last.failure as { reason?: string } | undefined)?.reason, "UpdatePayloadFailed");
  assert.equal(last.failure?.message, 'Could not update configmap "ns/c" (3 of 3)');
  controller.abort();
  await loop;
});

test("a failed load keeps the accepted payload and names the step", async () => {
  const { clock, worker } = setup();
  const controller = new AbortController();
  await worker.update(input("image/image:1"), controller.signal);
  const loop = worker.start(1, controller.signal);
  await clock.advance(0);
  const { status, accepted } = await worker.update(input("missing", "Updating", 2), controller.signal);
  assert.equal(accepted, false, "the release did not load: not taken");
  assert.equal(status.loadPayloadStatus.step, "RetrievePayload");
  assert.equal(status.loadPayloadStatus.message, 'Retrieving payload failed version="" image="missing" failure=no such payload: missing');
  assert.equal(status.actual.image, "image/image:1");
  assert.equal(status.completed, 1);
  controller.abort();
  await loop;
});

test("the applier takes each loaded payload: one it refuses is not taken (LoadPayload), the others apply through it", async () => {
  const { applier, clock, worker } = setup();
  const controller = new AbortController();
  applier.refuse.set("image/image:2", new PayloadError({ kind: "HealthRules", message: "release-manifests/health-rules: rules[0].current: bad" }));
  const { status, accepted } = await worker.update(input("image/image:2"), controller.signal);
  assert.equal(accepted, false);
  assert.equal(status.loadPayloadStatus.step, "LoadPayload");
  assert.equal((status.loadPayloadStatus.failure as PayloadError | undefined)?.reason, "HealthRulesInvalid");
  assert.match(status.loadPayloadStatus.message, /failure=release-manifests\/health-rules: rules\[0\]\.current: bad$/);
  assert.deepEqual(applier.applied, [], "nothing of it was applied");

  const taken = await worker.update(input("image/image:1", "Initializing", 2), controller.signal);
  assert.equal(taken.accepted, true);
  const loop = worker.start(1, controller.signal);
  await clock.advance(0);
  assert.equal(applier.applied.length, 3);
  assert.deepEqual(new Set(applier.appliedFor), new Set(["image/image:1"]));
  controller.abort();
  await loop;
});

test("a download's progress shows in the load-payload status while the payload is retrieved", async () => {
  const { statuses, worker } = setup();
  await worker.update(input("image/pulled:1"), new AbortController().signal);
  const retrieving = 'Retrieving and verifying payload version="" image="image/pulled:1"';
  assert.deepEqual(
    statuses.filter((s) => s.loadPayloadStatus.step === "RetrievePayload").map((s) => s.loadPayloadStatus.message),
    [retrieving, `${retrieving}: downloaded 5 of 10 bytes`, `${retrieving}: downloaded 10 of 10 bytes`],
  );
  assert.equal(statuses.at(-1)?.loadPayloadStatus.step, "PayloadLoaded");
});

test("a newer update stops the payload load of the one before it, which reports it", async () => {
  const { worker } = setup();
  const signal = new AbortController().signal;
  const stuck = worker.update(input("stuck"), signal);
  await settle();
  const next = worker.update(input("image/image:1", "Initializing", 2), signal);
  const { status: superseded, accepted } = await stuck;
  assert.equal(accepted, false);
  assert.equal(superseded.loadPayloadStatus.step, "LoadPayload");
  assert.equal(superseded.loadPayloadStatus.failure?.message, "superseded by a newer Update");
  const { status } = await next;
  assert.equal(status.loadPayloadStatus.step, "PayloadLoaded");
  assert.equal(status.actual.image, "image/image:1");
});

test("a version mismatch fails VerifyPayloadVersion", async () => {
  const { worker } = setup();
  const { status, accepted } = await worker.update(
    { ...input("image/image:2"), desired: { version: "1.0.0-abc", image: "image/image:2", force: false } },
    new AbortController().signal,
  );
  assert.equal(accepted, false);
  assert.equal(status.loadPayloadStatus.step, "VerifyPayloadVersion");
  assert.equal(status.loadPayloadStatus.failure?.message, "release image version 1.0.1-abc does not match the expected upstream version 1.0.0-abc");
});

test("an unchanged update hits the payload cache", async () => {
  const { worker, retrievals } = setup();
  const signal = new AbortController().signal;
  await worker.update(input("image/image:1"), signal);
  const again = await worker.update(input("image/image:1", "Initializing", 2), signal);
  assert.equal(again.accepted, true, "the release the worker already took");
  assert.equal(retrievals(), 1);
  assert.equal(worker.status().generation, 1, "apply-owned generation changes with the next report");
});

test("notifications coalesce: one pending at most", async () => {
  const { worker } = setup();
  assert.equal(worker.notify("first"), true);
  assert.equal(worker.notify("second"), false);
});

test("an update to a new payload cancels the running pass and the loop moves to Updating", async () => {
  const { clock, applier, statuses, worker } = setup();
  const controller = new AbortController();
  await worker.update(input("image/image:1", "Updating"), controller.signal);
  const loop = worker.start(1, controller.signal);
  await clock.advance(0);
  await worker.update(input("image/image:2", "Updating", 2), controller.signal);
  await settle();
  await clock.advance(0);
  const last = statuses.at(-1)!;
  assert.equal(last.actual.version, "1.0.1-abc");
  assert.equal(last.completed, 2, "as upstream, a change of target does not reset the completed count");
  assert.equal(last.generation, 2);
  assert.ok(applier.applied.slice(-3).every(([, mode]) => mode === "Updating"));
  controller.abort();
  await loop;
});
