// PauseUpdate and ResumeUpdate on real `syncworker serve` processes with the embedded cluster: a pause mid-sync of
// the release holds the pass (done, the applied-task count and every object stay put), resume completes it without
// applying again what was applied before the pause, the CLI pauses and resumes and is refused FAILED_PRECONDITION
// twice over, a pause during an install reads as a paused wait, and a restart while paused comes back paused at
// the same position.
import assert from "node:assert/strict";
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { test } from "node:test";
import { PayloadState, type SyncWorkerStatus } from "@syncworker/client";
import { payloadManifests } from "../harness/cluster-play.js";
import { runCli } from "../harness/cli.js";
import { appliedTasks, pausedGauge, settled, unmanagedClusterOperators } from "../harness/pause-checks.js";
import { tempRelease } from "../harness/payload-gen.js";
import { embeddedObjects, REPO_ROOT, startServer, waitForStatus, type ServerProcess } from "../harness/server.js";

const RELEASE = await tempRelease();
const MAX_WORKERS = 2;

async function serve(stateDir: string): Promise<ServerProcess> {
  return startServer(["--state-dir", stateDir, "--metrics-listen", "127.0.0.1:0", "--max-workers", String(MAX_WORKERS), "--debug-endpoints"]);
}

/** Starts the release in Updating mode (a run level at a time, MAX_WORKERS nodes at once) and pauses it mid-sync. */
async function pauseMidSync(server: ServerProcess): Promise<SyncWorkerStatus> {
  const { manifests } = await payloadManifests(RELEASE);
  await server.client.update({
    generation: 1,
    desired: { image: RELEASE },
    overrides: unmanagedClusterOperators(manifests),
    state: PayloadState.PAYLOAD_STATE_UPDATING,
  });
  await waitForStatus(server.client, (s) => s.done > 0, 60_000);
  const paused = await server.client.pauseUpdate("integration test");
  assert.ok(paused.done < paused.total, `paused mid-sync: ${paused.done} of ${paused.total}`);
  return paused;
}

/** The paused server once the attempts running at the pause finished: its done count and applied tasks. */
async function quiet(server: ServerProcess): Promise<{ done: number; applied: number }> {
  const read = async (): Promise<string> => `${(await server.client.getStatus()).done} ${await appliedTasks(server.metricsAddress)}`;
  const [done, applied] = (await settled(read)).split(" ").map(Number);
  return { done: done!, applied: applied! };
}

async function objectVersions(server: ServerProcess): Promise<string[]> {
  const objects = (await embeddedObjects(server.adminAddress)) as Array<{
    kind: string;
    metadata: { name: string; namespace?: string; resourceVersion?: string };
  }>;
  return objects.map((o) => `${o.kind} ${o.metadata.namespace ?? ""}/${o.metadata.name} ${o.metadata.resourceVersion ?? ""}`).sort();
}

const completed = (s: SyncWorkerStatus): boolean => s.completed >= 1 && !s.failure && s.total > 0;

test("a pause mid-sync of the release holds the pass; resume completes it without applying again what was applied", { timeout: 180_000 }, async () => {
  const server = await serve(await mkdtemp(join(tmpdir(), "syncworker-pause-")));
  try {
    const paused = await pauseMidSync(server);
    assert.equal(paused.pause?.paused, true);
    assert.equal(paused.pause?.reason, "integration test");
    assert.match(paused.pause?.pausedBy ?? "", /127\.0\.0\.1/, "an unauthenticated caller is named by its peer address");
    assert.ok(paused.pause?.pausedAt, "when");

    const held = await quiet(server);
    assert.ok(held.done <= paused.done + MAX_WORKERS, `done ${held.done} moved by at most the ${MAX_WORKERS} tasks in flight at the pause (${paused.done})`);
    const objects = await objectVersions(server);
    await sleep(5_000);
    const status = await server.client.getStatus();
    assert.equal(status.done, held.done, "done stays while paused");
    assert.equal(await appliedTasks(server.metricsAddress), held.applied, "no task applied while paused");
    assert.deepEqual(await objectVersions(server), objects, "no object written while paused");
    assert.match(status.conditions.find((c) => c.type === "Progressing")?.message ?? "", /; paused by .* since .*: integration test$/);
    assert.match(status.message, /paused by/);
    assert.equal(await pausedGauge(server.metricsAddress), 1);

    const again = await runCli(["pause", "--reason", "twice", "--address", server.address]);
    assert.equal(again.code, 1);
    assert.match(again.stderr, /FAILED_PRECONDITION: the update is already paused by .*integration test; resume it first/);

    const resumed = await runCli(["resume", "--address", server.address]);
    assert.equal(resumed.code, 0, resumed.stderr);
    const done = await waitForStatus(server.client, completed, 120_000);
    assert.equal(done.pause, undefined);
    const applied = (await appliedTasks(server.metricsAddress)) - held.applied;
    assert.ok(
      applied > 0 && applied <= done.total - held.done,
      `after resume ${applied} tasks applied, at most the ${done.total - held.done} not done at the pause: none applied again`,
    );
    assert.equal(await pausedGauge(server.metricsAddress), 0);

    const notPaused = await runCli(["resume", "--address", server.address]);
    assert.equal(notPaused.code, 1);
    assert.match(notPaused.stderr, /FAILED_PRECONDITION: the update is not paused/);
    // Paused while reconciling, through the CLI: it prints the status message, which says so.
    const cliPause = await runCli(["pause", "--reason", "after the sync", "--address", server.address]);
    assert.equal(cliPause.code, 0, cliPause.stderr);
    assert.match(cliPause.stdout, /paused by .*: after the sync/);
  } finally {
    assert.equal(await server.stop(), 0);
  }
});

test("paused during an install, pause and status say so, and the install reads as a wait, not a failure", { timeout: 120_000 }, async () => {
  // Operators that take a minute: the install waits on them (upstream reports that as "Unable to apply").
  const server = await startServer(["--operator-delay", "60s"]);
  try {
    await server.client.update({ generation: 1, desired: { image: join(REPO_ROOT, "examples/payloads/demo-1.0.0") } });
    await waitForStatus(server.client, (s) => s.failure?.reason === "ClusterOperatorsNotAvailable", 60_000);
    const paused = await runCli(["pause", "--reason", "freeze", "--address", server.address]);
    assert.equal(paused.code, 0, paused.stderr);
    const waiting =
      /^Installing 1\.0\.0: \d+ of \d+ done \(\d+% complete\), waiting for cluster operators? [\w, -]+ to become available; paused by 127\.0\.0\.1:\d+ since \S+: freeze$/;
    assert.match(paused.stdout.trimEnd(), waiting);
    assert.match(
      (await server.client.getStatus()).message,
      /^Unable to apply 1\.0\.0: .*; paused by .*: freeze$/,
      "the service's own message notes the pause too",
    );
    const status = await runCli(["status", "--address", server.address]);
    assert.match(status.stdout.split("\n")[0] ?? "", waiting);
  } finally {
    assert.equal(await server.stop(), 0);
  }
});

test("a restart while paused comes back paused at the same position, and resume continues from it", { timeout: 180_000 }, async () => {
  const stateDir = await mkdtemp(join(tmpdir(), "syncworker-pause-restart-"));
  const first = await serve(stateDir);
  let before: SyncWorkerStatus;
  try {
    const paused = await pauseMidSync(first);
    await quiet(first);
    before = await first.client.getStatus();
    assert.ok(before.done >= paused.done);
  } finally {
    assert.equal(await first.stop(), 0);
  }

  const second = await serve(stateDir);
  try {
    const status = await second.client.getStatus();
    assert.equal(status.pause?.paused, true, "still paused after the restart");
    assert.equal(status.pause?.pausedBy, before.pause?.pausedBy);
    assert.equal(status.pause?.reason, "integration test");
    assert.equal(status.pause?.updatePending, false, "the saved Update replayed is not a new one");
    assert.equal(status.done, before.done, "at the same position");
    await sleep(3_000);
    assert.equal((await second.client.getStatus()).done, before.done, "and stays there");
    assert.equal(await appliedTasks(second.metricsAddress), 0, "nothing applied while paused after the restart");

    await second.client.resumeUpdate();
    const done = await waitForStatus(second.client, completed, 120_000);
    const applied = await appliedTasks(second.metricsAddress);
    assert.ok(
      applied > 0 && applied <= done.total - before.done,
      `after resume ${applied} tasks applied, at most the ${done.total - before.done} not done before the restart`,
    );
  } finally {
    assert.equal(await second.stop(), 0);
  }
});
