// Per-component progress and the estimate of the time left, from a real `serve` process on the embedded cluster:
// generated release a is installed while its operators take 3 s to report (every ClusterOperator waits), then release b
// updates it with an estimate learned from a, then a comes back with one learned from both.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { isComplete, type SyncWorkerStatus } from "@syncworker/client";
import { assertGrowingWait, checkComponentProgress } from "../harness/component-progress.js";
import { releaseManifests, writeReleases } from "../harness/payload-gen.js";
import { startServer, type ServerProcess } from "../harness/server.js";

let server: ServerProcess;
const { a: RELEASE_A, b: RELEASE_B } = await writeReleases();
/** The ClusterOperator of release a's last run level: waited on after every earlier one, so for a while. */
const LAST_OPERATOR = releaseManifests({ version: "1.0.0" }).filter((m) => m.obj.kind === "ClusterOperator").sort((x, y) => x.file.localeCompare(y.file)).at(-1)!.obj.metadata.name;
before(async () => (server = await startServer(["--operator-delay", "3s"])));
after(async () => assert.equal(await server.stop(), 0, server.stderr()));

/** Updates to `dir` and returns every snapshot from the update's until the release completed. */
async function syncAll(dir: string, generation: number): Promise<SyncWorkerStatus[]> {
  const { revision } = await server.client.getStatus();
  const seen: SyncWorkerStatus[] = [];
  const watching = (async () => {
    for await (const status of server.client.watchStatus({ sinceRevision: revision, signal: AbortSignal.timeout(120_000) })) {
      seen.push(status);
      if (status.generation === generation && isComplete(status) && status.actual?.image === dir) return;
    }
  })();
  await server.client.update({ generation, desired: { version: "", image: dir, force: false } });
  await watching;
  return seen.filter((s) => s.actual?.image === dir);
}

const ms = (d: { seconds: number; nanos: number } | undefined): number => (d ? d.seconds * 1000 + d.nanos / 1e6 : NaN);

test("release a: every component once, forward only, done summing up, and operators waited on for longer each snapshot", { timeout: 150_000 }, async () => {
  const statuses = await syncAll(RELEASE_A, 1);
  const waits = checkComponentProgress(statuses);
  assertGrowingWait(waits, `clusteroperator/${LAST_OPERATOR}`, /^ClusterOperatorNotAvailable$/);
  const last = statuses.at(-1)!;
  assert.ok(last.components.length > 10, `release a has many components: ${last.components.length}`);
  assert.ok(last.components.every((c) => c.finishedAt !== undefined), "the completed pass finished every component");
  assert.equal(last.timing?.estimateBasis, "", "no estimate without a previous update");
  assert.ok(last.timing?.startedAt && ms(last.timing.elapsed) > 3000, `the update took the operators' 3 s at least: ${JSON.stringify(last.timing)}`);
});

/** The first estimate of an update against the time it then took: within 50 %, with the basis it names. */
function assertEstimate(statuses: readonly SyncWorkerStatus[], basis: string): void {
  checkComponentProgress(statuses);
  const first = statuses.find((s) => s.timing?.estimatedRemaining !== undefined);
  assert.ok(first?.timing, "an estimate while the update applies");
  assert.equal(first.timing.estimateBasis, basis);
  const last = statuses.at(-1)!;
  const finishedAt = last.timing!.startedAt!.getTime() + ms(last.timing!.elapsed);
  const actual = finishedAt - first.publishedAt!.getTime();
  const estimate = ms(first.timing.estimatedRemaining);
  assert.ok(Math.abs(estimate - actual) <= 0.5 * actual, `estimate ${estimate} ms against ${actual} ms left (snapshot at +${ms(first.timing.elapsed)} ms)`);
  assert.ok(statuses.filter((s) => s.timing?.estimatedRemaining).length > 1, "the estimate is kept up to date");
}

test("release b, then release a again: estimates learned from the previous updates are within 50 % of the time each took", { timeout: 150_000 }, async () => {
  assertEstimate(await syncAll(RELEASE_B, 2), "from 1 previous update");
  // The second update to the same payload as the first.
  assertEstimate(await syncAll(RELEASE_A, 3), "from 2 previous updates");
});
