import assert from "node:assert/strict";
import { test } from "node:test";
import { SnapshotStore } from "../../../src/status/index.js";

test("revisions increase by one per publish and snapshots are frozen", () => {
  const store = new SnapshotStore({ n: 0 }, () => 1000);
  assert.equal(store.latest().revision, 1);
  const next = store.publish({ n: 1 });
  assert.equal(next.revision, 2);
  assert.equal(store.latest(), next);
  assert.ok(Object.isFrozen(next.value));
});

test("a watcher gets the current snapshot first, then coalesced changes, never a duplicate", async () => {
  const store = new SnapshotStore({ n: 0 }, () => 0);
  const controller = new AbortController();
  const seen: number[] = [];
  const watch = (async () => {
    for await (const snapshot of store.watch(0, controller.signal)) {
      seen.push(snapshot.value.n);
      if (snapshot.value.n === 3) controller.abort();
      // A slow watcher: by the time it reads again, two publishes happened.
      await new Promise((r) => setTimeout(r, 20));
    }
  })();
  await new Promise((r) => setTimeout(r, 5));
  store.publish({ n: 1 });
  store.publish({ n: 2 });
  await new Promise((r) => setTimeout(r, 5));
  store.publish({ n: 3 });
  await watch;
  assert.deepEqual(seen, [0, 3], "intermediate snapshots coalesce into the latest");
});

test("resuming with since_revision skips what was seen; a future revision counts as stale", async () => {
  const store = new SnapshotStore({ n: 0 }, () => 0);
  store.publish({ n: 1 });
  const controller = new AbortController();
  const first = async (since: number): Promise<number> => {
    for await (const s of store.watch(since, controller.signal)) return s.revision;
    return -1;
  };
  assert.equal(await first(0), 2);
  assert.equal(await first(99), 2, "a resume point from another process gets the current snapshot");
  const pending = first(2);
  store.publish({ n: 2 });
  assert.equal(await pending, 3);
});

test("an aborted watch ends without publishing", async () => {
  const store = new SnapshotStore({ n: 0 }, () => 0);
  const controller = new AbortController();
  const revisions: number[] = [];
  const watch = (async () => {
    for await (const s of store.watch(1, controller.signal)) revisions.push(s.revision);
  })();
  controller.abort();
  await watch;
  assert.deepEqual(revisions, []);
});
