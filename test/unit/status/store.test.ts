import assert from "node:assert/strict";
import { test } from "node:test";
import { SnapshotStore, type Snapshot } from "../../../src/status/index.js";

/** A store whose fan-out runs only when the test flushes it. */
function manualStore() {
  const pending: Array<() => void> = [];
  const store = new SnapshotStore(
    { n: 0 },
    () => 1000,
    (fn) => pending.push(fn),
  );
  const flush = (): void => {
    while (pending.length > 0) pending.shift()?.();
  };
  return { store, flush };
}

test("revisions increase by one per publish and snapshots are frozen", () => {
  const { store } = manualStore();
  assert.equal(store.latest().revision, 1);
  const next = store.publish({ n: 1 });
  assert.equal(next.revision, 2);
  assert.equal(store.latest(), next);
  assert.ok(Object.isFrozen(next.value));
});

test("a watcher gets the current snapshot at once, then the newest after each delivery completes", () => {
  const { store, flush } = manualStore();
  const delivered: number[] = [];
  let finish: (() => void) | undefined;
  store.subscribe(0, (snapshot, done) => {
    delivered.push(snapshot.value.n);
    finish = done;
  });
  assert.deepEqual(delivered, [0]);
  store.publish({ n: 1 });
  store.publish({ n: 2 });
  flush();
  assert.deepEqual(delivered, [0], "one snapshot in flight at most");
  finish?.();
  assert.deepEqual(delivered, [0, 2], "intermediate snapshots coalesce into the latest");
  finish?.();
  store.publish({ n: 3 });
  flush();
  assert.deepEqual(delivered, [0, 2, 3]);
});

test("publishes in one turn reach an idle watcher once", () => {
  const { store, flush } = manualStore();
  const revisions: number[] = [];
  store.subscribe(1, (snapshot, done) => {
    revisions.push(snapshot.revision);
    done();
  });
  store.publish({ n: 1 });
  store.publish({ n: 2 });
  store.publish({ n: 3 });
  flush();
  assert.deepEqual(revisions, [4]);
});

test("resuming with since_revision skips what was seen; a future revision counts as stale", () => {
  const { store, flush } = manualStore();
  store.publish({ n: 1 });
  const first = (since: number): Snapshot<{ n: number }>[] => {
    const got: Snapshot<{ n: number }>[] = [];
    store.subscribe(since, (s, done) => {
      got.push(s);
      done();
    });
    return got;
  };
  assert.deepEqual(
    first(0).map((s) => s.revision),
    [2],
  );
  assert.deepEqual(
    first(99).map((s) => s.revision),
    [2],
    "a resume point from another process gets the current snapshot",
  );
  const resumed = first(2);
  assert.equal(resumed.length, 0, "nothing twice");
  store.publish({ n: 2 });
  flush();
  assert.deepEqual(
    resumed.map((s) => s.revision),
    [3],
  );
});

test("an unsubscribed watcher receives nothing more", () => {
  const { store, flush } = manualStore();
  const revisions: number[] = [];
  const unsubscribe = store.subscribe(0, (s, done) => {
    revisions.push(s.revision);
    done();
  });
  unsubscribe();
  store.publish({ n: 1 });
  flush();
  assert.deepEqual(revisions, [1]);
  assert.equal(store.watchers, 0);
});
