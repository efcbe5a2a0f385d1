// The lines of `syncworker watch`'s live area, from snapshots at fixed times.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { ComponentState, SyncWorkerStatus, type ComponentProgress } from "@syncworker/client";
import { componentLine, doneLine, formatDuration, liveLines, MAX_ACTIVE_ROWS, overallText } from "../../../src/cli/progress-view.js";

const at = (ms: number): Date => new Date(ms);
const component = (c: Partial<ComponentProgress>): ComponentProgress => ({
  runLevel: 50,
  component: "ingress-operator",
  state: ComponentState.COMPONENT_STATE_APPLYING,
  done: 3,
  total: 17,
  currentObject: "",
  waitReason: "",
  attempts: 1,
  slow: false,
  ...c,
});
const status = (s: Partial<SyncWorkerStatus>): SyncWorkerStatus => ({ ...SyncWorkerStatus.fromPartial({}), ...s });

test("formatDuration", () => {
  assert.deepEqual([0, 999, 42_000, 185_000, 7_620_000].map(formatDuration), ["0s", "0s", "42s", "3m05s", "2h07m"]);
});

describe("overallText", () => {
  const timing = {
    startedAt: at(0),
    elapsed: { seconds: 10, nanos: 0 },
    estimatedRemaining: { seconds: 30, nanos: 0 },
    estimateBasis: "from 2 previous updates",
  };
  const running = status({ done: 5, total: 10, message: "Working towards 2", publishedAt: at(10_000), timing });

  test("elapsed and the estimate count on from the snapshot", () => {
    assert.equal(overallText(running, at(15_000)), "5/10 | elapsed 15s | ETA 25s (from 2 previous updates) | Working towards 2");
  });
  test("an estimate passed by is overdue", () => {
    assert.equal(overallText(running, at(50_000)), "5/10 | elapsed 50s | ETA overdue (from 2 previous updates) | Working towards 2");
  });
  test("no basis, no estimate", () => {
    assert.equal(
      overallText({ ...running, timing: { ...timing, estimatedRemaining: undefined, estimateBasis: "" } }, at(15_000)),
      "5/10 | elapsed 15s | ETA unknown | Working towards 2",
    );
  });
  test("a completed update shows the time it took", () => {
    assert.equal(
      overallText({ ...running, completed: 1, done: 10, message: "Cluster version is 2", timing: { ...timing, estimatedRemaining: undefined } }, at(99_000)),
      "10/10 | elapsed 10s | Cluster version is 2",
    );
  });
});

test("component lines say what a component waits for, why and for how long", () => {
  const waiting = component({
    state: ComponentState.COMPONENT_STATE_WAITING,
    currentObject: "clusteroperator/ingress",
    waitReason: "ClusterOperatorUpdating",
    waitingSince: at(0),
    attempts: 3,
    slow: true,
  });
  assert.equal(
    componentLine(waiting, at(95_000)),
    "  50/ingress-operator 3/17 waiting for 1m35s on clusteroperator/ingress (ClusterOperatorUpdating, attempt 3) SLOW",
  );
  assert.equal(componentLine(component({ runLevel: 5, currentObject: "configmap/ns/a" }), at(0)), "  05/ingress-operator 3/17 applying configmap/ns/a");
  assert.equal(
    componentLine(component({ state: ComponentState.COMPONENT_STATE_FAILED, currentObject: "deployment/ns/d", attempts: 2 }), at(0)),
    "  50/ingress-operator 3/17 failed on deployment/ns/d (attempt 2)",
  );
  assert.equal(
    doneLine(component({ state: ComponentState.COMPONENT_STATE_DONE, done: 17, finishedAt: at(65_000) }), at(5_000)),
    "done 50/ingress-operator 17/17 at +1m00s",
  );
});

test("the live area lists the components in progress, a few of them, and counts the rest", () => {
  const many = Array.from({ length: MAX_ACTIVE_ROWS + 2 }, (_, i) => component({ component: `c${i}`, currentObject: `configmap/ns/${i}` }));
  const lines = liveLines(
    status({
      components: [
        component({ component: "done", state: ComponentState.COMPONENT_STATE_DONE }),
        ...many,
        component({ component: "later", state: ComponentState.COMPONENT_STATE_PENDING }),
      ],
    }),
    at(0),
  );
  assert.equal(lines.length, MAX_ACTIVE_ROWS + 1);
  assert.ok(lines.slice(0, MAX_ACTIVE_ROWS).every((l, i) => l.startsWith(`  50/c${i} `)));
  assert.equal(lines.at(-1), "  … and 2 more in progress");
  const waiting = component({
    component: "stuck",
    state: ComponentState.COMPONENT_STATE_WAITING,
    currentObject: "clusteroperator/x",
    waitReason: "ClusterOperatorNotAvailable",
  });
  assert.match(liveLines(status({ components: [...many, waiting] }), at(0))[0] ?? "", /^ {2}50\/stuck .* waiting on clusteroperator\/x/, "waits come first");
  assert.equal(componentLine(component({ currentObject: "" }), at(0)), "  50/ingress-operator 3/17 applying", "an applying component sent without its details");
});
