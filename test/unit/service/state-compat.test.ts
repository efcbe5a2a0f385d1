// The saved format is a contract with every state already on disk or in a ConfigMap: these fixtures were written by
// the hand-written encoder that preceded the schema-derived one, and must still decode to the same values and
// re-encode to the same bytes.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { UpdateError } from "../../../src/core/index.js";
import { decodeState, encodeState } from "../../../src/service/index.js";
import { EMPTY_CLUSTER_VERSION } from "../../../src/status/index.js";
import { EMPTY_STATUS } from "../../../src/worker/index.js";

const fixture = (name: string): string => readFileSync(new URL(`fixtures/${name}`, import.meta.url), "utf8");
const at = (s: string): Date => new Date(s);
const since = at("2026-01-01T00:00:02Z");

test("a state saved with every optional field decodes to the values it was saved from", () => {
  const text = fixture("state-v1.json");
  const state = decodeState(text, "fixture");
  assert.equal(state.writer, "host_1");
  assert.deepEqual(state.savedAt, at("2026-01-01T00:00:05.250Z"));
  assert.deepEqual(state.revision, { published: 42, reserved: 1042 });
  assert.deepEqual(state.spec, {
    generation: 3,
    desired: { version: "4.16.1", image: "/payloads/b", force: true },
    overrides: [{ kind: "FlowSchema", group: "flowcontrol.apiserver.k8s.io", namespace: "", name: "x", unmanaged: true }],
    capabilities: { baselineCapabilitySet: "v4.14", additionalEnabledCapabilities: ["Console"] },
    state: "Updating",
    limits: { maxDeletions: 0, maxChangedPercent: 12.5 },
    expectedPlanDigest: `sha256:${"ab".repeat(32)}`,
  });

  const { failure, loadPayloadStatus, ...status } = state.status;
  assert.ok(failure instanceof UpdateError);
  assert.deepEqual(
    [failure.reason, failure.message, failure.effect, failure.objectName, failure.names],
    ["ClusterOperatorNotAvailable", "Cluster operator dns is not available", "FailAfterInterval", "dns", ["dns"]],
  );
  assert.deepEqual(status, {
    generation: 3,
    done: 10,
    total: 20,
    completed: 2,
    reconciling: false,
    initial: true,
    versionHash: "hash-1",
    architecture: "amd64",
    lastProgress: at("2026-01-01T00:00:04Z"),
    actual: { version: "4.16.1", image: "/payloads/b", url: "https://example.com/4.16.1", channels: ["stable-4.16", "fast-4.16"] },
    verified: true,
    capabilitiesStatus: { enabled: ["Console"], known: ["Console", "Insights"], implicitlyEnabled: ["Insights"] },
    components: [
      {
        runLevel: 10,
        component: "config-operator",
        state: "Done",
        done: 4,
        total: 4,
        currentObject: "",
        waitReason: "",
        attempts: 0,
        startedAt: since,
        finishedAt: at("2026-01-01T00:00:03Z"),
      },
      {
        runLevel: 50,
        component: "dns-operator",
        state: "Waiting",
        done: 3,
        total: 4,
        currentObject: "clusteroperator/dns",
        waitReason: "ClusterOperatorNotAvailable",
        waitingSince: since,
        attempts: 2,
        startedAt: since,
      },
      {
        runLevel: 50,
        component: "ingress-operator",
        state: "Applying",
        done: 1,
        total: 9,
        currentObject: "deployment/openshift-ingress-operator/ingress-operator",
        waitReason: "",
        attempts: 1,
        startedAt: at("2026-01-01T00:00:03.5Z"),
      },
      { runLevel: 60, component: "console-operator", state: "Pending", done: 0, total: 3, currentObject: "", waitReason: "", attempts: 0 },
    ],
    pause: { pausedBy: "admin@example.com", reason: "maintenance window", pausedAt: at("2026-01-01T00:00:04.5Z"), updatePending: true },
  });
  const { failure: loadFailure, ...load } = loadPayloadStatus;
  assert.ok(loadFailure instanceof Error && !(loadFailure instanceof UpdateError), "a failure saved without a reason is a plain Error");
  assert.equal(loadFailure.message, "signature check timed out");
  assert.deepEqual(load, {
    step: "PayloadLoaded",
    message: "Payload loaded",
    update: { version: "4.16.1", image: "/payloads/b", force: true },
    verified: false,
    lastTransitionTime: at("2026-01-01T00:00:01Z"),
    preconditionResults: [
      { name: "ClusterVersionUpgradeable", reason: "NotUpgradeable", message: "set to false", blocking: true },
      { name: "EtcdRecentBackup", reason: "NoBackup", message: "no recent backup", blocking: false },
    ],
    acceptedRisks: "Forced through blocking failures: …",
  });

  assert.deepEqual(state.clusterVersion, {
    conditions: [
      { type: "Available", status: "True", reason: "", message: "Done applying 4.16.0", lastTransitionTime: at("2026-01-01T00:00:00Z") },
      { type: "Failing", status: "Unknown", reason: "SlowClusterOperator", message: "waiting on dns", lastTransitionTime: at("2026-01-01T00:00:04Z") },
    ],
    history: [
      {
        state: "Partial",
        version: "4.16.1",
        image: "/payloads/b",
        verified: false,
        startedTime: at("2026-01-01T00:00:01Z"),
        acceptedRisks: "Forced through blocking failures: …",
      },
      {
        state: "Completed",
        version: "4.16.0",
        image: "/payloads/a",
        verified: true,
        startedTime: at("2025-12-31T00:00:00Z"),
        completionTime: at("2025-12-31T00:10:00Z"),
      },
    ],
    message: "Working towards 4.16.1: 10 of 20 done (50% complete), waiting on dns",
  });
  assert.deepEqual(state.position, { image: "/payloads/b", versionHash: "hash-1", done: new Set([2, 3, 7]) });
  assert.deepEqual(state.durations, { updates: 2, byComponent: { "50/dns-operator": [31_000, 29_500], "10/config-operator": [1200] } });
  assert.deepEqual(state.progress, {
    slow: ["50/dns-operator"],
    timing: { startedAt: at("2026-01-01T00:00:01Z"), elapsedMs: 4000, estimate: { remainingMs: 30_000, basis: "from 2 previous updates" } },
  });

  assert.equal(encodeState(state), text, "re-encoding gives the same bytes");
});

test("a state saved with no optional field decodes to the empty values and re-encodes to the same bytes", () => {
  const text = fixture("state-v1-minimal.json");
  const state = decodeState(text, "fixture");
  assert.deepEqual(state, {
    writer: "host_2",
    savedAt: at("2026-01-02T00:00:00Z"),
    revision: { published: 0, reserved: 1000 },
    spec: undefined,
    status: EMPTY_STATUS,
    clusterVersion: EMPTY_CLUSTER_VERSION,
  });
  assert.equal(encodeState(state), text, "re-encoding gives the same bytes");
});
