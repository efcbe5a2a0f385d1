import assert from "node:assert/strict";
import { test } from "node:test";
import { Task } from "../../../src/graph/index.js";
import { UpdateError, type UpdateEffect } from "../../../src/core/index.js";
import { ContextError, condenseClusterOperators, equalDigest, StatusWrapper, summarizeTaskGraphErrors } from "../../../src/worker/index.js";
import { EMPTY_STATUS, type SyncWorkerStatus } from "../../../src/worker/types.js";
import { clusterOperator } from "../../harness/worker-harness.js";

const backoff = { durationMs: 0, factor: 1, jitter: 0, steps: 1, capMs: 0 };
function coError(name: string, reason: string, effect: UpdateEffect = "None"): UpdateError {
  const [pluralReason, format] = {
    ClusterOperatorUpdating: ["ClusterOperatorsUpdating", "Cluster operators %s are updating versions"],
    ClusterOperatorNotAvailable: ["ClusterOperatorsNotAvailable", "Cluster operators %s are not available"],
    ClusterOperatorDegraded: ["ClusterOperatorsDegraded", "Cluster operators %s are degraded"],
  }[reason] ?? ["", ""];
  return new UpdateError({
    reason,
    effect,
    pluralReason,
    pluralMessageFormat: format,
    message: `Cluster operator ${name} ${reason}`,
    name,
    task: new Task(1, 1, clusterOperator(name, "1"), backoff),
  });
}
const notFound = new UpdateError({ reason: "UpdatePayloadResourceNotFound", message: "NotFound" });
const describe = (errs: Error[]) => errs.map((e) => (e instanceof UpdateError ? `${e.reason}:${e.objectName}` : e.message));

for (const tc of [
  {
    name: "other errors pass through first",
    input: [coError("test-co-A", "ClusterOperatorUpdating"), notFound],
    want: ["UpdatePayloadResourceNotFound:", "ClusterOperatorUpdating:test-co-A"],
  },
  {
    name: "groups come out in sorted reason order",
    input: [coError("test-co-B", "ClusterOperatorUpdating"), coError("test-co-A", "ClusterOperatorNotAvailable"), notFound],
    want: ["UpdatePayloadResourceNotFound:", "ClusterOperatorNotAvailable:test-co-A", "ClusterOperatorUpdating:test-co-B"],
  },
  {
    name: "same reason condenses with sorted names",
    input: [coError("test-co-B", "ClusterOperatorUpdating"), coError("test-co-A", "ClusterOperatorUpdating")],
    want: ["ClusterOperatorsUpdating:test-co-A, test-co-B"],
  },
] as const) {
  test(`condense: ${tc.name}`, () => assert.deepEqual(describe(condenseClusterOperators([...tc.input])), tc.want));
}

for (const tc of [
  { effects: ["Fail", "None", "FailAfterInterval"], want: "Fail" },
  { effects: ["None", "FailAfterInterval"], want: "FailAfterInterval" },
  { effects: ["Report", "None"], want: "None" },
  { effects: ["Report", "Report"], want: "Report" },
] as const) {
  test(`condense: the strongest effect wins (${tc.effects.join(", ")} → ${tc.want})`, () => {
    const names = ["test-co-A", "test-co-B", "test-co-C"];
    const [merged] = condenseClusterOperators(tc.effects.map((effect, i) => coError(names[i]!, "ClusterOperatorDegraded", effect)));
    assert.ok(merged instanceof UpdateError);
    assert.equal(merged.effect, tc.want);
    assert.equal(merged.message, `Cluster operators ${names.slice(0, tc.effects.length).join(", ")} are degraded`);
  });
}

test("summarize: only cancellations summarize to nothing; several errors become sorted, de-duplicated MultipleErrors", () => {
  assert.equal(summarizeTaskGraphErrors([new ContextError("update context canceled at 1 of 3", new Error("context canceled"))]), undefined);
  const summary = summarizeTaskGraphErrors([new Error("b"), new Error("a"), new Error("b")]);
  assert.ok(summary instanceof UpdateError);
  assert.equal(summary.reason, "MultipleErrors");
  assert.equal(summary.message, "Multiple errors are preventing progress:\n* a\n* b");
  assert.equal(summarizeTaskGraphErrors([notFound]), notFound);
});

for (const [a, b, want] of [
  ["", "", true],
  ["", "example.com@sha256:1", false],
  ["example.com:latest", "example.com@sha256:1", false],
  ["example.com:latest", "example.com:latest", true],
  ["a.com:latest", "b.com:latest", false],
  ["a.com@sha256:1", "b.com@sha256:1", true],
  ["a.com@sha256:1", "a.com@sha256:2", false],
  ["@sha256:1", "example.com@sha256:1", true],
] as const) {
  test(`equalDigest(${JSON.stringify(a)}, ${JSON.stringify(b)}) = ${want}`, () => assert.equal(equalDigest(a, b), want));
}

function wrapperCase(previous: Partial<SyncWorkerStatus>, next: Partial<SyncWorkerStatus>) {
  const written: SyncWorkerStatus[] = [];
  const sink = { updateApplyStatus: (s: SyncWorkerStatus) => written.push(s), updateLoadStatus: () => undefined };
  new StatusWrapper(sink, { ...EMPTY_STATUS, ...previous }, () => new Date(5)).report({ ...EMPTY_STATUS, ...next });
  return written[0];
}
const image = (i: string) => ({ actual: { version: "", image: i, url: "", channels: [] } });

test("scenario 20: after a failure, a report showing less progress on the same image is dropped", () => {
  assert.equal(wrapperCase({ failure: new Error("a"), ...image("testing"), done: 10, total: 100 }, { ...image("testing") }), undefined);
  assert.ok(wrapperCase({ failure: new Error("a"), ...image("testing"), done: 10, total: 100 }, { ...image("testing2") })?.lastProgress);
  assert.ok(
    wrapperCase({ failure: new Error("a"), ...image("testing"), done: 10, total: 100 }, { failure: new Error("b"), ...image("testing"), done: 20, total: 100 })
      ?.lastProgress,
  );
  assert.ok(wrapperCase({ completed: 1 }, { completed: 2 })?.lastProgress);
  assert.ok(wrapperCase({}, { ...image("testing") })?.lastProgress);
  assert.equal(wrapperCase({ ...image("x"), done: 1, total: 2 }, { ...image("x"), done: 1, total: 2 })?.lastProgress, undefined, "no progress, no stamp");
});

test("scenario 21: generation 0 is filled in; lower generations are kept", () => {
  assert.equal(wrapperCase({ generation: 1 }, { generation: 0 })?.generation, 1);
  assert.equal(wrapperCase({ generation: 1 }, { generation: 2 })?.generation, 2);
  assert.equal(wrapperCase({ generation: 5 }, { generation: 2 })?.generation, 2);
});
