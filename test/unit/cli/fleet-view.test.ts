import assert from "node:assert/strict";
import { test } from "node:test";
import { MemberState, type MemberView, type RolloutView } from "@syncworker/client";
import { fleetLines } from "../../../src/cli/fleet-watch.js";

const rollout: RolloutView = {
  name: "to-1-1-0",
  observedGeneration: 1,
  phase: "Halted",
  currentStage: "wave",
  stages: [],
  counts: { total: 21, pending: 14, updating: 1, succeeded: 5, failed: 1, unavailable: 0, blocked: 0 },
  conditions: [{ type: "Halted", status: "True", reason: "FailureBudgetExceeded", message: "1 failed or blocked; the budget allows 0" }],
  pinnedImage: "quay.io/example/release@sha256:abc",
  releaseVersion: "1.1.0",
  stageSummary: "canary 1/1 · wave 4/6 · rest 0/14",
};

const member = (name: string, state: MemberState, blocker = ""): MemberView => ({
  member: name,
  stage: "wave",
  state,
  revision: 7,
  generation: 2,
  done: 12,
  total: 23,
  version: "1.0.0",
  blocker,
});

test("the fleet view: phase and stage, the stage counts, members by state, then each member under way or held up with its blocker", () => {
  const members = new Map(
    [
      member("m-00", MemberState.MEMBER_STATE_SUCCEEDED),
      member("m-03", MemberState.MEMBER_STATE_FAILED, "RetrievePayloadFailed: outside --payload-root"),
      member("m-04", MemberState.MEMBER_STATE_UPDATING, "demo-web: waiting for Deployment demo-web/web"),
      member("m-09", MemberState.MEMBER_STATE_PENDING),
    ].map((m) => [m.member, m]),
  );
  const lines = fleetLines(rollout, members, 200);
  assert.deepEqual(lines.slice(0, 4), [
    "to-1-1-0 (1.1.0): Halted, stage wave",
    "stages: canary 1/1 · wave 4/6 · rest 0/14",
    "members: 5 succeeded, 1 updating, 14 pending, 1 failed, 0 unavailable, 0 blocked of 21",
    "halted: 1 failed or blocked; the budget allows 0",
  ]);
  assert.equal(lines.length, 6, "succeeded and pending members are only counted");
  assert.match(lines[4] ?? "", /^ {2}m-04 +wave +updating +12\/23 +demo-web: waiting/);
  assert.match(lines[5] ?? "", /^ {2}m-03 +wave +failed +12\/23 +RetrievePayloadFailed/);
});

test("lines are cut to the terminal's width, and what a member reports cannot move the cursor", () => {
  const members = new Map([["m-01", member("m-01", MemberState.MEMBER_STATE_BLOCKED, `limit \x1b[2Jexceeded ${"x".repeat(200)}`)]]);
  const lines = fleetLines(rollout, members, 60);
  assert.ok(lines.every((l) => l.length <= 60));
  assert.ok(!lines.join("").includes("\x1b"));
});
