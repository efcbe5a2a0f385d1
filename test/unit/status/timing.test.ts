// Update timing: the estimate of the time left, learning component durations, and slow components on fake time.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { UpdateError } from "../../../src/core/index.js";
import type { HistoryEntry } from "../../../src/status/index.js";
import { estimateRemaining, learnDurations, NO_DURATIONS, UpdateTimingTracker, type ComponentTimes } from "../../../src/status/timing.js";
import { EMPTY_STATUS, type ComponentProgress, type SyncWorkerStatus } from "../../../src/worker/index.js";
import { clusterOperator, configMap, payload, workerHarness } from "../../harness/worker-harness.js";

const at = (ms: number): Date => new Date(ms);
const known = learnDurations(
  learnDurations(
    NO_DURATIONS,
    new Map([
      ["10/a", 1000],
      ["20/b", 4000],
      ["20/c", 2000],
    ]),
  ),
  new Map([
    ["10/a", 3000],
    ["20/b", 4000],
  ]),
);

describe("estimateRemaining", () => {
  const cases: Array<{ name: string; components: ComponentTimes[]; now?: number; want: number | undefined }> = [
    {
      name: "stages add up, the longest component of a stage counts",
      components: [
        { key: "10/a", runLevel: 10, finished: false },
        { key: "20/b", runLevel: 20, finished: false },
        { key: "20/c", runLevel: 20, finished: false },
      ],
      want: 2000 + 4000,
    },
    {
      name: "finished components count nothing",
      components: [
        { key: "10/a", runLevel: 10, finished: true },
        { key: "20/b", runLevel: 20, finished: false },
      ],
      want: 4000,
    },
    {
      name: "time already spent is taken off, never below zero",
      components: [
        { key: "10/a", runLevel: 10, finished: false, startedAt: at(0) },
        { key: "20/b", runLevel: 20, finished: false, startedAt: at(0) },
      ],
      now: 3000,
      want: 0 + 1000,
    },
    {
      name: "the same run level apart in graph order is two stages",
      components: [
        { key: "20/c", runLevel: 20, finished: false },
        { key: "10/a", runLevel: 10, finished: false },
        { key: "20/b", runLevel: 20, finished: false },
      ],
      want: 2000 + 2000 + 4000,
    },
    { name: "no basis: no component ever timed", components: [{ key: "30/new", runLevel: 30, finished: false }], want: undefined },
  ];
  for (const tc of cases) {
    test(tc.name, () => assert.equal(estimateRemaining(tc.components, known, at(tc.now ?? 0))?.remainingMs, tc.want));
  }

  test("the basis names how many updates it is learned from", () => {
    assert.equal(estimateRemaining([{ key: "10/a", runLevel: 10, finished: false }], known, at(0))?.basis, "from 2 previous updates");
    const once = learnDurations(NO_DURATIONS, new Map([["10/a", 1]]));
    assert.equal(estimateRemaining([{ key: "10/a", runLevel: 10, finished: false }], once, at(0))?.basis, "from 1 previous update");
  });
});

test("learnDurations keeps the five latest durations of each component", () => {
  let d = NO_DURATIONS;
  for (let i = 1; i <= 7; i++) d = learnDurations(d, new Map([["10/a", i]]));
  assert.deepEqual(d, { updates: 7, byComponent: { "10/a": [3, 4, 5, 6, 7] } });
});

describe("UpdateTimingTracker", () => {
  const component = (c: Partial<ComponentProgress> & Pick<ComponentProgress, "component" | "state">): ComponentProgress => ({
    runLevel: 10,
    done: 0,
    total: 1,
    currentObject: "",
    waitReason: "",
    attempts: 0,
    ...c,
  });
  const status = (image: string, components: ComponentProgress[]): SyncWorkerStatus => ({
    ...EMPTY_STATUS,
    actual: { ...EMPTY_STATUS.actual, image },
    components,
  });
  const entry = (image: string, startedTime: number, completionTime?: number): HistoryEntry => ({
    state: completionTime === undefined ? "Partial" : "Completed",
    version: "1",
    image,
    verified: false,
    startedTime: at(startedTime),
    ...(completionTime === undefined ? {} : { completionTime: at(completionTime) }),
  });

  test("learns each component's first start to first finish once the update completes, then estimates the next one", () => {
    let now = 0;
    const tracker = new UpdateTimingTracker(
      NO_DURATIONS,
      () => at(now),
      () => undefined,
    );
    const first = [entry("one", 0)];
    now = 100;
    const started = tracker.observe(status("one", [component({ component: "a", state: "Applying", startedAt: at(0) })]), first);
    assert.deepEqual(started.timing, { startedAt: at(0), elapsedMs: 100 }, "no estimate without a basis");
    // A later pass starts it again: the first start counts.
    now = 5000;
    tracker.observe(status("one", [component({ component: "a", state: "Done", startedAt: at(4000), finishedAt: at(5000) })]), first);
    now = 6000;
    const done = tracker.observe(status("one", [component({ component: "a", state: "Done", startedAt: at(5500), finishedAt: at(6000) })]), [
      entry("one", 0, 6000),
    ]);
    assert.deepEqual(done.timing, { startedAt: at(0), elapsedMs: 6000 });
    assert.deepEqual(tracker.learned, { updates: 1, byComponent: { "10/a": [5000] } });

    now = 10_000;
    const next = tracker.observe(status("two", [component({ component: "a", state: "Applying", startedAt: at(9000) })]), [
      entry("two", 9000),
      entry("one", 0, 6000),
    ]);
    assert.deepEqual(next.timing, { startedAt: at(9000), elapsedMs: 1000, estimate: { remainingMs: 4000, basis: "from 1 previous update" } });
  });

  test("an update first seen completed (a restart) teaches nothing", () => {
    const tracker = new UpdateTimingTracker(
      NO_DURATIONS,
      () => at(10),
      () => undefined,
    );
    tracker.observe(status("one", [component({ component: "a", state: "Done", startedAt: at(1), finishedAt: at(5) })]), [entry("one", 0, 6)]);
    assert.deepEqual(tracker.learned, NO_DURATIONS);
  });
});

describe("slow components, by the SlowClusterOperator rule, on fake time", () => {
  const MINUTE = 60_000;
  for (const [operator, slowAfter] of [
    ["console", 30],
    ["machine-config", 90],
  ] as const) {
    test(`${operator}: slow after ${slowAfter} minutes, as Failing says`, async () => {
      const h = workerHarness({
        payloads: [payload("1.0.0", "img", [configMap("first", "0000_10_x_a"), clusterOperator(operator, "1.0.0", `0000_20_${operator}_co`)])],
        reconcileMs: 10 * MINUTE,
      });
      h.applier.scripts.set(operator, (_attempt, mode) => {
        if (mode === "Precreating") return;
        h.operatorWait(operator);
        throw new UpdateError({
          effect: "None",
          reason: "ClusterOperatorUpdating",
          pluralReason: "ClusterOperatorsUpdating",
          message: `Cluster operator ${operator} is updating versions`,
          pluralMessageFormat: "Cluster operators %s are updating versions",
          name: operator,
        });
      });
      await h.update("img", { state: "Updating" });
      await h.start();
      const slow = (): readonly string[] | undefined => h.service.latest().value.progress?.slow;
      await h.clock.advance((slowAfter - 1) * MINUTE);
      assert.deepEqual(slow(), []);
      assert.equal(h.condition("Failing")?.status, "False");
      await h.clock.advance(12 * MINUTE);
      assert.deepEqual(slow(), [`20/${operator}`]);
      assert.equal(h.condition("Failing")?.reason, "SlowClusterOperator");
      const waiting = h.last().components.find((c) => c.component === operator);
      assert.deepEqual([waiting?.state, waiting?.waitReason], ["Waiting", "ClusterOperatorUpdating"]);
      await h.stop();
    });
  }
});
