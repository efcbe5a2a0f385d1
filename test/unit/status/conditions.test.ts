import assert from "node:assert/strict";
import { test } from "node:test";
import { UpdateError, type UpdateEffect } from "../../../src/core/index.js";
import { deriveConditions, type Condition, type HistoryEntry } from "../../../src/status/index.js";
import { newMultipleError } from "../../../src/worker/summarize.js";
import { EMPTY_STATUS, type SyncWorkerStatus } from "../../../src/worker/index.js";

const NOW = new Date(10_000_000_000);
const minutesAgo = (m: number): Date => new Date(NOW.getTime() - m * 60_000);
// When the worker first waited on each operator: a minute ago, or an hour ago for the slow ones.
const STARTED: Record<string, Date> = {
  "co-not-timeout": minutesAgo(1),
  "co-bar-not-timeout": minutesAgo(1),
  "co-foo-not-timeout": minutesAgo(1),
  "co-timeout": minutesAgo(60),
  "co-bar-timeout": minutesAgo(60),
};
const HISTORY: HistoryEntry[] = [{ state: "Partial", version: "1.2.3", image: "img", verified: false, startedTime: minutesAgo(120) }];

const err = (effect: UpdateEffect, reason: string, message: string, name = ""): UpdateError => new UpdateError({ effect, reason, message, name });
const multiple = (...errs: Error[]): Error => newMultipleError(errs)!;
const updating = (names: string[]): UpdateError =>
  new UpdateError({ effect: "None", reason: "ClusterOperatorsUpdating", message: "some-message", name: names.join(", "), names });

type Want = readonly [status: string, reason: string, message: string];
const show = (c: Condition | undefined): Want => [c?.status ?? "", c?.reason ?? "", c?.message ?? ""];

function derive(
  failure: Error | undefined,
  opts: { history?: readonly HistoryEntry[]; reconciling?: boolean; started?: Record<string, Date> } = {},
): Condition[] {
  const ws: SyncWorkerStatus = {
    ...EMPTY_STATUS,
    actual: { version: "1.2.3", image: "img", url: "", channels: [] },
    reconciling: opts.reconciling ?? false,
    ...(failure ? { failure } : {}),
  };
  const started = opts.started ?? STARTED;
  return deriveConditions([], ws, opts.history ?? HISTORY, NOW, (name) => started[name]);
}
const find = (conditions: Condition[], type: string): Condition | undefined => conditions.find((c) => c.type === type);

// Upstream's TestUpdateClusterVersionStatus_FilteringMultipleErrorsForFailingCondition, in our words:
// `failing` is the condition while an update is under way (history, not reconciling); `unfiltered` is
// Failing while reconciling or with no history, where upstream neither filters nor converts.
const A_UNAVAILABLE = err("Fail", "ClusterOperatorNotAvailable", "Cluster operator A is not available", "A");
const B_UPDATING = err("None", "ClusterOperatorUpdating", "Cluster operator B is updating versions", "B");
const C_DEGRADED = err("FailAfterInterval", "ClusterOperatorDegraded", "Cluster operator C is degraded", "C");
for (const tc of [
  { name: "no errors", failure: undefined, failing: ["False", "", ""], unfiltered: ["False", "", ""] },
  {
    name: "one generic error",
    failure: new Error("error has happened"),
    failing: ["True", "", "error has happened"],
    unfiltered: ["True", "", "error has happened"],
  },
  {
    name: "one operator still updating is progress",
    failure: err("None", "ClusterOperatorUpdating", "Cluster operator A is updating", "co-not-timeout"),
    failing: ["False", "", ""],
    unfiltered: ["True", "ClusterOperatorUpdating", "Cluster operator A is updating"],
    progressing: ["True", "ClusterOperatorUpdating", "Working towards 1.2.3: waiting on co-not-timeout"],
  },
  {
    name: "one operator updating for over 30 minutes is slow",
    failure: err("None", "ClusterOperatorUpdating", "Cluster operator A is updating", "co-timeout"),
    failing: ["Unknown", "SlowClusterOperator", "waiting on co-timeout over 30 minutes which is longer than expected"],
    unfiltered: ["True", "ClusterOperatorUpdating", "Cluster operator A is updating"],
    progressing: ["True", "ClusterOperatorUpdating", "Working towards 1.2.3: waiting on co-timeout over 30 minutes which is longer than expected"],
  },
  {
    name: "machine-config updating for an hour is not slow yet",
    failure: err("None", "ClusterOperatorUpdating", "Cluster operator A is updating", "machine-config"),
    started: { "machine-config": minutesAgo(60) },
    failing: ["False", "", ""],
    unfiltered: ["True", "ClusterOperatorUpdating", "Cluster operator A is updating"],
    progressing: ["True", "ClusterOperatorUpdating", "Working towards 1.2.3: waiting on machine-config"],
  },
  {
    name: "machine-config updating for over 90 minutes is slow",
    failure: err("None", "ClusterOperatorUpdating", "Cluster operator A is updating", "machine-config"),
    started: { "machine-config": minutesAgo(91) },
    failing: ["Unknown", "SlowClusterOperator", "waiting on machine-config over 90 minutes which is longer than expected"],
    unfiltered: ["True", "ClusterOperatorUpdating", "Cluster operator A is updating"],
    progressing: ["True", "ClusterOperatorUpdating", "Working towards 1.2.3: waiting on machine-config over 90 minutes which is longer than expected"],
  },
  {
    name: "a condensed error of effect Fail is not filtered",
    failure: new UpdateError({
      effect: "Fail",
      reason: "ClusterOperatorNotAvailable",
      message: "Cluster operators A, B are not available",
      name: "A, B",
      names: ["A", "B"],
    }),
    failing: ["True", "ClusterOperatorNotAvailable", "Cluster operators A, B are not available"],
    unfiltered: ["True", "ClusterOperatorNotAvailable", "Cluster operators A, B are not available"],
  },
  {
    name: "MultipleErrors of Fail and FailAfterInterval stay",
    failure: multiple(A_UNAVAILABLE, C_DEGRADED),
    failing: ["True", "MultipleErrors", "Multiple errors are preventing progress:\n* Cluster operator A is not available\n* Cluster operator C is degraded"],
    unfiltered: ["True", "MultipleErrors", "Multiple errors are preventing progress:\n* Cluster operator A is not available\n* Cluster operator C is degraded"],
  },
  {
    name: "MultipleErrors of Fail and None leave the failing one",
    failure: multiple(A_UNAVAILABLE, B_UPDATING),
    failing: ["True", "ClusterOperatorNotAvailable", "Cluster operator A is not available"],
    unfiltered: [
      "True",
      "MultipleErrors",
      "Multiple errors are preventing progress:\n* Cluster operator A is not available\n* Cluster operator B is updating versions",
    ],
  },
  {
    name: "MultipleErrors of None only are not failing",
    failure: multiple(B_UPDATING, err("None", "NewUpdateEffectNoneReason", "Cluster operator B is getting conscious", "B")),
    failing: ["False", "", ""],
    unfiltered: [
      "True",
      "MultipleErrors",
      "Multiple errors are preventing progress:\n* Cluster operator B is getting conscious\n* Cluster operator B is updating versions",
    ],
  },
  {
    name: "MultipleErrors of Fail, FailAfterInterval and None are rebuilt without the None",
    failure: multiple(A_UNAVAILABLE, B_UPDATING, C_DEGRADED),
    failing: ["True", "MultipleErrors", "Multiple errors are preventing progress:\n* Cluster operator A is not available\n* Cluster operator C is degraded"],
    unfiltered: [
      "True",
      "MultipleErrors",
      "Multiple errors are preventing progress:\n* Cluster operator A is not available\n* Cluster operator B is updating versions\n* Cluster operator C is degraded",
    ],
  },
  {
    name: "several operators updating, none slow: waiting on each by name",
    failure: updating(["co-not-timeout", "co-bar-not-timeout", "co-foo-not-timeout"]),
    failing: ["False", "", ""],
    unfiltered: ["True", "ClusterOperatorsUpdating", "some-message"],
    progressing: ["True", "ClusterOperatorsUpdating", "Working towards 1.2.3: waiting on co-not-timeout, co-bar-not-timeout, co-foo-not-timeout"],
  },
  {
    name: "several operators updating, one slow",
    failure: updating(["co-timeout", "co-bar-not-timeout"]),
    failing: ["Unknown", "SlowClusterOperator", "waiting on co-timeout over 30 minutes which is longer than expected"],
    unfiltered: ["True", "ClusterOperatorsUpdating", "some-message"],
    progressing: ["True", "ClusterOperatorsUpdating", "Working towards 1.2.3: waiting on co-timeout over 30 minutes which is longer than expected"],
  },
  {
    name: "several operators updating, some slow, machine-config too",
    failure: updating(["co-timeout", "co-bar-timeout", "co-not-timeout", "machine-config"]),
    started: { ...STARTED, "machine-config": minutesAgo(100) },
    failing: [
      "Unknown",
      "SlowClusterOperator",
      "waiting on co-timeout, co-bar-timeout over 30 minutes and machine-config over 90 minutes which is longer than expected",
    ],
    unfiltered: ["True", "ClusterOperatorsUpdating", "some-message"],
  },
  {
    name: "an operator never waited on is not slow",
    failure: updating(["co-unknown"]),
    failing: ["False", "", ""],
    unfiltered: ["True", "ClusterOperatorsUpdating", "some-message"],
  },
] as const) {
  test(`Failing condition: ${tc.name}`, () => {
    const started = "started" in tc ? tc.started : STARTED;
    const updating = derive(tc.failure, { started });
    assert.deepEqual(show(find(updating, "Failing")), tc.failing, "while updating");
    if ("progressing" in tc) assert.deepEqual(show(find(updating, "Progressing")), tc.progressing);
    assert.deepEqual(show(find(derive(tc.failure, { started, reconciling: true }), "Failing")), tc.unfiltered, "while reconciling");
    assert.deepEqual(show(find(derive(tc.failure, { started, history: [] }), "Failing")), tc.unfiltered, "with no history");
  });
}

test("a leftover ImplicitlyEnabled condition is removed; ImplicitlyEnabledCapabilities is kept", () => {
  const leftover: Condition = { type: "ImplicitlyEnabled", status: "True", reason: "CapabilitiesImplicitlyEnabled", message: "old", lastTransitionTime: NOW };
  const ws: SyncWorkerStatus = { ...EMPTY_STATUS, actual: { version: "1.2.3", image: "img", url: "", channels: [] } };
  const conditions = deriveConditions([leftover], ws, HISTORY, NOW, () => undefined);
  assert.equal(find(conditions, "ImplicitlyEnabled"), undefined);
  assert.deepEqual(show(find(conditions, "ImplicitlyEnabledCapabilities")), ["False", "AsExpected", "Capabilities match configured spec"]);
});
