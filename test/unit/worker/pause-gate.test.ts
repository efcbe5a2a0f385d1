import assert from "node:assert/strict";
import { test } from "node:test";
import { keptPosition, PauseError, PauseGate } from "../../../src/worker/pause.js";
import { ManualClock, settle } from "../../harness/manual-clock.js";

test("pausing twice and resuming a running gate are PauseErrors naming the state", () => {
  const clock = new ManualClock();
  const gate = new PauseGate(clock);
  assert.throws(
    () => gate.resume(),
    (err: unknown) => err instanceof PauseError && err.reason === "NotPaused" && /not paused/.test(err.message),
  );
  const status = gate.pause("alice", "change freeze");
  assert.deepEqual(status, { pausedBy: "alice", reason: "change freeze", pausedAt: clock.now(), updatePending: false });
  assert.throws(
    () => gate.pause("bob", "again"),
    (err: unknown) => err instanceof PauseError && err.reason === "AlreadyPaused" && err.message.includes("by alice") && err.message.includes("change freeze"),
  );
  gate.resume();
  assert.equal(gate.status, undefined);
});

test("wait holds while paused and lets go on resume or abort", async () => {
  const gate = new PauseGate(new ManualClock());
  let passed = false;
  await gate.wait(new AbortController().signal); // open: at once
  gate.pause("alice", "");
  const held = gate.wait(new AbortController().signal).then(() => (passed = true));
  await settle();
  assert.equal(passed, false, "held while paused");
  gate.resume();
  await held;
  assert.equal(passed, true);

  gate.pause("alice", "");
  const stop = new AbortController();
  const aborted = gate.wait(stop.signal);
  stop.abort();
  await aborted; // resolves; the caller reads signal.aborted
  assert.ok(gate.status, "still paused");
});

test("a waiter released by a resume but re-paused before it ran stays held", async () => {
  const gate = new PauseGate(new ManualClock());
  gate.pause("alice", "");
  let passed = false;
  const held = gate.wait(new AbortController().signal).then(() => (passed = true));
  gate.resume();
  gate.pause("bob", "");
  await settle();
  assert.equal(passed, false);
  gate.resume();
  await held;
  assert.equal(passed, true);
});

test("markUpdatePending is shown while paused and forgotten with the pause", () => {
  const gate = new PauseGate(new ManualClock());
  // A function, so the type checker does not narrow the getter's value across the calls below.
  const pending = (): boolean | undefined => gate.status?.updatePending;
  gate.markUpdatePending();
  assert.equal(pending(), undefined, "no pause, nothing pending");
  gate.pause("alice", "");
  gate.markUpdatePending();
  assert.equal(pending(), true);
  gate.resume();
  gate.pause("alice", "");
  assert.equal(pending(), false);
});

test("activeSleep leaves paused time out: a pass's deadline cannot expire while paused", async () => {
  const clock = new ManualClock();
  const gate = new PauseGate(clock);
  let expired = false;
  void gate.activeSleep(1000, clock, new AbortController().signal).then(() => (expired = true));
  await clock.advance(400);
  gate.pause("alice", "");
  await clock.advance(10_000);
  assert.equal(expired, false, "paused for 10 s of a 1 s deadline: not expired");
  gate.resume();
  await clock.advance(599);
  assert.equal(expired, false, "400 + 599 ms of running time");
  await clock.advance(1);
  assert.equal(expired, true, "expired after 1000 ms of running time");
});

test("activeSleep rejects when its signal aborts, paused or not", async () => {
  const clock = new ManualClock();
  const gate = new PauseGate(clock);
  const stop = new AbortController();
  gate.pause("alice", "");
  const sleeping = gate.activeSleep(1000, clock, stop.signal);
  stop.abort(new Error("done"));
  await assert.rejects(sleeping, /done/);
});

test("a gate built from a saved pause starts closed", async () => {
  const clock = new ManualClock();
  const saved = { pausedBy: "alice", reason: "restart test", pausedAt: new Date(Date.UTC(2025, 0, 1)), updatePending: true };
  const gate = new PauseGate(clock, saved);
  assert.deepEqual(gate.status, saved);
  let passed = false;
  const held = gate.wait(new AbortController().signal).then(() => (passed = true));
  await settle();
  assert.equal(passed, false);
  gate.resume();
  await held;
});

test("keptPosition carries the tasks of the same payload only, as a copy", () => {
  const payload = { release: { image: "/a" }, manifestHash: "h1" };
  const kept = { image: "/a", versionHash: "h1", done: new Set([1, 2]) };
  const same = keptPosition(kept, payload);
  assert.deepEqual([...same.done], [1, 2]);
  same.done.add(3);
  assert.deepEqual([...kept.done], [1, 2], "the kept position is not changed by the new pass");
  assert.equal(keptPosition(kept, { release: { image: "/b" }, manifestHash: "h1" }).done.size, 0, "another image starts afresh");
  assert.equal(keptPosition(kept, { release: { image: "/a" }, manifestHash: "h2" }).done.size, 0, "other manifests start afresh");
  assert.equal(keptPosition(undefined, payload).done.size, 0);
});
