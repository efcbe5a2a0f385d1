// The events between two snapshots: each step of an update told once, in a fixed order, and a status first.
import assert from "node:assert/strict";
import { test } from "node:test";
import { UpdateError } from "../../../src/core/index.js";
import { deriveEvents, type DeriveMemory } from "../../../src/events/index.js";
import { EMPTY_CLUSTER_VERSION, type ServiceStatus } from "../../../src/status/index.js";
import { EMPTY_STATUS, type SyncWorkerStatus } from "../../../src/worker/index.js";

const IMAGE = "quay.io/r/release@sha256:1";
const STARTED = new Date(1_000);
const loaded = { step: "PayloadLoaded", message: "Payload loaded", update: { version: "1.1.0", image: IMAGE, force: false }, verified: true };
const component = (state: "Pending" | "Applying" | "Waiting" | "Done", waitReason = "") => ({
  runLevel: 50,
  component: "dns",
  state,
  done: state === "Done" ? 2 : 1,
  total: 2,
  currentObject: "",
  waitReason,
  attempts: 0,
});

/** A snapshot of the update to 1.1.0; `worker` and the history's state vary. */
function snapshot(worker: Partial<SyncWorkerStatus>, history: "none" | "Partial" | "Completed" = "Partial", extra: Partial<ServiceStatus> = {}): ServiceStatus {
  const entries = history === "none" ? [] : [{ state: history, version: "1.1.0", image: IMAGE, verified: true, startedTime: STARTED }];
  return {
    worker: { ...EMPTY_STATUS, actual: { version: "1.1.0", image: IMAGE, url: "", channels: [] }, loadPayloadStatus: loaded, ...worker } as SyncWorkerStatus,
    clusterVersion: { ...EMPTY_CLUSTER_VERSION, history: entries },
    ...extra,
  };
}

/** Runs `snapshots` through the derivation as the publisher does, returning `kind subject` per event. */
function run(...snapshots: ServiceStatus[]): string[] {
  let previous: ServiceStatus | undefined;
  let memory: DeriveMemory = {};
  const told: string[] = [];
  for (const next of snapshots) {
    const derived = deriveEvents(previous, next, memory);
    memory = derived.memory;
    previous = next;
    told.push(...derived.events.map((e) => `${e.kind} ${e.subject}`));
  }
  return told;
}

test("the first snapshot is told as the current state, whatever it shows", () => {
  const [first] = deriveEvents(undefined, snapshot({ components: [component("Waiting", "ClusterOperatorNotAvailable")] })).events;
  assert.equal(first?.kind, "status");
  assert.deepEqual(first?.data["blocked"], [{ component: "dns", reason: "ClusterOperatorNotAvailable" }]);
  assert.equal(first?.data["state"], "Updating");
});

test("an update's steps: accepted, started once (not per pass), blocked once per wait (retries included), completed", () => {
  const loading = snapshot(
    { loadPayloadStatus: { ...loaded, step: "RetrievePayload" }, actual: { version: "1.0.0", image: "old", url: "", channels: [] } },
    "none",
  );
  assert.deepEqual(
    run(
      loading,
      snapshot({ components: [component("Pending")] }),
      snapshot({ components: [component("Applying")] }),
      snapshot({ components: [component("Waiting", "ClusterOperatorNotAvailable")] }),
      snapshot({ components: [component("Waiting", "ClusterOperatorNotAvailable")] }),
      snapshot({ components: [component("Waiting", "ClusterOperatorDegraded")] }),
      // Its retry waits on the same: the same wait, not told again.
      snapshot({ components: [component("Applying")] }),
      snapshot({ components: [component("Waiting", "ClusterOperatorDegraded")] }),
      // A failed pass and its retry: the same history entry, so not started again.
      snapshot({ components: [component("Pending")] }),
      snapshot({ components: [component("Applying")] }),
      snapshot({ components: [component("Done")], reconciling: true }, "Completed"),
    ),
    ["status 1.1.0", "update.accepted 1.1.0", "update.started 1.1.0", "component.blocked dns", "component.blocked dns", "update.completed 1.1.0"],
  );
});

test("refused at a load step names the step, the reason and the message, once", () => {
  const failure = new UpdateError({ reason: "HealthRulesInvalid", message: "release-manifests/health-rules: rules[0].current: bad" });
  const refused = snapshot({ loadPayloadStatus: { ...loaded, step: "LoadPayload", update: { version: "", image: "bad", force: false }, failure } });
  const derived = deriveEvents(snapshot({}), refused).events;
  assert.deepEqual(
    derived.map((e) => [e.kind, e.subject, e.data["step"], e.data["reason"]]),
    [["update.refused", "bad", "LoadPayload", "HealthRulesInvalid"]],
  );
  assert.deepEqual(deriveEvents(refused, refused).events, [], "the same refusal is not told again");
});

test("paused, slow, failed and resumed; an install's wait for its operators is not a failure", () => {
  const pause = { pausedBy: "alice", reason: "freeze", pausedAt: new Date(2_000), updatePending: false };
  const failing = (reason: string): Partial<ServiceStatus> => ({
    clusterVersion: {
      ...EMPTY_CLUSTER_VERSION,
      history: [{ state: "Partial", version: "1.1.0", image: IMAGE, verified: true, startedTime: STARTED }],
      conditions: [{ type: "Failing", status: "True", reason, message: `${reason} happened`, lastTransitionTime: new Date(0) }],
    },
  });
  const applying = { components: [component("Applying")] };
  assert.deepEqual(
    run(
      snapshot(applying),
      snapshot({ ...applying, pause }),
      snapshot({ ...applying, pause }, "Partial", { progress: { slow: ["dns"] } }),
      snapshot({ ...applying, pause }, "Partial", { progress: { slow: ["dns"] }, ...failing("ClusterOperatorDegraded") }),
      snapshot(applying, "Partial", failing("ClusterOperatorDegraded")),
    ),
    ["status 1.1.0", "update.paused 1.1.0", "component.slow dns", "update.failed 1.1.0", "update.resumed 1.1.0"],
  );
  const install = { ...applying, initial: true };
  assert.deepEqual(run(snapshot(install), snapshot(install, "Partial", failing("ClusterOperatorsNotAvailable"))), ["status 1.1.0"]);
});
