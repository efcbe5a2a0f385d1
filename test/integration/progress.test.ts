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
const LAST_OPERATOR = releaseManifests({ version: "1.0.0" })
  .filter((m) => m.obj.kind === "ClusterOperator")
  .sort((x, y) => x.file.localeCompare(y.file))
  .at(-1)!.obj.metadata.name;
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

/** Release a's install: what the next updates' estimates learn from. */
let firstUpdate: SyncWorkerStatus[] = [];

test("release a: every component once, forward only, done summing up, and operators waited on for longer each snapshot", { timeout: 150_000 }, async () => {
  const statuses = (firstUpdate = await syncAll(RELEASE_A, 1));
  const waits = checkComponentProgress(statuses);
  assertGrowingWait(waits, `clusteroperator/${LAST_OPERATOR}`, /^ClusterOperatorNotAvailable$/);
  const last = statuses.at(-1)!;
  assert.ok(last.components.length > 10, `release a has many components: ${last.components.length}`);
  assert.ok(
    last.components.every((c) => c.finishedAt !== undefined),
    "the completed pass finished every component",
  );
  assert.equal(last.timing?.estimateBasis, "", "no estimate without a previous update");
  assert.ok(last.timing?.startedAt && ms(last.timing.elapsed) > 3000, `the update took the operators' 3 s at least: ${JSON.stringify(last.timing)}`);
});

/**
 * What the estimate may add up to at most: every component of the previous updates one after another, each for the
 * mean over them of the time from the update's start to the component's finish (more than it ran: a done component
 * reports only when it finished). The estimate sums per run level the slowest component's mean duration, so it is
 * at most this; it may well exceed what an install took, since an install runs every component at once.
 */
function serialMeanMs(previous: readonly SyncWorkerStatus[][]): number {
  const durations = new Map<string, number[]>();
  for (const update of previous) {
    const last = update.at(-1)!;
    const start = last.timing!.startedAt!.getTime();
    for (const c of last.components) {
      const key = `${c.runLevel}/${c.component}`;
      durations.set(key, [...(durations.get(key) ?? []), c.finishedAt!.getTime() - start]);
    }
  }
  return [...durations.values()].reduce((sum, d) => sum + d.reduce((a, b) => a + b, 0) / d.length, 0);
}

/**
 * The estimate of an update learned from the `previous` ones, checked by what it is rather than against the wall
 * clock (which a loaded machine stretches): every estimate names its basis; the first is positive and within
 * {@link serialMeanMs}; it never grows while the update runs (time spent and components finished only take from
 * it); it is gone once complete.
 */
function assertEstimate(statuses: readonly SyncWorkerStatus[], basis: string, previous: readonly SyncWorkerStatus[][]): void {
  checkComponentProgress(statuses);
  const estimated = statuses.filter((s) => s.timing?.estimatedRemaining !== undefined);
  assert.ok(estimated.length > 1, "an estimate while the update applies, kept up to date");
  assert.deepEqual([...new Set(estimated.map((s) => s.timing!.estimateBasis))], [basis]);
  const estimates = estimated.map((s) => ms(s.timing!.estimatedRemaining));
  const most = serialMeanMs(previous);
  assert.ok(estimates[0]! > 0 && estimates[0]! <= most, `first estimate ${estimates[0]} ms within (0, ${most}] ms`);
  estimates.forEach((e, i) => i > 0 && assert.ok(e <= estimates[i - 1]!, `estimate ${i} (${e} ms) does not grow past ${estimates[i - 1]} ms`));
  assert.equal(statuses.at(-1)!.timing?.estimatedRemaining, undefined, "no estimate once complete");
}

test("release b, then release a again: estimates learned from the previous updates, bounded by them and never growing", { timeout: 150_000 }, async () => {
  const b = await syncAll(RELEASE_B, 2);
  assertEstimate(b, "from 1 previous update", [firstUpdate]);
  // The second update to the same payload as the first.
  assertEstimate(await syncAll(RELEASE_A, 3), "from 2 previous updates", [firstUpdate, b]);
});
