import assert from "node:assert/strict";
import { test } from "node:test";
import { ClusterVersionTracker, percentComplete } from "../../../src/status/index.js";
import { EMPTY_STATUS, type SyncWorkerStatus } from "../../../src/worker/index.js";

const counts = /(\d+) of (\d+) done \((\d+)% complete\)/;

test("the status message and the Progressing condition agree for every done/total from 0/0 to 600/600", () => {
  const now = new Date(Date.UTC(2026, 0, 1));
  const disagreements: string[] = [];
  for (let total = 0; total <= 600; total++) {
    for (let done = 0; done <= total; done++) {
      const tracker = new ClusterVersionTracker(
        () => now,
        () => undefined,
      );
      const status: SyncWorkerStatus = { ...EMPTY_STATUS, done, total, actual: { version: "4.16.0", image: "img", url: "", channels: [] } };
      const view = tracker.observe(status);
      const progressing = view.conditions.find((c) => c.type === "Progressing")?.message ?? "";
      const fromMessage = counts.exec(view.message)?.[0];
      const fromCondition = counts.exec(progressing)?.[0];
      if (fromMessage !== fromCondition) disagreements.push(`${done}/${total}: "${view.message}" vs "${progressing}"`);
      if (disagreements.length > 5) break;
    }
  }
  assert.deepEqual(disagreements, []);
});

test("percentages are computed in 32-bit float as upstream prints them", () => {
  assert.equal(percentComplete(53, 100), 52, "float32(53)/float32(100)*100 = 52.999996");
  assert.equal(percentComplete(1, 2), 50);
  assert.equal(percentComplete(600, 600), 100);
  assert.equal(percentComplete(0, 0), 0);
});
