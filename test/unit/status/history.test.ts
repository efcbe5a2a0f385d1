import assert from "node:assert/strict";
import { test } from "node:test";
import { mergeHistory, pruneHistory, type HistoryEntry } from "../../../src/status/index.js";

const t = (n: number) => new Date(n * 1000);

test("history: a new release starts Partial, completes, and the next one closes it", () => {
  let h = mergeHistory([], { version: "1.0.0", image: "img:0" }, false, t(1), false);
  assert.deepEqual(h.map((e) => [e.state, e.version]), [["Partial", "1.0.0"]]);
  h = mergeHistory(h, { version: "1.0.0", image: "img:0" }, true, t(2), true);
  assert.deepEqual([h[0]?.state, h[0]?.completionTime, h[0]?.verified], ["Completed", t(2), true]);
  h = mergeHistory(h, { version: "1.0.1", image: "img:1" }, false, t(3), false);
  assert.deepEqual(h.map((e) => [e.state, e.version, e.completionTime?.getTime()]), [["Partial", "1.0.1", undefined], ["Completed", "1.0.0", 2000]]);
  assert.equal(h[1]?.verified, true, "verified is sticky");
  assert.deepEqual(mergeHistory(h, { version: "", image: "" }, false, t(4), false), []);
});

test("history: the same image adopts a version learned later", () => {
  const h = mergeHistory(mergeHistory([], { version: "", image: "img:0" }, false, t(1), false), { version: "1.0.0", image: "img:0" }, false, t(2), false);
  assert.deepEqual(h.map((e) => [e.version, e.image]), [["1.0.0", "img:0"]]);
});

test("history: pruning keeps the newest five, the oldest and the latest Completed, and respects the limit", () => {
  const entries: HistoryEntry[] = Array.from({ length: 120 }, (_, i) => ({
    state: i % 3 === 0 ? "Completed" : "Partial",
    version: `4.${10 - Math.floor(i / 20)}.${i % 20}`,
    image: `img:${i}`,
    verified: false,
    startedTime: t(1000 - i),
  }));
  const pruned = pruneHistory(entries, 100);
  assert.equal(pruned.length, 100);
  for (const keep of [0, 1, 2, 3, 4, 119]) assert.ok(pruned.includes(entries[keep]!), `entry ${keep} is kept`);
  assert.deepEqual(pruned, entries.filter((e) => pruned.includes(e)), "order is preserved");
});
