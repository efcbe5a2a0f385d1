import assert from "node:assert/strict";
import { test } from "node:test";
import { WorkQueue } from "../../../src/fleet/index.js";
import { ManualClock, settle } from "../../harness/manual-clock.js";

test("a key added many times is worked on once; added while worked on, it comes back once after", async () => {
  const queue = new WorkQueue(new ManualClock(), new AbortController().signal);
  queue.add("a");
  queue.add("a");
  queue.add("b");
  assert.equal(queue.length, 2);
  assert.equal(await queue.get(), "a");
  queue.add("a");
  queue.add("a");
  assert.equal(queue.length, 1, "a waits until it is done");
  queue.done("a");
  assert.equal(await queue.get(), "b");
  assert.equal(await queue.get(), "a");
  queue.done("a");
  assert.equal(queue.length, 0);
});

test("failures back off doubling to the cap, and forget starts over", async () => {
  const clock = new ManualClock();
  const queue = new WorkQueue(clock, new AbortController().signal, { baseMs: 100, maxMs: 300 });
  const dueAfter = async (): Promise<number> => {
    queue.addRateLimited("k");
    let waited = 0;
    while (queue.length === 0) {
      await clock.advance(50);
      waited += 50;
      await settle();
    }
    assert.equal(await queue.get(), "k");
    queue.done("k");
    return waited;
  };
  assert.equal(await dueAfter(), 100);
  assert.equal(await dueAfter(), 200);
  assert.equal(await dueAfter(), 300);
  assert.equal(await dueAfter(), 300);
  queue.forget("k");
  assert.equal(await dueAfter(), 100);
});

test("workers waiting for keys all wake, and the abort ends them", async () => {
  const stop = new AbortController();
  const queue = new WorkQueue(new ManualClock(), stop.signal);
  const got = [queue.get(), queue.get()];
  queue.add("x");
  queue.add("y");
  assert.deepEqual((await Promise.all(got)).sort(), ["x", "y"]);
  const waiting = queue.get();
  stop.abort();
  assert.equal(await waiting, undefined);
});
