import assert from "node:assert/strict";
import { test } from "node:test";
import { UpdateError } from "../../../src/core/index.js";
import { decodeState, encodeState, StateError, type PersistedState } from "../../../src/service/index.js";
import { EMPTY_STATUS } from "../../../src/worker/index.js";

const at = (s: string): Date => new Date(s);

const STATE: PersistedState = {
  writer: "host_1",
  savedAt: at("2026-01-01T00:00:05Z"),
  revision: { published: 42, reserved: 1042 },
  spec: {
    generation: 3,
    desired: { version: "4.16.1", image: "/payloads/b", force: true },
    overrides: [{ kind: "FlowSchema", group: "flowcontrol.apiserver.k8s.io", namespace: "", name: "x", unmanaged: true }],
    capabilities: { baselineCapabilitySet: "v4.14", additionalEnabledCapabilities: ["Console"] },
    limits: { maxDeletions: 0, maxChangedPercent: 12.5 },
    expectedPlanDigest: `sha256:${"ab".repeat(32)}`,
  },
  status: {
    ...EMPTY_STATUS,
    generation: 3,
    done: 10,
    total: 20,
    completed: 2,
    failure: new UpdateError({
      reason: "ClusterOperatorNotAvailable",
      message: "Cluster operator dns is not available",
      effect: "FailAfterInterval",
      name: "dns",
      names: ["dns"],
    }),
    lastProgress: at("2026-01-01T00:00:04Z"),
    actual: { version: "4.16.1", image: "/payloads/b", url: "u", channels: ["stable-4.16"] },
    loadPayloadStatus: {
      step: "PayloadLoaded",
      message: "Payload loaded",
      update: { version: "4.16.1", image: "/payloads/b", force: true },
      verified: false,
      lastTransitionTime: at("2026-01-01T00:00:01Z"),
      preconditionResults: [{ name: "ClusterVersionUpgradeable", reason: "NotUpgradeable", message: "set to false", blocking: true }],
      acceptedRisks: "Forced through blocking failures: …",
    },
    capabilitiesStatus: { enabled: ["Console"], known: ["Console", "Insights"], implicitlyEnabled: [] },
  },
  clusterVersion: {
    conditions: [{ type: "Available", status: "True", reason: "", message: "Done applying 4.16.0", lastTransitionTime: at("2026-01-01T00:00:00Z") }],
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
  },
  durations: { updates: 2, byComponent: { "50/dns-operator": [31_000, 29_500], "10/config-operator": [1200] } },
};

test("a state survives encoding: dates, the typed failure, the spec and the history", () => {
  const decoded = decodeState(encodeState(STATE), "test");
  assert.deepEqual({ ...decoded, status: { ...decoded.status, failure: undefined } }, { ...STATE, status: { ...STATE.status, failure: undefined } });
  const failure = decoded.status.failure;
  assert.ok(failure instanceof UpdateError);
  assert.deepEqual(
    [failure.reason, failure.effect, failure.objectName, failure.names, failure.message],
    ["ClusterOperatorNotAvailable", "FailAfterInterval", "dns", ["dns"], "Cluster operator dns is not available"],
  );
  assert.equal(encodeState(decoded), encodeState(STATE), "encoding is stable");
});

test("components and timing are saved, a pending or done component in a few fields; a state saved before them has none", () => {
  const since = at("2026-01-01T00:00:02Z");
  const components = [
    {
      runLevel: 10,
      component: "config-operator",
      state: "Done" as const,
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
      state: "Waiting" as const,
      done: 3,
      total: 4,
      currentObject: "clusteroperator/dns",
      waitReason: "ClusterOperatorNotAvailable",
      waitingSince: since,
      attempts: 2,
      startedAt: since,
    },
    { runLevel: 50, component: "ingress-operator", state: "Pending" as const, done: 0, total: 9, currentObject: "", waitReason: "", attempts: 0 },
  ];
  const progress = {
    slow: ["50/dns-operator"],
    timing: { startedAt: at("2026-01-01T00:00:01Z"), elapsedMs: 4000, estimate: { remainingMs: 30_000, basis: "from 2 previous updates" } },
  };
  const state: PersistedState = { ...STATE, status: { ...STATE.status, components }, progress };
  const text = encodeState(state);
  const decoded = decodeState(text, "test");
  assert.deepEqual(decoded.status.components, components);
  assert.deepEqual(decoded.progress, progress);
  assert.equal(encodeState(decoded), text, "encoding is stable");
  const saved = JSON.parse(text) as { status: { components: object[] } };
  assert.deepEqual(
    saved.status.components[2],
    { runLevel: 50, component: "ingress-operator", state: "Pending", done: 0, total: 9 },
    "a pending component is its identity and counts",
  );

  const older = JSON.parse(text) as { status: Record<string, unknown> } & Record<string, unknown>;
  delete older.status["components"];
  delete older["progress"];
  const before = decodeState(JSON.stringify(older), "test");
  assert.deepEqual([before.status.components, before.progress], [[], undefined]);
});
test("an Update's plan controls are saved with it; a state saved before they were has none", () => {
  const spec = decodeState(encodeState(STATE), "test").spec;
  assert.deepEqual([spec?.limits, spec?.expectedPlanDigest], [{ maxDeletions: 0, maxChangedPercent: 12.5 }, `sha256:${"ab".repeat(32)}`]);
  const older = JSON.parse(encodeState(STATE)) as { spec: Record<string, unknown> };
  delete older.spec["limits"];
  delete older.spec["expectedPlanDigest"];
  const decoded = decodeState(JSON.stringify(older), "test").spec;
  assert.ok(decoded && !("limits" in decoded) && !("expectedPlanDigest" in decoded), JSON.stringify(decoded));
  const { limits: _limits, expectedPlanDigest: _digest, ...rest } = STATE.spec!;
  assert.deepEqual(decoded, rest);
});

const BAD: Array<[string, (doc: Record<string, unknown>) => unknown, RegExp]> = [
  ["another format", (d) => ({ ...d, format: "other/v9" }), /format/],
  ["a revision that is not a number", (d) => ({ ...d, revision: { published: "many", reserved: 1 } }), /revision\.published/],
  ["a reservation below the published revision", (d) => ({ ...d, revision: { published: 10, reserved: 5 } }), /reserved must be >= published/],
  [
    "a history entry with a bad date",
    (d) => ({
      ...d,
      clusterVersion: {
        ...(d["clusterVersion"] as object),
        history: [{ state: "Completed", version: "1", image: "i", verified: false, startedTime: "yesterday" }],
      },
    }),
    /clusterVersion\.history\.0\.startedTime/,
  ],
  ["an unknown field", (d) => ({ ...d, extra: true }), /extra/],
  ["a state the worker does not know", (d) => ({ ...d, spec: { ...(d["spec"] as object), state: "Precreating" } }), /spec\.state/],
  ["a negative deletion limit", (d) => ({ ...d, spec: { ...(d["spec"] as object), limits: { maxDeletions: -1 } } }), /spec\.limits\.maxDeletions/],
  [
    "a component in a state the worker does not know",
    (d) => ({ ...d, status: { ...(d["status"] as object), components: [{ runLevel: 1, component: "a", state: "Stuck", done: 0, total: 1 }] } }),
    /status\.components\.0\.state/,
  ],
  ["a negative component duration", (d) => ({ ...d, durations: { updates: 1, byComponent: { "10/a": [-5] } } }), /durations\.byComponent\.10\/a\.0/],
];
for (const [name, corrupt, field] of BAD) {
  test(`a state with ${name} is refused naming the field and where it came from`, () => {
    const doc = JSON.parse(encodeState(STATE)) as Record<string, unknown>;
    assert.throws(
      () => decodeState(JSON.stringify(corrupt(doc)), "state file /x/state.json"),
      (err: unknown) => err instanceof StateError && err.message.startsWith("state file /x/state.json: ") && field.test(err.message),
    );
  });
}

test("text that is not JSON is refused as such", () => {
  assert.throws(
    () => decodeState("{", "ConfigMap ns/syncworker-state"),
    (err: unknown) => err instanceof StateError && /ConfigMap ns\/syncworker-state: not valid JSON/.test(err.message),
  );
});

const UNFIT: Array<[string, (s: PersistedState) => PersistedState, RegExp]> = [
  ["a negative count", (s) => ({ ...s, status: { ...s.status, done: -1 } }), /status\.done/],
  ["an invalid date", (s) => ({ ...s, savedAt: new Date(Number.NaN) }), /savedAt/],
  ["a reservation below the published revision", (s) => ({ ...s, revision: { published: 10, reserved: 5 } }), /revision: reserved must be >= published/],
  [
    "a component in a state the worker does not know",
    (s) => ({ ...s, status: { ...s.status, components: [{ ...COMPONENT, state: "Stuck" as "Done" }] } }),
    /status\.components\.0\.state/,
  ],
  [
    "a field the format does not have",
    (s) => ({ ...s, clusterVersion: { ...s.clusterVersion, extra: 1 } as PersistedState["clusterVersion"] }),
    /clusterVersion.*extra/,
  ],
  ["a duration that is not finite", (s) => ({ ...s, durations: { updates: 1, byComponent: { "10/a": [Infinity] } } }), /durations\.byComponent\.10\/a\.0/],
];
const COMPONENT = { runLevel: 10, component: "a", state: "Pending" as const, done: 0, total: 1, currentObject: "", waitReason: "", attempts: 0 };
for (const [name, unfit, field] of UNFIT) {
  test(`a state with ${name} is not saved: a StateError names the field`, () => {
    assert.throws(
      () => encodeState(unfit(STATE), "state file /x/state.json"),
      (err: unknown) => err instanceof StateError && err.message.startsWith("state file /x/state.json: not saved") && field.test(err.message),
    );
  });
}

test("a decoded state is deep-frozen, its errors excepted", () => {
  const decoded = decodeState(
    encodeState({ ...STATE, status: { ...STATE.status, components: [COMPONENT] }, position: { image: "i", versionHash: "h", done: new Set([1]) } }),
    "test",
  );
  for (const value of [
    decoded,
    decoded.spec,
    decoded.spec?.overrides,
    decoded.status.components[0],
    decoded.status.loadPayloadStatus.preconditionResults,
    decoded.clusterVersion.history[1],
    decoded.durations?.byComponent,
    decoded.position,
  ]) {
    assert.ok(Object.isFrozen(value), JSON.stringify(value));
  }
  assert.ok(!Object.isFrozen(decoded.status.failure), "an UpdateError is still annotated after it is shared");
});
