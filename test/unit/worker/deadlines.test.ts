// An update's deadlines on fake time, through the service: a progress deadline fails the update naming what it waits
// on and is cleared by the next manifest applied; on_deadline Pause holds the update at the next task boundary; time
// paused counts toward no deadline; a total deadline fires once and ends with the update; the server's deadlines
// apply where the Update sets none.
import assert from "node:assert/strict";
import { test } from "node:test";
import { UpdateError } from "../../../src/core/index.js";
import { deadlineMessage, NO_METRICS, type MetricsSink, type UpdateDeadlines } from "../../../src/worker/index.js";
import { configMap, payload, workerHarness } from "../../harness/worker-harness.js";

const NAMES = ["a", "b", "c"];
/** One component, so the tasks apply in order, one at a time. */
const P1 = payload(
  "1.0.0",
  "/p1",
  NAMES.map((n) => configMap(n, `0000_50_demo_${n}.yaml`)),
);
const MINUTE = 60_000;
/** Far beyond every deadline here, so a pass is never stopped by its own timeout. */
const RECONCILE_MS = 600 * MINUTE;

/** `b` takes `bMs` (an operator held unavailable), the others 100 ms; records the deadline metrics. */
function harness(bMs: number, deadlines?: UpdateDeadlines) {
  const seen: string[] = [];
  const metrics: MetricsSink = { ...NO_METRICS, deadlineExceeded: (kind, exceeded) => seen.push(`${kind}=${exceeded}`) };
  const h = workerHarness({ payloads: [P1], maxWorkers: 1, reconcileMs: RECONCILE_MS, metrics, ...(deadlines ? { deadlines } : {}) });
  for (const name of NAMES) h.applier.scripts.set(name, (_attempt, _mode, signal) => h.clock.sleep(name === "b" ? bMs : 100, signal));
  return { ...h, seen, worker: () => h.service.latest().value.worker, reason: () => reasonOf(h.service.latest().value.worker.failure) };
}

const reasonOf = (failure: Error | undefined): string | undefined => (failure instanceof UpdateError ? failure.reason : failure?.message);

test("a progress deadline fails the update naming the object it waits on; the next manifest applied clears it", async () => {
  const h = harness(10 * MINUTE);
  await h.update("/p1", { state: "Updating", deadlines: { progressMs: MINUTE, onDeadline: "Fail" } });
  await h.clock.advance(100 + MINUTE - 1);
  assert.equal(h.worker().failure, undefined, "a applied at 100 ms: the minute runs from there");
  await h.clock.advance(1);
  const failure = h.worker().failure;
  assert.equal(reasonOf(failure), "ProgressDeadlineExceeded");
  assert.match(
    failure?.message ?? "",
    /^no manifest was applied for 1m \(progress_deadline\); it waits on configmap\/test\/b of component demo at run level 50 \(attempt 1\)$/,
  );
  assert.equal(h.condition("Failing")?.status, "True");
  assert.equal(h.condition("Failing")?.reason, "ProgressDeadlineExceeded");
  assert.deepEqual(h.seen, ["Progress=true"]);
  assert.equal(h.worker().pause, undefined, "Fail does not pause");

  await h.clock.advance(10 * MINUTE); // b applies, then c
  assert.equal(h.worker().failure, undefined, "cleared by the next manifest applied");
  assert.equal(h.worker().completed, 1);
  assert.deepEqual(h.seen, ["Progress=true", "Progress=false", "Total=false"]);
  await h.stop();
});

test("on_deadline Pause holds the update at the next task boundary; resumed, it completes and the failure clears", async () => {
  const h = harness(3 * MINUTE);
  await h.update("/p1", { state: "Updating", deadlines: { progressMs: MINUTE, onDeadline: "Pause" } });
  await h.clock.advance(100 + MINUTE);
  const paused = h.worker();
  assert.equal(reasonOf(paused.failure), "ProgressDeadlineExceeded");
  assert.equal(paused.pause?.pausedBy, "syncworker");
  assert.equal(paused.pause?.reason, "ProgressDeadlineExceeded (on_deadline PAUSE)");

  await h.clock.advance(10 * MINUTE);
  assert.deepEqual(
    h.applier.calls.map((c) => c.name),
    ["a", "b"],
    "b, running when the deadline passed, finished; c did not start",
  );
  assert.equal(h.worker().done, 2);

  await h.service.resume();
  await h.clock.advance(1_000);
  assert.equal(h.worker().completed, 1);
  assert.equal(h.worker().failure, undefined);
  await h.stop();
});

test("time paused counts toward no deadline", async () => {
  const h = harness(100);
  await h.update("/p1", { state: "Updating", deadlines: { progressMs: MINUTE, totalMs: 2 * MINUTE, onDeadline: "Fail" } });
  await h.service.pause("alice", "change freeze");
  await h.clock.advance(30 * MINUTE);
  assert.equal(h.worker().failure, undefined);
  await h.service.resume();
  await h.clock.advance(1_000);
  assert.equal(h.worker().completed, 1);
  assert.equal(h.worker().failure, undefined);
  assert.deepEqual(h.seen, [], "no deadline passed");
  await h.stop();
});

test("a total deadline fires once, while manifests still apply, and ends when the release completes", async () => {
  const h = harness(2 * MINUTE);
  await h.update("/p1", { state: "Updating", deadlines: { totalMs: MINUTE, progressMs: 5 * MINUTE, onDeadline: "Fail" } });
  await h.clock.advance(MINUTE);
  assert.equal(h.reason(), "TotalDeadlineExceeded");
  assert.match(h.worker().failure?.message ?? "", /^the update did not complete within 1m \(total_deadline\); it waits on .*b/);
  await h.clock.advance(2 * MINUTE);
  assert.equal(h.worker().completed, 1);
  assert.equal(h.worker().failure, undefined, "the update ended: its deadlines with it");
  assert.deepEqual(h.seen, ["Total=true", "Progress=false", "Total=false"]);
  await h.stop();
});

test("the server's deadlines apply where the Update sets none; the Update's own fields take precedence", async () => {
  const server = harness(10 * MINUTE, { progressMs: 5 * MINUTE, onDeadline: "Fail" });
  await server.update("/p1", { state: "Updating" });
  await server.clock.advance(100 + 5 * MINUTE);
  assert.match(server.worker().failure?.message ?? "", /^no manifest was applied for 5m /);
  await server.stop();

  const own = harness(10 * MINUTE, { progressMs: 5 * MINUTE, onDeadline: "Fail" });
  await own.update("/p1", { state: "Updating", deadlines: { progressMs: MINUTE, onDeadline: "Fail" } });
  await own.clock.advance(100 + MINUTE);
  assert.match(own.worker().failure?.message ?? "", /^no manifest was applied for 1m /);
  await own.stop();
});

test("the deadline's words name the first waiting component: its object, reason, since when and attempt", () => {
  const since = new Date(Date.UTC(2026, 0, 1, 12));
  const component = { done: 0, total: 2, currentObject: "", waitReason: "", attempts: 0 };
  const components = [
    { ...component, runLevel: 10, component: "network", state: "Done" as const, done: 2 },
    { ...component, runLevel: 50, component: "console", state: "Applying" as const, currentObject: "deployment/openshift-console/console" },
    {
      ...component,
      runLevel: 50,
      component: "ingress",
      state: "Waiting" as const,
      currentObject: "clusteroperator/ingress",
      waitReason: "ClusterOperatorNotAvailable",
      waitingSince: since,
      attempts: 12,
    },
  ];
  assert.equal(
    deadlineMessage("Progress", 10 * MINUTE, components),
    "no manifest was applied for 10m (progress_deadline); it waits on clusteroperator/ingress of component ingress at run level 50 (ClusterOperatorNotAvailable, since 2026-01-01T12:00:00.000Z, attempt 12)",
  );
  assert.equal(deadlineMessage("Total", 120 * MINUTE, []), "the update did not complete within 2h (total_deadline)");
});
