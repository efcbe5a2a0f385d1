import assert from "node:assert/strict";
import { test } from "node:test";
import { StateNotSavedError, StateWriter, type DesiredSpec, type PersistedState, type StateStore } from "../../../src/service/index.js";
import { EMPTY_CLUSTER_VERSION } from "../../../src/status/index.js";
import { EMPTY_STATUS } from "../../../src/worker/index.js";
import { ManualClock, settle } from "../../harness/manual-clock.js";

/** A store whose saves complete when the test says so; it records the revision of each saved state. */
class GatedStore implements StateStore {
  readonly where = "gated";
  readonly saved: number[] = [];
  readonly started: number[] = [];
  /** Every state a save was started with. */
  readonly states: PersistedState[] = [];
  #release: Array<(err?: Error) => void> = [];

  async load(): Promise<PersistedState | undefined> {
    return undefined;
  }

  save(state: PersistedState): Promise<void> {
    this.started.push(state.revision.published);
    this.states.push(state);
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

function setup(intervalMs = 1000, onBuild = (): void => undefined) {
  const clock = new ManualClock();
  const store = new GatedStore();
  let revision = 0;
  const errors: unknown[] = [];
  const build = (): PersistedState => (
    onBuild(),
    {
      writer: "w",
      savedAt: clock.now(),
      revision: { published: revision, reserved: revision },
      spec: undefined,
      status: EMPTY_STATUS,
      clusterVersion: EMPTY_CLUSTER_VERSION,
    }
  );
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

test("a flush whose save publishes a held status (another save request) is not left waiting for the interval", async () => {
  // Building the state flushes a throttled status, which schedules a save: that save's state already holds it.
  const built = { writer: undefined as StateWriter | undefined };
  const h = setup(1000, () => built.writer?.schedule());
  const writer = (built.writer = h.writer);
  for (const r of [1, 2, 3]) {
    h.set(r);
    let done = false;
    void writer.flush().then(() => (done = true));
    await settle();
    h.store.finish();
    await settle();
    assert.equal(done, true, `flush ${r} resolved as soon as its save was stored, with no second save after the interval`);
  }
  assert.deepEqual(h.store.started, [1, 2, 3]);
  writer.stop();
});

const spec = (generation: number): DesiredSpec => ({
  generation,
  desired: { version: "", image: `img:${generation}`, force: false },
  overrides: [],
  capabilities: { baselineCapabilitySet: "", additionalEnabledCapabilities: [] },
  state: undefined,
});

test("a commit saves its drafted state first and applies the change only once it is stored", async () => {
  const { store, writer } = setup();
  const applied: number[] = [];
  const committed = writer.commit({ name: "Update", draft: (s) => ({ ...s, spec: spec(5) }), apply: () => (applied.push(5), "taken") });
  await settle();
  assert.equal(store.states[0]?.spec?.generation, 5, "the saved state holds the change");
  assert.deepEqual(applied, [], "not applied while its save is in flight");
  store.finish();
  assert.equal(await committed, "taken");
  assert.deepEqual(applied, [5]);
  writer.stop();
});

test("a commit whose save fails is refused naming the cause, never applied, and the retried save leaves it out", async () => {
  const { clock, store, writer, errors } = setup();
  const applied: number[] = [];
  const committed = writer.commit({ name: "PauseUpdate", draft: (s) => ({ ...s, spec: spec(9) }), apply: () => applied.push(9) });
  await settle();
  store.finish(new Error("state file /s/state.json: cannot be written: ENOSPC"));
  const err = await committed.then(
    () => assert.fail("the commit resolved"),
    (e: unknown) => e,
  );
  assert.ok(err instanceof StateNotSavedError);
  assert.equal(err.change, "PauseUpdate");
  assert.match(err.message, /^PauseUpdate was not applied because its state could not be saved: state file \/s\/state.json: cannot be written: ENOSPC$/);
  assert.deepEqual(applied, []);
  assert.match(String(writer.failure), /ENOSPC/, "the writer reports its last save failed");
  assert.equal(errors.length, 1);
  await clock.advance(1000);
  assert.equal(store.states.length, 2, "retried");
  assert.equal(store.states[1]?.spec, undefined, "the refused change is not in the retried save");
  store.finish();
  await settle();
  assert.equal(writer.failure, undefined, "a save that succeeds clears the failure");
  writer.stop();
});

test("commits saved together apply in order; one whose apply throws is refused with that error", async () => {
  const { store, writer } = setup();
  const order: string[] = [];
  const first = writer.commit({ name: "a", draft: (s) => s, apply: () => order.push("a") });
  await settle();
  const second = writer.commit({ name: "b", draft: (s) => ({ ...s, spec: spec(2) }), apply: () => order.push("b") });
  const third = writer.commit({
    name: "c",
    draft: (s) => ({ ...s, spec: spec(3) }),
    apply: () => {
      throw new Error("refused by the worker");
    },
  });
  store.finish();
  await first;
  await settle();
  assert.equal(store.states[1]?.spec?.generation, 3, "one save holds both later drafts, composed in order");
  store.finish();
  await second;
  await assert.rejects(third, /refused by the worker/);
  assert.deepEqual(order, ["a", "b"]);
  writer.stop();
});
