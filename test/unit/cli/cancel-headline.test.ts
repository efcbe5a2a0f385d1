// What `syncworker cancel` prints: a rollback it started by its releases, whatever its update has reached by the
// answer (paused: not begun, and not in the history yet); a drop by the status message.
import assert from "node:assert/strict";
import { test } from "node:test";
import { SyncWorkerStatus } from "@syncworker/client";
import { cancelHeadline } from "../../../src/cli/headline.js";

type Entry = SyncWorkerStatus["history"][number];

const entry = (version: string, startedAt: number, rollback = false): Entry => ({
  state: "Partial",
  version,
  image: `file:///r/${version}`,
  verified: false,
  startedTime: new Date(startedAt),
  acceptedRisks: "",
  rollback,
});
const status = (message: string, desired: string, history: Entry[], paused = false): SyncWorkerStatus => ({
  ...SyncWorkerStatus.fromPartial({
    message,
    loadPayloadStatus: { step: "PayloadLoaded", update: { version: desired, image: `file:///r/${desired}` } },
    ...(paused ? { pause: { paused: true, pausedBy: "alice", reason: "hold" } } : {}),
  }),
  history,
});

test("a rollback is named from and to, however far its update got", () => {
  for (const message of ["Working towards 1.0.0", "Working towards 1.0.0: 16 of 23 done (69% complete)", "Cluster version is 1.0.0"]) {
    const after = status(message, "1.0.0", [entry("1.0.0", 3_000, true), entry("1.0.1", 2_000), entry("1.0.0", 1_000)]);
    assert.equal(cancelHeadline(after, true), "Rolling back from 1.0.1 to 1.0.0; the history records it as a rollback");
  }
});

test("a rollback accepted while paused: not in the history yet, and it starts on resume", () => {
  const after = status("Working towards 1.0.1: 12 of 74 done; paused by alice", "1.0.0", [entry("1.0.1", 2_000), entry("1.0.0", 1_000)], true);
  assert.equal(cancelHeadline(after, true), "Rolling back from 1.0.1 to 1.0.0; the history records it as a rollback; it starts on resume");
});

test("a drop prints the status message", () => {
  assert.equal(cancelHeadline(status("Cluster version is 1.0.0", "1.0.0", [entry("1.0.0", 1_000)]), false), "Cluster version is 1.0.0");
});
