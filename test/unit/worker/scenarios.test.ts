// The behavioral scenarios of the spec (§9), driven on fake time with a scripted applier.
import assert from "node:assert/strict";
import { test } from "node:test";
import { UpdateError } from "../../../src/core/index.js";
import { PreconditionError, type Precondition } from "../../../src/policy/index.js";
import { chooseState } from "../../../src/service/index.js";
import { clusterOperator, configMap, job, payload, workerHarness } from "../../harness/worker-harness.js";

const V0 = "1.0.0-abc";
const V1 = "1.0.1-abc";
const IMG0 = "image/image:0";
const IMG1 = "image/image:1";
const basic = (version = V0, image = IMG0) => payload(version, image, [configMap("file-json"), configMap("file-yaml"), configMap("file-yml")]);
const cond = (h: ReturnType<typeof workerHarness>, type: string) => {
  const c = h.condition(type);
  return c ? `${c.status}(${c.reason}) ${c.message}` : "absent";
};

test("scenario 2/3: fresh install reports load, progress and completion; the history becomes Completed", async () => {
  const h = workerHarness({ payloads: [basic(V0, IMG1)] });
  await h.update(IMG1, { version: V0 });
  assert.deepEqual(
    h.statuses.slice(0, 2).map((s) => s.loadPayloadStatus.step),
    ["RetrievePayload", "PayloadLoaded"],
  );
  assert.equal(h.statuses[0]?.actual.image, IMG1, "actual is the requested release from the first update on");
  assert.equal(cond(h, "ReleaseAccepted"), `True(PayloadLoaded) Payload loaded version="${V0}" image="${IMG1}" architecture="amd64"`);
  assert.equal(cond(h, "Progressing"), `True() Working towards ${V0}`);
  assert.equal(cond(h, "Available"), "False() ");
  assert.deepEqual(
    h.history().map((e) => [e.state, e.version, e.image]),
    [["Partial", V0, IMG1]],
  );

  await h.start();
  const applied = h.statuses.filter((s) => s.total > 0);
  assert.ok(applied.every((s) => s.total === 3));
  assert.deepEqual([h.last().completed, h.last().reconciling, h.last().done, h.last().initial], [1, true, 3, false]);
  assert.deepEqual(
    h.history().map((e) => e.state),
    ["Completed"],
  );
  assert.ok(h.history()[0]?.completionTime);
  assert.equal(cond(h, "Available"), `True() Done applying ${V0}`);
  assert.equal(cond(h, "Progressing"), `False() Cluster version is ${V0}`);
  assert.equal(cond(h, "Failing"), "False() ");
  assert.equal(h.last().versionHash, "DL-FFQ2Uem8=");
  await h.stop();
});

test("scenario 4: a periodic reconcile re-applies in Reconciling state without retrieving again", async () => {
  const h = workerHarness({ payloads: [basic()] });
  await h.update(IMG0);
  await h.start();
  h.applier.calls.length = 0;
  await h.clock.advance(500);
  assert.deepEqual(new Set(h.applier.calls.map((c) => c.mode)), new Set(["Reconciling"]));
  assert.equal(h.last().completed, 2);
  assert.ok(
    h.statuses.filter((s) => s.total > 0 && s.completed === 1).every((s) => s.reconciling),
    "reconciling passes report reconciling=true",
  );
  assert.deepEqual(h.retrievals, [IMG0]);
  await h.stop();
});

test("scenario 7: an upgrade blocked by verification reports the retrieval failure, not a failing cluster", async () => {
  const h = workerHarness({
    payloads: [basic(), basic(V1, IMG1)],
    retrieve: (image) =>
      image === IMG1 ? new UpdateError({ reason: "ImageVerificationFailed", message: "The update cannot be verified: some random error" }) : undefined,
  });
  await h.update(IMG0);
  await h.start();
  const status = await h.update(IMG1, { version: V1, generation: 2 });
  assert.equal(status.loadPayloadStatus.step, "RetrievePayload");
  assert.equal(
    status.loadPayloadStatus.message,
    `Retrieving payload failed version="${V1}" image="${IMG1}" failure=The update cannot be verified: some random error`,
  );
  assert.equal(cond(h, "ReleaseAccepted").split(" ")[0], "False(RetrievePayload)");
  assert.equal(cond(h, "Failing"), "False() ");
  assert.equal(status.actual.image, IMG0, "the accepted release stays in effect");
  await h.stop();
});

test("scenario 10: a blocking precondition fails PreconditionChecks; forcing turns it into a warning", async () => {
  let attempts = 0;
  const precondition: Precondition = {
    name: "TestPrecondition",
    run: async () => {
      attempts++;
      return new PreconditionError("CheckFailure", `failing, attempt: ${attempts} will succeed after 3 attempt`, "TestPrecondition SuccessAfter: 3");
    },
  };
  const h = workerHarness({ payloads: [basic(), basic(V1, IMG1)], preconditions: [precondition] });
  const blocked = await h.update(IMG1, { version: V1 });
  assert.equal(blocked.loadPayloadStatus.step, "PreconditionChecks");
  assert.equal((blocked.loadPayloadStatus.failure as UpdateError).reason, "UpgradePreconditionCheckFailed");
  assert.equal(
    blocked.loadPayloadStatus.message,
    `Preconditions failed for payload loaded version="${V1}" image="${IMG1}": Precondition "TestPrecondition SuccessAfter: 3" failed because of "CheckFailure": failing, attempt: 1 will succeed after 3 attempt`,
  );
  assert.deepEqual(blocked.loadPayloadStatus.preconditionResults, [
    { name: "TestPrecondition SuccessAfter: 3", reason: "CheckFailure", message: "failing, attempt: 1 will succeed after 3 attempt", blocking: true },
  ]);
  const forced = await h.update(IMG1, { version: V1, force: true, generation: 2 });
  assert.equal(forced.loadPayloadStatus.step, "PayloadLoaded");
  assert.equal(forced.loadPayloadStatus.update.force, true);
  assert.equal(forced.loadPayloadStatus.preconditionResults?.[0]?.blocking, true, "forced through, still a blocking result");
  const risk =
    'Forced through blocking failures: Precondition "TestPrecondition SuccessAfter: 3" failed because of "CheckFailure": failing, attempt: 2 will succeed after 3 attempt';
  assert.equal(forced.loadPayloadStatus.acceptedRisks, risk);
  await h.start();
  assert.equal(h.last().completed, 1);
  assert.deepEqual(
    h.history().map((e) => [e.version, e.state, e.acceptedRisks]),
    [[V1, "Completed", risk]],
    "the history records what the update was accepted despite",
  );
  await h.stop();
});

test("a non-blocking precondition warning is an accepted risk of a load that proceeds", async () => {
  const warning: Precondition = {
    name: "ClusterVersionRollback",
    run: async () => new PreconditionError("InvalidCurrentVersion", "the current version cannot be parsed", "ClusterVersionRollback", undefined, true),
  };
  const h = workerHarness({ payloads: [basic(), basic(V1, IMG1)], preconditions: [warning] });
  await h.update(IMG0);
  await h.start();
  const status = await h.update(IMG1, { version: V1, generation: 2 });
  assert.equal(status.loadPayloadStatus.step, "PayloadLoaded");
  assert.deepEqual(status.loadPayloadStatus.preconditionResults, [
    { name: "ClusterVersionRollback", reason: "InvalidCurrentVersion", message: "the current version cannot be parsed", blocking: false },
  ]);
  assert.equal(
    status.loadPayloadStatus.acceptedRisks,
    'Precondition "ClusterVersionRollback" failed because of "InvalidCurrentVersion": the current version cannot be parsed',
  );
  await h.stop();
});

test("scenario 12: a capability change survives a failed load", async () => {
  const h = workerHarness({ payloads: [basic(V1, IMG1), basic(V1, IMG0)] });
  await h.update(IMG1, { capabilities: { baselineCapabilitySet: "None", additionalEnabledCapabilities: ["baremetal"] } });
  await h.start();
  const status = await h.update(IMG0, {
    version: V0,
    generation: 2,
    capabilities: { baselineCapabilitySet: "None", additionalEnabledCapabilities: ["baremetal", "marketplace"] },
  });
  assert.equal(status.loadPayloadStatus.step, "VerifyPayloadVersion");
  assert.equal(status.loadPayloadStatus.failure?.message, `release image version ${V1} does not match the expected upstream version ${V0}`);
  assert.deepEqual(status.capabilitiesStatus.enabled, ["baremetal", "marketplace"]);
  assert.equal(cond(h, "Available"), `True() Done applying ${V1}`);
  await h.stop();
});

test("scenario 13: capabilities cannot be disabled once enabled", async () => {
  const h = workerHarness({ payloads: [basic(), basic(V1, IMG1)] });
  await h.update(IMG0, { capabilities: { baselineCapabilitySet: "v4.11", additionalEnabledCapabilities: [] } });
  const status = await h.update(IMG1, {
    version: V1,
    generation: 2,
    capabilities: { baselineCapabilitySet: "None", additionalEnabledCapabilities: ["baremetal"] },
  });
  // v4.11 holds MachineAPI too (openshift/api), so it is among the capabilities that stay on.
  assert.deepEqual(status.capabilitiesStatus.enabled, ["MachineAPI", "baremetal", "marketplace", "openshift-samples"]);
  assert.deepEqual([...status.capabilitiesStatus.implicitlyEnabled].sort(), ["MachineAPI", "marketplace", "openshift-samples"]);
  assert.equal(
    cond(h, "ImplicitlyEnabledCapabilities"),
    "True(CapabilitiesImplicitlyEnabled) The following capabilities could not be disabled: MachineAPI, marketplace, openshift-samples",
  );
});

test("scenario 15: an error while reconciling fails with UpdatePayloadFailed and keeps Available", async () => {
  const h = workerHarness({ payloads: [basic()] });
  await h.update(IMG0);
  await h.start();
  h.applier.scripts.set("file-yml", () => {
    throw new Error("injected");
  });
  await h.clock.advance(500);
  const failure = h.last().failure as UpdateError;
  assert.equal(failure.reason, "UpdatePayloadFailed");
  assert.equal(failure.message, 'Could not update configmap "test/file-yml" (3 of 3)');
  assert.equal(cond(h, "Failing"), `True(UpdatePayloadFailed) Could not update configmap "test/file-yml" (3 of 3)`);
  assert.equal(cond(h, "Progressing"), `False(UpdatePayloadFailed) Error while reconciling ${V0}: the update could not be applied`);
  assert.equal(cond(h, "Available"), `True() Done applying ${V0}`);
  await h.stop();
});

test("scenario 16: parallel errors at install become MultipleErrors", async () => {
  const p = payload(V0, IMG0, [configMap("10-a", "0000_10_a_file"), configMap("20-a", "0000_20_a_file"), configMap("20-b", "0000_20_b_file")]);
  const h = workerHarness({ payloads: [p] });
  for (const name of ["10-a", "20-b"]) {
    h.applier.scripts.set(name, () => {
      throw new UpdateError({ effect: "None", reason: "", message: `Failed to reconcile ${name}-file resource` });
    });
  }
  await h.update(IMG0);
  await h.start();
  const failed = h.statuses.find((s) => s.failure)!;
  assert.equal((failed.failure as UpdateError).reason, "MultipleErrors");
  assert.equal(
    failed.failure?.message,
    "Multiple errors are preventing progress:\n* Failed to reconcile 10-a-file resource\n* Failed to reconcile 20-b-file resource",
  );
  assert.deepEqual([failed.done, failed.total, failed.initial], [1, 3, true]);
  assert.equal(cond(h, "Progressing"), `True(MultipleErrors) Unable to apply ${V0}: an unknown error has occurred: MultipleErrors`);
  await h.stop();
});

test("scenario 17: the state comes from the history", async () => {
  const h = workerHarness({ payloads: [basic(), basic(V1, IMG1)] });
  await h.start();
  assert.equal(chooseState(h.history(), IMG0), "Initializing");
  await h.update(IMG0);
  await h.start();
  assert.equal(chooseState(h.history(), IMG0), "Reconciling");
  assert.equal(chooseState(h.history(), IMG1), "Updating");
  await h.stop();
});

test("scenario 22: capability-disabled manifests are skipped, not failed", async () => {
  const gated = configMap("gated", "gated", { "capability.openshift.io/name": "openshift-samples+baremetal" });
  const h = workerHarness({ payloads: [payload(V0, IMG0, [gated, configMap("plain")])] });
  await h.update(IMG0, { capabilities: { baselineCapabilitySet: "None", additionalEnabledCapabilities: [] } });
  await h.start();
  assert.deepEqual(
    h.applier.calls.map((c) => c.name),
    ["plain"],
  );
  assert.equal(h.last().completed, 1);
  assert.equal(h.last().done, 1, "skipped manifests do not count as done");
  await h.stop();
});

test("scenario 23: an unknown resource type is UpdatePayloadResourceTypeMissing", async () => {
  const h = workerHarness({ payloads: [payload(V0, IMG0, [configMap("crd-user")])] });
  h.applier.scripts.set("crd-user", () => {
    throw new Error('no matches for kind "Widget" in version "example.com/v1"');
  });
  await h.update(IMG0, { state: "Updating" });
  await h.start();
  assert.equal((h.last().failure as UpdateError).reason, "UpdatePayloadResourceTypeMissing");
  await h.stop();
});

test("scenario 24: a degraded operator only reports while installing, and waits up to 40 minutes while updating", async () => {
  const degraded = (name: string) =>
    new UpdateError({
      effect: "FailAfterInterval",
      reason: "ClusterOperatorDegraded",
      pluralReason: "ClusterOperatorsDegraded",
      message: `Cluster operator ${name} is degraded`,
      pluralMessageFormat: "Cluster operators %s are degraded",
      name,
    });
  const install = workerHarness({ payloads: [payload(V0, IMG0, [clusterOperator("co", V0)])] });
  install.applier.scripts.set("co", (_attempt, mode) => {
    if (mode !== "Precreating")
      throw new UpdateError({ effect: "Report", reason: "ClusterOperatorDegraded", message: "Cluster operator co is degraded", name: "co" });
  });
  await install.update(IMG0);
  await install.start();
  assert.equal(install.statuses.find((s) => s.completed === 1)?.done, 1, "the task counts as done and the pass completes");
  await install.stop();

  const update = workerHarness({ payloads: [payload(V0, IMG0, [clusterOperator("co", V0)])], reconcileMs: 60 * 60 * 1000 });
  update.applier.scripts.set("co", (_attempt, mode) => {
    if (mode === "Precreating") return;
    update.operatorWait("co");
    throw degraded("co");
  });
  await update.update(IMG0, { state: "Updating" });
  await update.start();
  assert.equal(cond(update, "Progressing"), `True(ClusterOperatorDegraded) Working towards ${V0}: waiting up to 40 minutes on co`);
  assert.equal(cond(update, "Failing"), "False() ");
  // Retries come at R/8, R/4, R/2 (R = 1 h); the first one after 40 minutes re-derives the status.
  await update.clock.advance(60 * 60 * 1000);
  assert.equal(cond(update, "Failing"), "True(ClusterOperatorDegraded) Cluster operator co is degraded");
  assert.equal(cond(update, "Progressing"), `True(ClusterOperatorDegraded) Unable to apply ${V0}: wait has exceeded 40 minutes for these operators: co`);
  await update.stop();
});

test("scenario 25: operators still updating are a wait, condensed into one message", async () => {
  const p = payload(V0, IMG0, [configMap("first", "0000_10_x_a"), clusterOperator("b", V0, "0000_20_b_co"), clusterOperator("a", V0, "0000_20_a_co")]);
  const h = workerHarness({ payloads: [p], maxWorkers: 4 });
  for (const name of ["a", "b"]) {
    h.applier.scripts.set(name, (_attempt, mode) => {
      if (mode === "Precreating") return;
      throw new UpdateError({
        effect: "None",
        reason: "ClusterOperatorUpdating",
        pluralReason: "ClusterOperatorsUpdating",
        message: `Cluster operator ${name} is updating versions`,
        pluralMessageFormat: "Cluster operators %s are updating versions",
        name,
      });
    });
  }
  await h.update(IMG0, { state: "Updating" });
  await h.start();
  const failure = h.last().failure as UpdateError;
  assert.equal(failure.reason, "ClusterOperatorsUpdating");
  assert.equal(failure.message, "Cluster operators a, b are updating versions");
  assert.equal(failure.objectName, "a, b");
  assert.equal(failure.effect, "None");
  assert.equal(cond(h, "Failing"), "False() ");
  assert.equal(cond(h, "Progressing"), `True(ClusterOperatorsUpdating) Working towards ${V0}: 1 of 3 done (33% complete), waiting on a, b`);
  await h.stop();
});

test("scenario 26: a version change during install is ignored", async () => {
  const h = workerHarness({ payloads: [basic(), basic(V1, IMG1)] });
  await h.update(IMG0, { state: "Initializing" });
  const status = await h.update(IMG1, { state: "Initializing", generation: 2 });
  assert.deepEqual(h.retrievals, [IMG0], "the new release is not even retrieved");
  assert.equal(status.actual.image, IMG0);
  await h.start();
  assert.ok(h.applier.calls.every((c) => c.mode === "Initializing"));
  assert.equal(h.last().actual.version, V0);
  await h.stop();
});

test("scenario 27: a Job is a barrier: nothing runs beside it", async () => {
  const p = payload(V0, IMG0, [
    configMap("a1", "0000_50_a_01"),
    configMap("b1", "0000_50_b_01"),
    job("migrate", "0000_50_x_job"),
    configMap("a2", "0000_60_a_01"),
    configMap("b2", "0000_60_b_01"),
  ]);
  const h = workerHarness({ payloads: [p], maxWorkers: 4 });
  const duringJob: string[] = [];
  h.applier.scripts.set("migrate", async () => {
    duringJob.push(...[...h.applier.running].filter((n) => n !== "migrate"));
    await Promise.resolve();
  });
  await h.update(IMG0, { state: "Updating" });
  await h.start();
  const order = h.applier.calls.filter((c) => c.mode === "Updating").map((c) => c.name);
  assert.deepEqual(duringJob, []);
  assert.ok(order.indexOf("migrate") > Math.max(order.indexOf("a1"), order.indexOf("b1")));
  assert.ok(order.indexOf("migrate") < Math.min(order.indexOf("a2"), order.indexOf("b2")));
  await h.stop();
});

test("scenario 5/6: a local payload skips verification and preconditions", async () => {
  const failing: Precondition = { name: "Always", run: async () => new PreconditionError("CheckFailure", "failing", "Always") };
  const h = workerHarness({
    payloads: [basic()],
    preconditions: [failing],
    retrieve: () => ({ local: true, verificationError: new Error("unverified") }),
  });
  const status = await h.update(IMG0);
  assert.equal(status.loadPayloadStatus.step, "PayloadLoaded");
  await h.start();
  assert.equal(h.last().completed, 1);
  await h.stop();
});

test("scenario 8/9: a forced unverified upgrade completes; verification is recorded in the history", async () => {
  const h = workerHarness({
    payloads: [basic(), basic(V1, IMG1)],
    retrieve: (image, force) =>
      image === IMG1 && !force
        ? new UpdateError({ reason: "ImageVerificationFailed", message: "The update cannot be verified: some random error" })
        : { verified: image === IMG0 },
  });
  await h.update(IMG0, { version: V0 });
  await h.start();
  assert.equal((await h.update(IMG1, { version: V1, generation: 2 })).loadPayloadStatus.step, "RetrievePayload");
  const forced = await h.update(IMG1, { version: V1, generation: 3, force: true });
  assert.deepEqual([forced.loadPayloadStatus.step, forced.loadPayloadStatus.update.force], ["PayloadLoaded", true]);
  await h.clock.advance(0);
  // completed counts passes in a row of the loop's work, which a new target does not reset (upstream).
  assert.deepEqual([h.last().actual.version, h.last().completed, h.last().initial, h.last().reconciling], [V1, 2, false, true]);
  assert.deepEqual(
    h.history().map((e) => [e.state, e.version, e.verified]),
    [
      ["Completed", V1, false],
      ["Completed", V0, true],
    ],
  );
  assert.equal(cond(h, "Progressing"), `False() Cluster version is ${V1}`);
  await h.stop();
});

test("scenario 11: going back to the running release resets the load status from the cache", async () => {
  const h = workerHarness({
    payloads: [basic(), basic(V1, IMG1)],
    retrieve: (image) => (image === IMG1 ? new UpdateError({ reason: "ImageVerificationFailed", message: "The update cannot be verified: x" }) : undefined),
  });
  await h.update(IMG0, { version: V0 });
  await h.start();
  await h.update(IMG1, { version: V1, generation: 2 });
  const back = await h.update(IMG0, { version: V0, generation: 3 });
  assert.equal(back.loadPayloadStatus.step, "PayloadLoaded");
  assert.equal(back.loadPayloadStatus.message, `Payload loaded version="${V0}" image="${IMG0}"`, "no architecture: the cached branch");
  assert.deepEqual([back.completed, back.reconciling], [1, true]);
  assert.deepEqual(h.retrievals, [IMG0, IMG1], "the running payload is not retrieved again");
  await h.stop();
});

test("scenario 14: a worker that starts in Reconciling applies in Reconciling and keeps the cached payload", async () => {
  const h = workerHarness({ payloads: [basic()] });
  const status = await h.update(IMG0, { state: "Reconciling", version: V0 });
  assert.deepEqual([status.reconciling, status.completed], [true, 0]);
  await h.start();
  assert.ok(h.applier.calls.every((c) => c.mode === "Reconciling"));
  await h.clock.advance(500);
  assert.deepEqual(h.retrievals, [IMG0]);
  assert.equal(h.last().completed, 2);
  await h.stop();
});

test("scenario 18/19: failures while updating name what could not be applied", async () => {
  const h = workerHarness({ payloads: [basic()] });
  h.applier.scripts.set("file-json", () => {
    throw new UpdateError({ reason: "UpdatePayloadIntegrity", message: "unable to apply object" });
  });
  await h.update(IMG0, { state: "Updating", version: V0 });
  await h.start();
  assert.equal(cond(h, "Failing"), "True(UpdatePayloadIntegrity) unable to apply object");
  assert.equal(cond(h, "Progressing"), `True(UpdatePayloadIntegrity) Unable to apply ${V0}: the contents of the update are invalid`);
  h.applier.scripts.set("file-json", () => {
    throw new Error("injected error");
  });
  await h.clock.advance(500);
  assert.equal(cond(h, "Progressing"), `True(UpdatePayloadFailed) Unable to apply ${V0}: the update could not be applied`);
  await h.stop();
});

test("overrides: an unmanaged object is neither precreated nor applied; cluster-scoped objects match any namespace", async () => {
  const h = workerHarness({ payloads: [payload(V0, IMG0, [configMap("kept"), configMap("left-alone"), clusterOperator("co-unmanaged", V0)])] });
  const overrides = [
    { kind: "ConfigMap", group: "", namespace: "test", name: "left-alone", unmanaged: true },
    { kind: "ClusterOperator", group: "config.openshift.io", namespace: "anything", name: "co-unmanaged", unmanaged: true },
    { kind: "ConfigMap", group: "", namespace: "other", name: "kept", unmanaged: true },
  ];
  await h.update(IMG0, { state: "Updating", overrides });
  await h.start();
  assert.deepEqual(
    h.applier.calls.map((c) => c.name),
    ["kept"],
    "an override in another namespace does not match a namespaced object",
  );
  assert.deepEqual([h.last().completed, h.last().done, h.last().total], [1, 1, 3]);
  await h.stop();
});

test("scenario 1: an update without an image changes nothing and the worker emits nothing", async () => {
  const h = workerHarness({ payloads: [basic()] });
  const status = await h.update("");
  assert.deepEqual(h.statuses, []);
  assert.deepEqual(h.retrievals, []);
  assert.deepEqual([status.actual.image, status.loadPayloadStatus.step, status.generation], ["", "", 0]);
  await h.start();
  assert.deepEqual(h.applier.calls, []);
  await h.stop();
});
