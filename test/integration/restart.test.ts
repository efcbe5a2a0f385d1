// The embedded service survives its process: killed with SIGKILL after a sync and in the middle of one,
// it starts again on the same --state-dir with the desired release, history, completed count, state and
// revisions it had, and an Update whose call returned is never lost. A state file it cannot read stops
// it at start-up, naming the file, and is left as it was.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { once } from "node:events";
import { mkdtemp, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { test } from "node:test";
import type { SyncWorkerStatus } from "@syncworker/client";
import { rawClient, startServer, SYNCWORKER, waitForStatus, type ServerProcess } from "../harness/server.js";
import { writeReleases } from "../harness/payload-gen.js";

// Ten components (about a hundred manifests, 17 workloads and ClusterOperators to wait on), as many waits as real-a
// has: after the restart the embedded cluster is empty and the release is replayed in Reconciling mode, where, as
// upstream, every object not yet ready costs a 10 s task backoff on one of 2 workers inside a pass deadline of twice
// the reconcile interval. The 30-component release (53 such waits) needs minutes for that pass, not a resume bug.
const { a: RELEASE_A, b: RELEASE_B } = await writeReleases(10);
const run = promisify(execFile);

async function kill(server: ServerProcess): Promise<void> {
  const exited = once(server.child, "exit");
  server.child.kill("SIGKILL");
  await exited;
  server.client.close();
}

function update(server: ServerProcess, image: string, generation: number) {
  return server.client.update({ generation, desired: { version: "", image, force: false }, overrides: [], capabilities: undefined, state: 0 });
}

/**
 * Every snapshot of a watch until `predicate` holds, starting after `sinceRevision`. A raw stream: the client's watch
 * drops revisions it has seen, which would hide a duplicate the restarted server sends.
 */
async function watchFrom(
  server: ServerProcess,
  sinceRevision: number,
  predicate: (s: SyncWorkerStatus) => boolean,
  timeoutMs: number,
): Promise<SyncWorkerStatus[]> {
  const client = rawClient(server.address);
  const stream = client.statusWatch({ sinceRevision });
  const seen: SyncWorkerStatus[] = [];
  const timer = setTimeout(() => stream.cancel(), timeoutMs);
  try {
    for await (const response of stream as AsyncIterable<{ status?: SyncWorkerStatus }>) {
      if (!response.status) continue;
      seen.push(response.status);
      if (predicate(response.status)) return seen;
    }
  } catch {
    // cancelled by the timer; reported below
  } finally {
    clearTimeout(timer);
    stream.cancel();
    client.close();
  }
  throw new Error(`no matching status within ${timeoutMs}ms; last: ${JSON.stringify(seen.at(-1))}\n${server.stderr().slice(-4000)}`);
}

const completedAt = (image: string) => (s: SyncWorkerStatus) => s.actual?.image === image && s.completed >= 1 && !s.failure && s.total > 0;

/**
 * Waits until the state file holds what a watcher saw (`what`): a save starts as soon as a status is published but
 * lands a moment later, and a watcher can see the snapshot first (on a loaded machine the SIGKILL beat the save).
 */
type SavedStatus = { completed?: number; actual?: { image?: string } };
async function saved(stateDir: string, what: string, holds: (status: SavedStatus) => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const state = JSON.parse(await readFile(join(stateDir, "state.json"), "utf8").catch(() => "{}")) as { status?: SavedStatus };
    if (state.status && holds(state.status)) return;
    if (Date.now() > deadline) assert.fail(`the state file shows no ${what} after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

test(
  "after SIGKILL the service resumes the completed release: history, completed count, Reconciling, revisions above the old ones",
  { timeout: 240_000 },
  async () => {
    const stateDir = await mkdtemp(join(tmpdir(), "syncworker-restart-"));
    const first = await startServer(["--state-dir", stateDir]);
    await update(first, RELEASE_A, 1);
    const seen = await watchFrom(first, 0, completedAt(RELEASE_A), 120_000);
    const before = seen.at(-1)!;
    // The watch ends on the completing snapshot; later ones (a reconcile pass) would be seen by a resumed watcher.
    await saved(stateDir, "completed pass", (s) => (s.completed ?? 0) >= 1, 30_000);
    const lastSeen = Math.max(...seen.map((s) => s.revision), (await first.client.getStatus()).revision);
    await kill(first);

    const second = await startServer(["--state-dir", stateDir]);
    try {
      const [resumed] = await watchFrom(second, lastSeen, () => true, 10_000);
      assert.ok(resumed);
      assert.ok(resumed.revision > lastSeen, `revision ${resumed.revision} continues above ${lastSeen}: a resumed watch gets no duplicate`);
      assert.equal(resumed.actual?.image, RELEASE_A, "the same desired release");
      assert.equal(resumed.actual?.version, before.actual?.version);
      assert.ok(resumed.completed >= 1, `completed ${resumed.completed} carries on`);
      assert.equal(resumed.reconciling, true, "a completed release resumes Reconciling, not Initializing");
      assert.deepEqual(
        resumed.history.map((h) => [h.state, h.image]),
        [["Completed", RELEASE_A]],
      );
      assert.equal(resumed.conditions.find((c) => c.type === "Available")?.status, "True");
      // The worker replays the release in Reconciling mode and completes a pass on the new, empty embedded cluster.
      const after = await watchFrom(second, resumed.revision, (s) => completedAt(RELEASE_A)(s) && s.reconciling && s.done === s.total, 120_000);
      assert.ok(
        after.every((s) => s.history[0]?.state === "Completed"),
        "the history never goes back to Partial",
      );
      assert.ok(!second.stderr().includes("Initializing"), "no Initializing pass after the restart");
    } finally {
      assert.equal(await second.stop(), 0);
    }
  },
);

test("after SIGKILL mid-sync the accepted Update is not lost and its sync completes", { timeout: 240_000 }, async () => {
  const stateDir = await mkdtemp(join(tmpdir(), "syncworker-restart-"));
  // Slow simulated operators stretch release b's sync over many seconds, so the kill lands inside it.
  const first = await startServer(["--state-dir", stateDir, "--operator-delay", "3s"]);
  await update(first, RELEASE_A, 1);
  await waitForStatus(first.client, completedAt(RELEASE_A), 120_000);
  const response = await update(first, RELEASE_B, 2);
  assert.equal(response.loadPayloadStatus?.step, "PayloadLoaded");
  // Mid-sync of release b: some manifests done, the pass not complete.
  await waitForStatus(first.client, (s) => s.actual?.image === RELEASE_B && s.done > 0 && s.done < s.total, 60_000);
  // A restarted worker shows the release it resumes on until a pass of the saved Update reports.
  await saved(stateDir, "pass of release b", (s) => s.actual?.image === RELEASE_B, 30_000);
  await kill(first);

  // The same slow operators after the restart: a fast pass could complete before the first status is read.
  const second = await startServer(["--state-dir", stateDir, "--operator-delay", "3s"]);
  try {
    const status = await second.client.getStatus();
    assert.equal(status.generation, 2, "the accepted Update's generation");
    assert.equal(status.history[0]?.image, RELEASE_B, "release b is the release being applied");
    assert.equal(status.history[0]?.state, "Partial");
    // The components and timing carry over the restart (saved with the state, shown before the first pass reports).
    assert.ok(
      status.components.some((c) => c.done > 0),
      `components as saved: ${JSON.stringify(status.components.map((c) => [c.component, c.done]))}`,
    );
    assert.ok(status.timing?.startedAt, "the update's timing as saved");
    const done = await waitForStatus(second.client, completedAt(RELEASE_B), 120_000);
    assert.equal(done.generation, 2);
    assert.deepEqual(
      done.history.map((h) => [h.state, h.image]),
      [
        ["Completed", RELEASE_B],
        ["Completed", RELEASE_A],
      ],
    );
  } finally {
    assert.equal(await second.stop(), 0);
  }
});

test("an Update whose call returned survives a SIGKILL right after it", { timeout: 120_000 }, async () => {
  const stateDir = await mkdtemp(join(tmpdir(), "syncworker-restart-"));
  const first = await startServer(["--state-dir", stateDir]);
  await update(first, RELEASE_A, 7);
  await kill(first);
  const second = await startServer(["--state-dir", stateDir]);
  try {
    const done = await waitForStatus(second.client, completedAt(RELEASE_A), 120_000);
    assert.equal(done.generation, 7);
  } finally {
    assert.equal(await second.stop(), 0);
  }
});

test("a corrupt state file stops start-up naming the file, and is left as it was", { timeout: 60_000 }, async () => {
  const cases: Array<[string, string, RegExp]> = [
    ["not JSON", "{ this is not json", /not valid JSON/],
    ["a bad shape", JSON.stringify({ format: "syncworker.state/v1", writer: "x", savedAt: "yesterday" }), /savedAt|revision|spec/],
  ];
  for (const [name, content, detail] of cases) {
    const stateDir = await mkdtemp(join(tmpdir(), "syncworker-corrupt-"));
    const file = join(stateDir, "state.json");
    await writeFile(file, content);
    const result = await run(process.execPath, [...SYNCWORKER, "serve", "--listen", "127.0.0.1:0", "--state-dir", stateDir]).then(
      () => ({ code: 0, stderr: "" }),
      (err: { code: number; stderr: string }) => ({ code: err.code, stderr: err.stderr }),
    );
    assert.notEqual(result.code, 0, `${name}: start-up fails`);
    assert.ok(result.stderr.includes(`state file ${file}`), `${name}: the message names the file: ${result.stderr}`);
    assert.match(result.stderr, detail, name);
    assert.equal(await readFile(file, "utf8"), content, `${name}: nothing overwritten`);
  }
});
