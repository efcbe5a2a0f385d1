// PauseUpdate and ResumeUpdate through the service on fake time: a pause lets the running attempt finish and starts
// nothing (no task, no retry, no reconcile pass, no deadline), resume continues the same pass, an Update while
// paused waits, and a restart while paused comes back paused at the same position.
import assert from "node:assert/strict";
import { test } from "node:test";
import { PauseError } from "../../../src/worker/index.js";
import { MemoryStateStore } from "../../harness/memory-state-store.js";
import { configMap, payload, workerHarness } from "../../harness/worker-harness.js";

const NAMES = ["a", "b", "c", "d", "e", "f"];
/** One component, so one graph node applies the tasks in order, one at a time. */
const P1 = payload(
  "1.0.0",
  "/p1",
  NAMES.map((n) => configMap(n, `0000_50_demo_${n}.yaml`)),
);
const P2 = payload(
  "2.0.0",
  "/p2",
  ["x", "y"].map((n) => configMap(n, `0000_50_demo_${n}.yaml`)),
);
const TASK_MS = 100;
/** Long enough that a pass's deadline (twice this) would expire while paused if paused time counted. */
const RECONCILE_MS = 60_000;

function harness(state?: MemoryStateStore) {
  const h = workerHarness({ payloads: [P1, P2], maxWorkers: 1, reconcileMs: RECONCILE_MS, backoffSteps: 3, ...(state ? { state } : {}) });
  for (const name of [...NAMES, "x", "y"]) h.applier.scripts.set(name, (_attempt, _mode, signal) => h.clock.sleep(TASK_MS, signal));
  return h;
}

const callsOf = (h: ReturnType<typeof harness>, name: string): number => h.applier.calls.filter((c) => c.name === name).length;
const worker = (h: ReturnType<typeof harness>) => h.service.latest().value.worker;

test("a pause mid-pass lets the running task finish, starts nothing, and resume completes the pass applying each task once", async () => {
  const h = harness();
  await h.update("/p1", { state: "Updating" });
  await h.clock.advance(2.5 * TASK_MS); // a and b applied, c running
  const atPause = worker(h).done;
  assert.equal(atPause, 2);
  const inFlight = h.applier.running.size;
  assert.equal(inFlight, 1);

  const paused = (await h.service.pause("alice", "change freeze")).value;
  assert.equal(paused.worker.pause?.pausedBy, "alice");
  assert.equal(paused.worker.pause?.reason, "change freeze");
  assert.equal(paused.worker.pause?.pausedAt.getTime(), h.clock.now().getTime());
  const callsAtPause = h.applier.calls.length;

  // Ten minutes: five times the pass's deadline.
  await h.clock.advance(10 * RECONCILE_MS);
  assert.equal(h.applier.calls.length, callsAtPause, "no task started while paused");
  assert.equal(h.applier.running.size, 0, "the running attempt finished");
  const held = worker(h);
  assert.ok(held.done <= atPause + inFlight, `done ${held.done} moved by at most the tasks in flight`);
  assert.equal(held.done, 3, "the finished attempt is counted");
  assert.equal(held.failure, undefined, "the deadline did not expire while paused");
  assert.match(h.condition("Progressing")?.message ?? "", /3 of 6 done.*; paused by alice since .*: change freeze/);
  assert.match(h.service.latest().value.clusterVersion.message, /paused by alice/);

  const resumed = (await h.service.resume()).value.worker;
  assert.equal(resumed.pause, undefined);
  await h.clock.advance(10 * TASK_MS);
  const after = worker(h);
  assert.equal(after.completed, 1, "the pass completed");
  assert.equal(after.failure, undefined);
  assert.deepEqual(
    NAMES.map((n) => callsOf(h, n)),
    NAMES.map(() => 1),
    "every task applied once: resume continued the pass",
  );
  assert.ok(!/paused/.test(h.condition("Progressing")?.message ?? ""), "Progressing no longer says paused");
  await h.stop();
});

test("pausing twice and resuming when not paused are refused with a PauseError", async () => {
  const h = harness();
  await h.update("/p1", { state: "Updating" });
  await assert.rejects(h.service.resume(), (err: unknown) => err instanceof PauseError && err.reason === "NotPaused");
  await h.service.pause("alice", "first");
  await assert.rejects(
    h.service.pause("bob", "second"),
    (err: unknown) => err instanceof PauseError && err.reason === "AlreadyPaused" && /already paused by alice/.test(err.message),
  );
  assert.equal(worker(h).pause?.pausedBy, "alice", "the first pause stands");
  await h.service.resume();
  await assert.rejects(h.service.resume(), (err: unknown) => err instanceof PauseError && err.reason === "NotPaused");
  await h.stop();
});

test("a task's retries wait for resume: the failed attempt is not followed by another while paused", async () => {
  const h = harness();
  h.applier.scripts.set("b", async (attempt, _mode, signal) => {
    await h.clock.sleep(TASK_MS, signal);
    if (attempt === 1) throw new Error("transient");
  });
  await h.update("/p1", { state: "Updating" });
  await h.clock.advance(2 * TASK_MS + 10); // b's first attempt failed; its backoff (100 ms) runs
  assert.equal(callsOf(h, "b"), 1);
  await h.service.pause("alice", "");
  await h.clock.advance(10 * RECONCILE_MS);
  assert.equal(callsOf(h, "b"), 1, "no retry while paused");
  await h.service.resume();
  await h.clock.advance(10 * TASK_MS);
  assert.equal(callsOf(h, "b"), 2, "the retry ran after resume");
  assert.equal(worker(h).completed, 1);
  await h.stop();
});

test("reconcile passes wait while paused and run again after resume", async () => {
  const h = harness();
  await h.update("/p1", { state: "Updating" });
  await h.clock.advance(10 * TASK_MS);
  assert.equal(worker(h).completed, 1);
  await h.service.pause("alice", "no reconciles please");
  const calls = h.applier.calls.length;
  await h.clock.advance(5 * RECONCILE_MS);
  h.service.notify("someone changed something");
  await h.clock.advance(RECONCILE_MS);
  assert.equal(h.applier.calls.length, calls, "no reconcile pass while paused");
  await h.service.resume();
  await h.clock.advance(10 * TASK_MS);
  assert.equal(h.applier.calls.length, calls + NAMES.length, "the held reconcile pass ran");
  assert.equal(worker(h).completed, 2);
  await h.stop();
});

test("an Update while paused is accepted, says it is pending, and starts only on resume", async () => {
  const h = harness();
  await h.update("/p1", { state: "Updating" });
  await h.clock.advance(2.5 * TASK_MS);
  await h.service.pause("alice", "hold");
  const accepted = await h.update("/p2", { state: "Updating", generation: 2 });
  assert.equal(accepted.loadPayloadStatus.step, "PayloadLoaded", "the Update is accepted");
  assert.equal(accepted.pause?.updatePending, true);
  await h.clock.advance(10 * RECONCILE_MS);
  assert.equal(callsOf(h, "x") + callsOf(h, "y"), 0, "nothing of the new release applied while paused");
  assert.match(h.condition("Progressing")?.message ?? "", /an Update accepted while paused starts on resume/);

  await h.service.resume();
  await h.clock.advance(10 * TASK_MS);
  const after = worker(h);
  assert.equal(after.pause, undefined);
  assert.equal(after.actual.image, "/p2");
  assert.equal(after.completed, 1);
  assert.deepEqual([callsOf(h, "x"), callsOf(h, "y")], [1, 1]);
  await h.stop();
});

test("a restart while paused comes back paused at the same position, and resume skips the tasks already applied", async () => {
  const state = new MemoryStateStore();
  const first = harness(state);
  await first.update("/p1", { state: "Updating" });
  await first.clock.advance(2.5 * TASK_MS);
  await first.service.pause("alice", "restart me");
  await first.clock.advance(TASK_MS); // the running task finishes
  const before = worker(first);
  assert.equal(before.done, 3);
  await first.stop();

  const second = harness(state);
  await second.start();
  await second.clock.advance(10 * RECONCILE_MS);
  const resumed = worker(second);
  assert.equal(resumed.pause?.pausedBy, "alice", "still paused, by the same caller");
  assert.equal(resumed.pause?.reason, "restart me");
  assert.equal(resumed.pause?.updatePending, false, "the replayed Update is not a new one");
  assert.equal(resumed.done, before.done, "at the same position");
  assert.equal(second.applier.calls.length, 0, "nothing applied while paused after the restart");

  await second.service.resume();
  await second.clock.advance(10 * TASK_MS);
  assert.equal(worker(second).completed, 1);
  assert.equal(worker(second).done, NAMES.length);
  assert.deepEqual(
    second.applier.calls.map((c) => c.name),
    ["d", "e", "f"],
    "only the tasks not applied before the restart",
  );
  await second.stop();
});
