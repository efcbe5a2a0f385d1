// The wire form of components and timing: compact where nothing goes on, details where a person looks.
import assert from "node:assert/strict";
import { test } from "node:test";
import { MAX_DETAILED_APPLYING, toDuration, toProtoComponents, toProtoTiming } from "../../../src/api/convert-progress.js";
import { ComponentState } from "@syncworker/client/gen/syncworker/v1/syncworker";
import type { ComponentProgress } from "../../../src/worker/index.js";

const at = (ms: number): Date => new Date(ms);
const component = (name: string, c: Partial<ComponentProgress>): ComponentProgress => ({
  runLevel: 50,
  component: name,
  state: "Applying",
  done: 1,
  total: 3,
  currentObject: `configmap/ns/${name}`,
  waitReason: "",
  attempts: 1,
  startedAt: at(1000),
  ...c,
});

test("pending and done components are compact; waits, failures and the first applying ones carry their details", () => {
  const applying = Array.from({ length: MAX_DETAILED_APPLYING + 2 }, (_, i) => component(`a${i}`, {}));
  const components = [
    component("pending", { state: "Pending", done: 0, currentObject: "", attempts: 0, startedAt: undefined }),
    component("done", { state: "Done", done: 3, currentObject: "", finishedAt: at(2000) }),
    ...applying,
    component("waits", {
      state: "Waiting",
      currentObject: "clusteroperator/waits",
      waitReason: "ClusterOperatorUpdating",
      waitingSince: at(1500),
      attempts: 4,
    }),
  ];
  const wire = toProtoComponents(components, { slow: ["50/waits"] });
  assert.equal(wire.length, components.length);
  const [pending, done] = wire;
  assert.deepEqual(pending, {
    runLevel: 50,
    component: "pending",
    state: ComponentState.COMPONENT_STATE_PENDING,
    done: 0,
    total: 3,
    currentObject: "",
    waitReason: "",
    waitingSince: undefined,
    attempts: 0,
    startedAt: undefined,
    finishedAt: undefined,
    slow: false,
  });
  assert.deepEqual(
    [done?.state, done?.done, done?.finishedAt, done?.startedAt, done?.attempts],
    [ComponentState.COMPONENT_STATE_DONE, 3, at(2000), undefined, 0],
  );
  const shown = wire.filter((c) => c.currentObject !== "").map((c) => c.component);
  assert.deepEqual(shown, [...applying.slice(0, MAX_DETAILED_APPLYING).map((c) => c.component), "waits"]);
  const waits = wire.at(-1);
  assert.deepEqual([waits?.waitReason, waits?.waitingSince, waits?.attempts, waits?.slow], ["ClusterOperatorUpdating", at(1500), 4, true]);
  assert.equal(
    wire.reduce((sum, c) => sum + c.done, 0),
    components.reduce((sum, c) => sum + c.done, 0),
    "counts are never left out",
  );
});

test("timing: durations, and no estimate without a basis", () => {
  assert.deepEqual(toDuration(61_250), { seconds: 61, nanos: 250_000_000 });
  assert.deepEqual(toProtoTiming({ slow: [], timing: { startedAt: at(0), elapsedMs: 1500 } }), {
    startedAt: at(0),
    elapsed: { seconds: 1, nanos: 500_000_000 },
    estimatedRemaining: undefined,
    estimateBasis: "",
  });
  assert.deepEqual(
    toProtoTiming({ slow: [], timing: { startedAt: at(0), elapsedMs: 0, estimate: { remainingMs: 2000, basis: "from 2 previous updates" } } })
      ?.estimatedRemaining,
    { seconds: 2, nanos: 0 },
  );
  assert.equal(toProtoTiming({ slow: [] }), undefined);
});
