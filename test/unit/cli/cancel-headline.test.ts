// What `syncworker cancel` prints: a rollback by its history entry, whatever its update has reached by the answer;
// a drop (or an old rollback entry still on top) by the status message.
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
const status = (message: string, ...history: Entry[]): SyncWorkerStatus => ({ ...SyncWorkerStatus.fromPartial({ message }), history });

test("a rollback started by the call is named from and to, however far its update got", () => {
  const before = status("Working towards 1.0.1: 3 of 23 done (13% complete)", entry("1.0.1", 2_000), entry("1.0.0", 1_000));
  for (const message of ["Working towards 1.0.0", "Working towards 1.0.0: 16 of 23 done (69% complete)", "Cluster version is 1.0.0"]) {
    const after = status(message, entry("1.0.0", 3_000, true), entry("1.0.1", 2_000));
    assert.equal(cancelHeadline(before, after), "Rolling back from 1.0.1 to 1.0.0; the history records it as a rollback");
  }
});

test("a drop prints the status message, also when an earlier rollback is still the first entry", () => {
  const rolledBack = entry("1.0.0", 3_000, true);
  const before = status("Cluster version is 1.0.0; paused by alice since …", rolledBack, entry("1.0.1", 2_000));
  const after = status("Cluster version is 1.0.0", rolledBack, entry("1.0.1", 2_000));
  assert.equal(cancelHeadline(before, after), "Cluster version is 1.0.0");
  assert.equal(cancelHeadline(undefined, status("Cluster version is 1.0.0", entry("1.0.0", 1_000))), "Cluster version is 1.0.0");
});
