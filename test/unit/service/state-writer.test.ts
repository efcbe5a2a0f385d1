import assert from "node:assert/strict";
import { test } from "node:test";
import { StateWriter, type PersistedState, type StateStore } from "../../../src/service/index.js";
import { EMPTY_CLUSTER_VERSION } from "../../../src/status/index.js";
import { EMPTY_STATUS } from "../../../src/worker/index.js";
import { ManualClock, settle } from "../../harness/manual-clock.js";

/** A store whose saves complete when the test says so; it records the revision of each saved state. */
class GatedStore implements StateStore {
  readonly where = "gated";
  readonly saved: number[] = [];
  readonly started: number[] = [];
  #release: Array<(err?: Error) => void> = [];

  async load(): Promise<PersistedState | undefined> {
    return undefined;
  }

  save(state: PersistedState): Promise<void> {
    this.started.push(state.revision.published);
    return new Promise((resolve, reject) => {
      this.#release.push((err) => {
        if (err) return reject(err);
        this.saved.push(state.revision.published);
        resolve();
      });
    });
  }

  /** Completes the oldest save in flight. */
  finish(err?: Error): void {
    this.#release.shift()?.(err);
  }

  get inFlight(): number {
    return this.#release.length;
  }
}

function setup(intervalMs = 1000) {
  const clock = new ManualClock();
  const store = new GatedStore();
  let revision = 0;
  const errors: unknown[] = [];
  const build = (): PersistedState => ({
    writer: "w",
    savedAt: clock.now(),
    revision: { published: revision, reserved: revision },
    spec: undefined,
    status: EMPTY_STATUS,
    clusterVersion: EMPTY_CLUSTER_VERSION,
  });
  const writer = new StateWriter(store, build, clock, intervalMs, (err) => errors.push(err));
  return { clock, store, writer, errors, set: (r: number) => (revision = r) };
}

test("changes between saves coalesce into one save of the latest state, at most one per interval", async () => {
  const { clock, store, writer, set } = setup();
  set(1);
  writer.schedule();
  await settle();
  assert.deepEqual(store.started, [1], "the first change is saved at once");
  for (const r of [2, 3, 4]) {
    set(r);
    writer.schedule();
  }
  store.finish();
  await settle();
  assert.equal(store.inFlight, 0, "no second save before the interval has passed");
  await clock.advance(999);
  assert.equal(store.inFlight, 0);
  await clock.advance(1);
  assert.deepEqual(store.started, [1, 4], "one save, of the latest state");
  store.finish();
  await settle();
  await clock.advance(5000);
  assert.deepEqual(store.started, [1, 4], "nothing more to save");
  writer.stop();
});

test("an urgent change and a flush are saved without waiting for the interval, never two saves at once", async () => {
  const { clock, store, writer, set } = setup();
  set(1);
  writer.schedule();
  await settle();
  set(2);
  const flushed = writer.flush();
  let done = false;
  void flushed.then(() => (done = true));
  await settle();
  assert.equal(store.inFlight, 1, "the flush waits for the save in flight");
  store.finish();
  await settle();
  assert.equal(done, false, "the save in flight began before the flush: it does not count");
  assert.deepEqual(store.started, [1, 2], "the flush's save starts at once, without the interval");
  store.finish();
  await flushed;
  assert.deepEqual(store.saved, [1, 2]);
  assert.equal(clock.pending, 0);
  writer.stop();
});

test("a failed save fails the flush waiting on it and is retried after the interval", async () => {
  const { clock, store, writer, errors, set } = setup();
  set(7);
  const flushed = writer.flush();
  await settle();
  store.finish(new Error("disk full"));
  await assert.rejects(flushed, /disk full/);
  assert.equal(errors.length, 1);
  await clock.advance(1000);
  assert.deepEqual(store.started, [7, 7], "retried");
  store.finish();
  await settle();
  assert.deepEqual(store.saved, [7]);
  writer.stop();
  await assert.rejects(writer.flush(), /stopped/);
});
