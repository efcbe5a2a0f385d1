// `syncworker watch`'s paused line: who paused the update, for how long, why, and whether an Update waits.
import assert from "node:assert/strict";
import { test } from "node:test";
import { ComponentState, SyncWorkerStatus } from "@syncworker/client";
import { liveLines, pausedLine } from "../../../src/cli/progress-view.js";

const pause = { paused: true, pausedBy: "alice", reason: "change freeze", pausedAt: new Date(0), updatePending: false };

test("the paused line names who, for how long and why, and a pending Update", () => {
  assert.equal(pausedLine(pause, new Date(185_000)), "  PAUSED by alice for 3m05s: change freeze");
  assert.equal(pausedLine({ ...pause, reason: "", updatePending: true }, new Date(5_000)), "  PAUSED by alice for 5s (an Update waits for resume)");
});

test("the live area leads with the paused line while paused, and has none otherwise", () => {
  const component = {
    runLevel: 50,
    component: "dns",
    state: ComponentState.COMPONENT_STATE_APPLYING,
    done: 1,
    total: 4,
    currentObject: "configmap/x",
    waitReason: "",
    attempts: 1,
    slow: false,
  };
  const running = { ...SyncWorkerStatus.fromPartial({}), components: [component] };
  assert.ok(!liveLines(running, new Date(1_000)).some((l) => l.includes("PAUSED")));
  const lines = liveLines({ ...running, pause }, new Date(1_000));
  assert.equal(lines[0], "  PAUSED by alice for 1s: change freeze");
  assert.equal(lines.length, 2, "the components follow");
});
