import assert from "node:assert/strict";
import { test } from "node:test";
import { UpdateError } from "../../../src/core/index.js";
import { ClusterVersionTracker } from "../../../src/status/index.js";
import { EMPTY_STATUS, type SyncWorkerStatus } from "../../../src/worker/index.js";

const base: SyncWorkerStatus = {
  ...EMPTY_STATUS,
  actual: { version: "4.16.1", image: "/payloads/4.16.1", url: "", channels: [] },
  done: 42,
  total: 180,
};

for (const tc of [
  { name: "no update yet", status: EMPTY_STATUS, want: "Waiting for an update" },
  { name: "progress", status: base, want: "Working towards 4.16.1: 42 of 180 done (23% complete)" },
  {
    name: "an operator still updating is a wait",
    status: {
      ...base,
      failure: new UpdateError({ reason: "ClusterOperatorUpdating", effect: "None", message: "Cluster operator dns is updating versions", name: "dns" }),
    },
    want: "Working towards 4.16.1: 42 of 180 done (23% complete), waiting on dns",
  },
  {
    name: "a failure",
    status: { ...base, failure: new UpdateError({ reason: "UpdatePayloadFailed", message: 'Could not update configmap "ns/c" (3 of 3)' }) },
    want: 'Unable to apply 4.16.1: Could not update configmap "ns/c" (3 of 3)',
  },
  {
    name: "a failure while paused notes the pause, as Progressing does",
    status: {
      ...base,
      failure: new UpdateError({ reason: "ClusterOperatorsNotAvailable", message: "Cluster operators dns, ingress are not available" }),
      pause: { pausedBy: "alice", reason: "freeze", pausedAt: new Date(5000), updatePending: false },
    },
    want: "Unable to apply 4.16.1: Cluster operators dns, ingress are not available; paused by alice since 1970-01-01T00:00:05.000Z: freeze",
  },
  { name: "completed", status: { ...base, done: 180, completed: 1, reconciling: true }, want: "Cluster version is 4.16.1" },
  {
    name: "a failed load names the step",
    status: {
      ...base,
      loadPayloadStatus: {
        step: "LoadPayload",
        message: "",
        failure: new Error("bad yaml"),
        update: { version: "4.17.0", image: "/p", force: false },
        verified: false,
      },
    },
    want: "LoadPayload failed for 4.17.0: bad yaml",
  },
] as const) {
  test(`the status message: ${tc.name}`, () => {
    // A history exists (an update began), as for every status the service derives after an Update.
    const tracker = new ClusterVersionTracker(
      () => new Date(0),
      () => undefined,
    );
    tracker.observe({ ...tc.status, failure: undefined });
    assert.equal(tracker.observe(tc.status).message, tc.want);
  });
}

test("a sync that cannot start: Available=False, Failing=True with the error, Progressing keeps its status (CVO syncFailingStatus)", () => {
  let now = new Date(1000);
  const tracker = new ClusterVersionTracker(
    () => now,
    () => undefined,
  );
  tracker.observe(base);
  now = new Date(2000);
  const status = tracker.observeFailure(base, new Error("bad"));
  const byType = new Map(status.conditions.map((c) => [c.type, c]));
  assert.deepEqual(
    ["Available", "Failing", "Progressing"].map((type) => {
      const c = byType.get(type);
      return [type, c?.status, c?.reason, c?.message];
    }),
    [
      ["Available", "False", "", ""],
      ["Failing", "True", "", "bad"],
      ["Progressing", "True", "", "Error ensuring the cluster version is up to date: bad"],
    ],
  );
  assert.equal(byType.get("Progressing")?.lastTransitionTime.getTime(), 1000, "Progressing keeps its status, so its transition time");
  assert.equal(byType.get("ImplicitlyEnabledCapabilities")?.reason, "AsExpected", "other conditions stay");
  assert.deepEqual(
    status.history.map((h) => [h.state, h.version]),
    [["Partial", "4.16.1"]],
    "the release stays in the history, not completed",
  );
  assert.equal(status.message, "Error ensuring the cluster version is up to date: bad");

  const reconciled = new ClusterVersionTracker(
    () => now,
    () => undefined,
  );
  reconciled.observe({ ...base, reconciling: true, completed: 1 });
  assert.equal(reconciled.observeFailure(base, new Error("bad")).conditions.find((c) => c.type === "Progressing")?.status, "False");
});
