import assert from "node:assert/strict";
import { test } from "node:test";
import { ClusterVersionTracker, mergeHistory, pruneHistory, type HistoryEntry } from "../../../src/status/index.js";
import { EMPTY_STATUS } from "../../../src/worker/index.js";

const t = (n: number) => new Date(n * 1000);

test("history: a new release starts Partial, completes, and the next one closes it", () => {
  let h = mergeHistory([], { version: "1.0.0", image: "img:0" }, false, t(1), false);
  assert.deepEqual(
    h.map((e) => [e.state, e.version]),
    [["Partial", "1.0.0"]],
  );
  h = mergeHistory(h, { version: "1.0.0", image: "img:0" }, true, t(2), true);
  assert.deepEqual([h[0]?.state, h[0]?.completionTime, h[0]?.verified], ["Completed", t(2), true]);
  h = mergeHistory(h, { version: "1.0.1", image: "img:1" }, false, t(3), false);
  assert.deepEqual(
    h.map((e) => [e.state, e.version, e.completionTime?.getTime()]),
    [
      ["Partial", "1.0.1", undefined],
      ["Completed", "1.0.0", 2000],
    ],
  );
  assert.equal(h[1]?.verified, true, "verified is sticky");
});

test("history: the same image adopts a version learned later", () => {
  const h = mergeHistory(mergeHistory([], { version: "", image: "img:0" }, false, t(1), false), { version: "1.0.0", image: "img:0" }, false, t(2), false);
  assert.deepEqual(
    h.map((e) => [e.version, e.image]),
    [["1.0.0", "img:0"]],
  );
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
  assert.deepEqual(
    pruned,
    entries.filter((e) => pruned.includes(e)),
    "order is preserved",
  );
});

const entry = (version: string, image: string, extra: Partial<HistoryEntry> = {}): HistoryEntry => ({
  state: "Partial",
  version,
  image,
  verified: false,
  startedTime: t(1),
  ...extra,
});

// Every branch of upstream's mergeOperatorHistory and its mergeEqualVersions table (status_test.go).
for (const tc of [
  { name: "a release without an image leaves an empty history empty", history: [], desired: { version: "1.0.0", image: "" }, completed: true, want: [] },
  {
    name: "a release without an image leaves the history alone",
    history: [entry("1.0.0", "img:0", { state: "Completed", completionTime: t(2) })],
    desired: { version: "1.0.1", image: "" },
    completed: false,
    want: [entry("1.0.0", "img:0", { state: "Completed", completionTime: t(2) })],
  },
  {
    name: "empty history, sync not completed: one Partial entry",
    history: [],
    desired: { version: "1.0.0", image: "img:0" },
    completed: false,
    want: [entry("1.0.0", "img:0", { startedTime: t(5) })],
  },
  {
    name: "empty history, sync already completed: one Completed entry",
    history: [],
    desired: { version: "1.0.0", image: "img:0" },
    completed: true,
    want: [entry("1.0.0", "img:0", { state: "Completed", startedTime: t(5), completionTime: t(5) })],
  },
  {
    name: "same image and version merge",
    history: [entry("0.0.1", "test:1")],
    desired: { version: "0.0.1", image: "test:1" },
    completed: false,
    want: [entry("0.0.1", "test:1")],
  },
  {
    name: "same image adopts the version learned later",
    history: [entry("", "test:1")],
    desired: { version: "0.0.1", image: "test:1" },
    completed: false,
    want: [entry("0.0.1", "test:1")],
  },
  {
    name: "same image, desired version unknown, keeps the recorded version",
    history: [entry("0.0.1", "test:1")],
    desired: { version: "", image: "test:1" },
    completed: false,
    want: [entry("0.0.1", "test:1")],
  },
  {
    name: "same version, entry without image, adopts the image",
    history: [entry("0.0.1", "")],
    desired: { version: "0.0.1", image: "test:1" },
    completed: false,
    want: [entry("0.0.1", "test:1")],
  },
  {
    name: "same version, another image, starts a new entry",
    history: [entry("0.0.1", "test:1")],
    desired: { version: "0.0.1", image: "test:2" },
    completed: false,
    want: [entry("0.0.1", "test:2", { startedTime: t(5) }), entry("0.0.1", "test:1", { completionTime: t(5) })],
  },
  {
    name: "same image, another version, starts a new entry",
    history: [entry("0.0.1", "test:1")],
    desired: { version: "0.0.2", image: "test:1" },
    completed: false,
    want: [entry("0.0.2", "test:1", { startedTime: t(5) }), entry("0.0.1", "test:1", { completionTime: t(5) })],
  },
  {
    name: "neither version nor image known on either side: not the same release",
    history: [entry("", "img:a")],
    desired: { version: "", image: "img:b" },
    completed: false,
    want: [entry("", "img:b", { startedTime: t(5) }), entry("", "img:a", { completionTime: t(5) })],
  },
  {
    name: "a completed merge keeps an earlier completion time",
    history: [entry("0.0.1", "test:1", { state: "Completed", completionTime: t(2) })],
    desired: { version: "0.0.1", image: "test:1" },
    completed: true,
    want: [entry("0.0.1", "test:1", { state: "Completed", completionTime: t(2) })],
  },
  {
    name: "a new release that already completed is recorded Completed and closes the previous one",
    history: [entry("0.0.1", "test:1", { completionTime: t(3) })],
    desired: { version: "0.0.2", image: "test:2" },
    completed: true,
    want: [entry("0.0.2", "test:2", { state: "Completed", startedTime: t(5), completionTime: t(5) }), entry("0.0.1", "test:1", { completionTime: t(3) })],
  },
] as const) {
  test(`history merge: ${tc.name}`, () => assert.deepEqual(mergeHistory(tc.history, tc.desired, false, t(5), tc.completed), tc.want));
}

test("history: accepted risks start with a new entry and replace the newest entry's on a merge", () => {
  let h = mergeHistory([], { version: "1.0.0", image: "img:0" }, false, t(1), false, "forced: unverified");
  assert.deepEqual(
    h.map((e) => [e.version, e.acceptedRisks]),
    [["1.0.0", "forced: unverified"]],
  );
  h = mergeHistory(h, { version: "1.0.0", image: "img:0" }, false, t(2), true);
  assert.deepEqual(
    h.map((e) => [e.state, e.acceptedRisks]),
    [["Completed", undefined]],
    "a merge without risks clears them, as upstream overwrites the field",
  );
  h = mergeHistory(h, { version: "1.0.1", image: "img:1" }, false, t(3), true, "warning: y-then-z");
  assert.deepEqual(
    h.map((e) => [e.version, e.acceptedRisks]),
    [
      ["1.0.1", "warning: y-then-z"],
      ["1.0.0", undefined],
    ],
  );
});

test("a cancelled release's Partial entry leaves the history; a completed one, or another release's, stays", () => {
  const release = (version: string) => ({ version, image: `/payloads/${version}`, url: "", channels: [] });
  const tracker = new ClusterVersionTracker(
    () => new Date(0),
    () => undefined,
  );
  tracker.observe({ ...EMPTY_STATUS, actual: release("1.0.0"), completed: 1 });
  tracker.observe({ ...EMPTY_STATUS, actual: release("1.0.1") });
  tracker.forgetPending("/payloads/1.0.0");
  assert.deepEqual(
    tracker.status.history.map((e) => `${e.state} ${e.version}`),
    ["Partial 1.0.1", "Completed 1.0.0"],
    "only the newest entry, for its own image",
  );
  tracker.forgetPending("/payloads/1.0.1");
  assert.deepEqual(
    tracker.status.history.map((e) => `${e.state} ${e.version}`),
    ["Completed 1.0.0"],
  );
  tracker.forgetPending("/payloads/1.0.0");
  assert.equal(tracker.status.history.length, 1, "a completed release is never forgotten");

  tracker.markRollback("/payloads/0.9.9");
  tracker.observe({ ...EMPTY_STATUS, actual: release("0.9.9") });
  tracker.observe({ ...EMPTY_STATUS, actual: release("0.9.9"), completed: 1 });
  assert.deepEqual(
    tracker.status.history.map((e) => `${e.state} ${e.version}${e.rollback ? " rollback" : ""}`),
    ["Completed 0.9.9 rollback", "Completed 1.0.0"],
  );
});
