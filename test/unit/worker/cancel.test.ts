// CancelUpdate through the service on fake time: an update accepted while paused, or refused, is dropped and the
// release in effect stays (its spec saved back, no history entry of the dropped one, none of its manifests written);
// once applying started it is refused naming what was applied; a rollback goes back to the last completed release
// of the same minor version, recorded in the history, and is refused across minor versions.
import assert from "node:assert/strict";
import { test } from "node:test";
import { CancelUpdateError } from "../../../src/worker/index.js";
import { configMap, payload, workerHarness } from "../../harness/worker-harness.js";

const release = (version: string, image: string, names: string[]) =>
  payload(
    version,
    image,
    names.map((n) => configMap(`${image.slice(1)}-${n}`, `0000_50_demo_${n}.yaml`)),
  );
const P1 = release("1.0.0", "/p1", ["a", "b", "c"]);
const P2 = release("1.0.1", "/p2", ["a", "b", "c", "d"]);
const P3 = release("1.1.0", "/p3", ["a", "b", "c"]);
const TASK_MS = 100;

async function harness() {
  const h = workerHarness({ payloads: [P1, P2, P3], maxWorkers: 1, reconcileMs: 60_000 });
  for (const p of [P1, P2, P3])
    for (const m of p.manifests) h.applier.scripts.set(m.obj.metadata?.name ?? "", (_a, _m, signal) => h.clock.sleep(TASK_MS, signal));
  await h.update("/p1", { state: "Initializing", generation: 1 });
  await h.clock.advance(10 * TASK_MS);
  assert.equal(h.service.latest().value.worker.completed, 1, "1.0.0 is completely applied");
  return {
    ...h,
    worker: () => h.service.latest().value.worker,
    writes: (image: string) => h.applier.calls.filter((c) => c.name.startsWith(image.slice(1))).length,
  };
}

const refusal = (reason: string, message: RegExp) => (err: unknown) => err instanceof CancelUpdateError && err.reason === reason && message.test(err.message);

test("an update accepted while paused is dropped: the release in effect stays, its spec is saved back, nothing of the dropped one is written", async () => {
  const h = await harness();
  await h.service.pause("alice", "change window");
  const pending = await h.update("/p2", { generation: 2 });
  assert.equal(pending.pause?.updatePending, true);

  const { snapshot, rollbackStarted } = await h.service.cancel(false, new AbortController().signal);
  assert.equal(rollbackStarted, false);
  const after = snapshot.value;
  assert.equal(after.worker.actual.image, "/p1");
  assert.equal(after.worker.loadPayloadStatus.update.image, "/p1");
  assert.equal(after.worker.pause?.updatePending, false, "no update is pending any more");
  assert.deepEqual(
    after.clusterVersion.history.map((e) => `${e.state} ${e.image}`),
    ["Completed /p1"],
    "the dropped release never entered the history",
  );
  const saved = await h.state.load();
  assert.equal(saved?.spec?.desired.image, "/p1", "a restart replays the release in effect, not the dropped one");
  assert.equal(saved?.spec?.generation, 2, "at the dropped Update's generation");

  await h.service.resume();
  await h.clock.advance(20 * TASK_MS);
  assert.equal(h.writes("/p2"), 0, "nothing of 1.0.1 was written");
  assert.equal(h.worker().actual.image, "/p1");
  assert.equal(h.worker().failure, undefined);
  await h.stop();
});

test("a refused update is dropped: the release in effect's load status comes back", async () => {
  const h = await harness();
  const refused = await h.update("/nowhere", { generation: 2 });
  assert.equal(refused.loadPayloadStatus.update.image, "/nowhere");
  assert.ok(refused.loadPayloadStatus.failure);
  const after = (await h.service.cancel(false, new AbortController().signal)).snapshot.value.worker;
  assert.equal(after.loadPayloadStatus.update.image, "/p1");
  assert.equal(after.loadPayloadStatus.step, "PayloadLoaded");
  assert.equal(after.loadPayloadStatus.failure, undefined);
  assert.equal((await h.state.load())?.spec?.desired.image, "/p1");
  await h.stop();
});

test("once applying started a cancel is refused naming what was applied; nothing pending is refused too", async () => {
  const h = await harness();
  await assert.rejects(
    h.service.cancel(false, new AbortController().signal),
    refusal("NothingToCancel", /no update is pending: 1\.0\.0 \(\/p1\) is completely applied/),
  );
  await h.update("/p2", { generation: 2 });
  await h.clock.advance(2.5 * TASK_MS);
  await assert.rejects(
    h.service.cancel(false, new AbortController().signal),
    refusal("ApplyStarted", /^the update to 1\.0\.1 \(\/p2\) has started applying, 2 of 4 manifests \(0 of 1 components done\) applied; it cannot be dropped$/),
  );
  await h.clock.advance(10 * TASK_MS);
  assert.equal(h.worker().actual.image, "/p2", "the refused cancel changed nothing");
  assert.ok(h.worker().completed >= 1);
  await h.stop();
});

test("a rollback once applying started goes back to the last completed release, recorded in the history", async () => {
  const h = await harness();
  await h.update("/p2", { generation: 2 });
  await h.clock.advance(2.5 * TASK_MS);
  const { snapshot: rolledBack, rollbackStarted } = await h.service.cancel(true, new AbortController().signal);
  assert.equal(rollbackStarted, true);
  const rolled = rolledBack.value;
  assert.equal(rolled.worker.loadPayloadStatus.update.image, "/p1", "the rollback's Update was taken");
  await h.clock.advance(20 * TASK_MS);
  const done = h.service.latest().value;
  assert.equal(done.worker.actual.image, "/p1");
  assert.ok(done.worker.completed >= 1);
  assert.deepEqual(
    done.clusterVersion.history.map((e) => `${e.state} ${e.image}${e.rollback ? " rollback" : ""}`),
    ["Completed /p1 rollback", "Partial /p2", "Completed /p1"],
  );
  await h.stop();
});

test("a rollback across a minor version, or with no completed release, is refused", async () => {
  const h = await harness();
  await h.update("/p3", { generation: 2 });
  await h.clock.advance(2.5 * TASK_MS);
  await assert.rejects(
    h.service.cancel(true, new AbortController().signal),
    refusal(
      "RollbackAcrossMinor",
      /has started applying.*; a rollback from 1\.1\.0 to 1\.0\.0 would leave its minor version, and only a rollback within the same minor version is allowed/,
    ),
  );
  await h.stop();

  const first = workerHarness({ payloads: [P1], maxWorkers: 1, reconcileMs: 60_000 });
  for (const m of P1.manifests) first.applier.scripts.set(m.obj.metadata?.name ?? "", (_a, _m, signal) => first.clock.sleep(TASK_MS, signal));
  await first.update("/p1", { state: "Initializing" });
  await first.clock.advance(1.5 * TASK_MS);
  await assert.rejects(first.service.cancel(true, new AbortController().signal), refusal("NoCompletedRelease", /no earlier release was completely applied/));
  await first.stop();
});
