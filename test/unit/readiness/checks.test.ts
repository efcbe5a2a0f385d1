import assert from "node:assert/strict";
import { test } from "node:test";
import type { KubeObject } from "../../../src/payload/manifest.js";
import { UpdateError } from "../../../src/core/index.js";
import { checkClusterOperator, checkDeployment, checkJob } from "../../../src/readiness/index.js";

const cond = (type: string, status: string, reason = "", message = "") => ({ type, status, reason, message });
const deployment = (conditions: object[]): KubeObject => ({ kind: "Deployment", metadata: { name: "d", namespace: "ns" }, status: { conditions } });

for (const tc of [
  { name: "no conditions is fine (upstream does not wait)", obj: deployment([]), mode: "Updating", want: undefined },
  { name: "skipped while initializing", obj: deployment([cond("ReplicaFailure", "True")]), mode: "Initializing", want: undefined },
  {
    name: "replica failure",
    obj: deployment([cond("ReplicaFailure", "True", "FailedCreate", "quota")]),
    mode: "Updating",
    want: ["WorkloadNotProgressing", "deployment ns/d has a replica failure FailedCreate: quota"],
  },
  {
    name: "neither available nor progressing",
    obj: deployment([cond("Available", "False", "A", "a"), cond("Progressing", "False", "P", "p")]),
    mode: "Reconciling",
    want: ["WorkloadNotAvailable", "deployment ns/d is not available A (a) or progressing P (p)"],
  },
  {
    name: "progress deadline exceeded",
    obj: deployment([cond("Available", "True"), cond("Progressing", "False", "ProgressDeadlineExceeded", "slow")]),
    mode: "Updating",
    want: ["WorkloadNotProgressing", "deployment ns/d is Progressing=False: ProgressDeadlineExceeded: slow"],
  },
] as const) {
  test(`deployment: ${tc.name}`, () => {
    const result = checkDeployment(tc.obj, tc.mode);
    if (!tc.want) return assert.equal(result, undefined);
    assert.ok(result instanceof UpdateError);
    assert.deepEqual([result.reason, result.message], tc.want);
  });
}

test("job: a failed job is a plain (retried) error with the failure reason", () => {
  const job: KubeObject = {
    kind: "Job",
    metadata: { name: "j" },
    status: { active: 0, failed: 1, conditions: [cond("Failed", "True", "BackoffLimitExceeded", "too many")] },
  };
  const result = checkJob(job, "Updating");
  assert.ok(result && !(result instanceof UpdateError));
  assert.equal(result.message, 'deadline exceeded, reason: "BackoffLimitExceeded", message: "too many"');
  assert.equal(checkJob({ kind: "Job", status: { active: 1 } }, "Updating"), undefined, "a running job does not block");
});

const expected: KubeObject = { kind: "ClusterOperator", metadata: { name: "dns" }, status: { versions: [{ name: "operator", version: "4.16.0" }] } };
const live = (versions: object[], conditions: object[]): KubeObject => ({
  kind: "ClusterOperator",
  metadata: { name: "dns" },
  status: { versions, conditions },
});
const healthy = [cond("Available", "True"), cond("Degraded", "False"), cond("Progressing", "False")];

for (const tc of [
  { name: "done", live: live([{ name: "operator", version: "4.16.0" }], healthy), mode: "Updating", want: undefined },
  {
    name: "no expected versions",
    expected: { ...expected, status: {} },
    live: live([], healthy),
    mode: "Updating",
    want: ["ClusterOperatorNoVersions", "Fail"],
  },
  { name: "not available", live: live([], [cond("Available", "False")]), mode: "Updating", want: ["ClusterOperatorNotAvailable", "Fail"] },
  {
    name: "missing Degraded counts as degraded",
    live: live([], [cond("Available", "True")]),
    mode: "Updating",
    want: ["ClusterOperatorDegraded", "FailAfterInterval"],
  },
  {
    name: "degraded while installing only reports",
    live: live([], [cond("Available", "True"), cond("Degraded", "True")]),
    mode: "Initializing",
    want: ["ClusterOperatorDegraded", "Report"],
  },
  {
    name: "versions behind",
    live: live([{ name: "operator", version: "4.15.0" }], healthy),
    mode: "Updating",
    want: ["ClusterOperatorUpdating", "None"],
    cause: "cluster operator dns is available and not degraded but has not finished updating to target version",
  },
  {
    name: "no live versions",
    live: live([], healthy),
    mode: "Updating",
    want: ["ClusterOperatorUpdating", "None"],
    cause: "cluster operator dns is available and not degraded but has not finished updating to target version",
  },
  {
    name: "degraded without a message names every condition and the undone versions",
    live: live([{ name: "operator", version: "4.15.0" }], [cond("Available", "True"), cond("Degraded", "True")]),
    mode: "Updating",
    want: ["ClusterOperatorDegraded", "FailAfterInterval"],
    cause: "cluster operator dns: available=true, progressing=true, degraded=true, undone=operator from 4.15.0 to 4.16.0",
  },
  { name: "versions behind are tolerated while installing", live: live([], healthy), mode: "Initializing", want: undefined },
] as const) {
  test(`cluster operator: ${tc.name}`, () => {
    const want: KubeObject = "expected" in tc && tc.expected ? tc.expected : expected;
    const result = checkClusterOperator(want, tc.live, tc.mode);
    if (!tc.want) return assert.equal(result, undefined);
    assert.ok(result instanceof UpdateError);
    assert.deepEqual([result.reason, result.effect], tc.want);
    assert.equal(result.objectName, "dns");
    if ("cause" in tc) assert.equal((result.cause as Error).message, tc.cause);
  });
}
