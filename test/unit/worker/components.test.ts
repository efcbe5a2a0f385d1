// Per-component progress: the tracker on its own (fake time), then through the service on a scripted pass.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { Task } from "../../../src/graph/index.js";
import { UpdateError } from "../../../src/core/index.js";
import { ComponentTracker } from "../../../src/worker/components.js";
import type { ComponentProgress, SyncWorkerStatus } from "../../../src/worker/index.js";
import { clusterOperator, configMap, payload, workerHarness } from "../../harness/worker-harness.js";

const ONCE = { durationMs: 0, factor: 1, jitter: 0, steps: 1, capMs: 0 };
const task = (i: number, m: ReturnType<typeof configMap>): Task => new Task(i, 0, m, ONCE);
const updating = (name: string): UpdateError =>
  new UpdateError({
    effect: "None",
    reason: "ClusterOperatorUpdating",
    pluralReason: "ClusterOperatorsUpdating",
    message: `Cluster operator ${name} is updating versions`,
    pluralMessageFormat: "Cluster operators %s are updating versions",
    name,
  });

const brief = (cs: readonly ComponentProgress[]): string[] =>
  cs.map(
    (c) =>
      `${c.runLevel}/${c.component} ${c.state} ${c.done}/${c.total}${c.currentObject ? ` ${c.currentObject}` : ""}${c.waitReason ? ` ${c.waitReason}` : ""}`,
  );

describe("ComponentTracker", () => {
  const manifests = [
    configMap("a", "0000_10_alpha_00_a.yaml"),
    configMap("b", "0000_10_alpha_01_b.yaml"),
    clusterOperator("beta", "1", "0000_20_beta_co.yaml"),
    configMap("x", "x.yaml"),
  ];
  const tasks = manifests.map((m, i) => task(i + 1, m));
  let now = 1000;
  const clock = (): Date => new Date(now);

  test("groups tasks by run level and component in payload order, all pending", () => {
    const t = new ComponentTracker(tasks, [], clock);
    assert.deepEqual(brief(t.components()), ["10/alpha Pending 0/2", "20/beta Pending 0/1", "0/unlabeled Pending 0/1"]);
  });

  test("applying, done and waiting, with times from the clock and done summing the applied tasks", () => {
    const t = new ComponentTracker(tasks, [], clock);
    now = 2000;
    t.started(tasks[0]!);
    assert.deepEqual(brief(t.components())[0], "10/alpha Applying 0/2 configmap/test/a");
    t.applied(tasks[0]!);
    t.started(tasks[1]!);
    now = 3000;
    t.applied(tasks[1]!);
    t.started(tasks[2]!);
    now = 4000;
    t.failed(tasks[2]!, updating("beta"));
    t.skipped(tasks[3]!);
    const [alpha, beta, other] = t.components();
    assert.deepEqual([alpha?.state, alpha?.startedAt?.getTime(), alpha?.finishedAt?.getTime(), alpha?.currentObject], ["Done", 2000, 3000, ""]);
    assert.deepEqual(
      [beta?.state, beta?.waitReason, beta?.waitingSince?.getTime(), beta?.currentObject, beta?.attempts],
      ["Waiting", "ClusterOperatorUpdating", 4000, "clusteroperator/beta", 1],
    );
    assert.deepEqual([other?.state, other?.done], ["Done", 0], "a skipped task finishes its component without counting as done");
    assert.equal(
      t.components().reduce((sum, c) => sum + c.done, 0),
      2,
    );
  });

  test("an error that is not a readiness wait fails the component", () => {
    const t = new ComponentTracker(tasks, [], clock);
    t.started(tasks[0]!);
    t.failed(tasks[0]!, new UpdateError({ reason: "UpdatePayloadResourceInvalid", message: "invalid" }));
    assert.deepEqual(brief(t.components())[0], "10/alpha Failed 0/2 configmap/test/a");
  });

  test("states only move forward: nothing after done takes a component back", () => {
    const t = new ComponentTracker(tasks, [], clock);
    t.started(tasks[2]!);
    t.applied(tasks[2]!);
    const before = t.components();
    t.started(tasks[2]!);
    t.failed(tasks[2]!, updating("beta"));
    assert.equal(t.components(), before, "unchanged, the same array");
    assert.equal(t.components()[1]?.state, "Done");
  });

  test("a wait on the same object carries over from the pass before, with its attempts", () => {
    const first = new ComponentTracker(tasks, [], clock);
    now = 10_000;
    first.started(tasks[2]!);
    first.failed(tasks[2]!, updating("beta"));
    now = 20_000;
    const second = new ComponentTracker(tasks, first.components(), clock);
    second.started(tasks[2]!);
    second.retried(tasks[2]!);
    second.failed(tasks[2]!, updating("beta"));
    const beta = second.components()[1];
    assert.deepEqual([beta?.state, beta?.waitingSince?.getTime(), beta?.attempts, beta?.startedAt?.getTime()], ["Waiting", 10_000, 3, 20_000]);
  });

  test("tasks a resumed pass already applied count as done from the start", () => {
    const t = new ComponentTracker(tasks, [], clock, (tk) => tk.index === 1);
    assert.deepEqual(brief(t.components()).slice(0, 1), ["10/alpha Pending 1/2"]);
  });
});

test("through the service: every status lists each component once, done sums to the status's done, the wait keeps its start", async () => {
  const p = payload("1.0.0", "img", [
    configMap("a", "0000_10_alpha_00_a"),
    configMap("b", "0000_10_alpha_01_b"),
    clusterOperator("co", "1.0.0", "0000_20_beta_co"),
    configMap("c", "0000_30_gamma_c"),
  ]);
  const h = workerHarness({ payloads: [p], reconcileMs: 8000 });
  let checks = 0;
  h.applier.scripts.set("co", (_attempt, mode) => {
    if (mode !== "Precreating" && ++checks < 4) throw updating("co");
  });
  await h.update("img", { state: "Updating" });
  await h.start();
  const waiting = h.statuses.filter((s) => s.components.some((c) => c.state === "Waiting"));
  assert.ok(waiting.length >= 1);
  await h.clock.advance(10_000);
  assert.ok(h.last().completed >= 1);
  const check = (s: SyncWorkerStatus): void => {
    if (s.components.length === 0) return;
    assert.deepEqual(
      s.components.map((c) => c.component),
      ["alpha", "beta", "gamma"],
    );
    assert.equal(
      s.components.reduce((sum, c) => sum + c.done, 0),
      s.done,
    );
  };
  h.statuses.forEach(check);
  const waits = h.statuses.flatMap((s) => s.components.filter((c) => c.state === "Waiting"));
  assert.ok(waits.length >= 2, "the operator is waited on in more than one pass");
  assert.deepEqual(new Set(waits.map((c) => `${c.currentObject} ${c.waitReason} ${c.waitingSince?.getTime()}`)).size, 1, "one wait, started once");
  assert.deepEqual(
    h.last().components.map((c) => c.state),
    ["Done", "Done", "Done"],
  );
  await h.stop();
});
