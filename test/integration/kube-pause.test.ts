// PauseUpdate and ResumeUpdate against the harness's real kube-apiserver: a pause mid-sync of a generated release writes nothing
// (every resourceVersion unchanged, no write counted by the API server) and keeps `done`; a restart while paused (the
// state in its ConfigMap) comes back paused at the same position; resume completes the update without applying again
// what was applied before the pause.
import assert from "node:assert/strict";
import { setTimeout as sleep } from "node:timers/promises";
import type { Manifest } from "../../src/payload/index.js";
import { apiVersionOf, createForeignNamespaces, installMissingKinds, payloadManifests, playOperators, type OperatorPlayer } from "../harness/cluster-play.js";
import { startControlPlane, type ControlPlane } from "../harness/control-plane.js";
import { appliedTasks, settled } from "../harness/pause-checks.js";
import { startServer, waitForStatus, type ServerProcess } from "../harness/server.js";
import { tempRelease } from "../harness/payload-gen.js";
import { tierTests } from "../harness/tiers.js";

const { after, before, test } = tierTests("kube", "tls");

const RELEASE = await tempRelease();
const MAX_WORKERS = 2;
const WRITES = ["APPLY", "PATCH", "POST", "PUT", "DELETE"];

let cp: ControlPlane;
let player: OperatorPlayer | undefined;
let manifests: Manifest[] = [];

before(
  async () => {
    cp = await startControlPlane();
    manifests = (await payloadManifests(RELEASE)).manifests;
    await installMissingKinds(cp.api, manifests);
    await createForeignNamespaces(cp.api, manifests);
    player = playOperators(cp.api, manifests);
  },
  { timeout: 90 * 60_000 },
);

after(async () => {
  await player?.stop();
  await cp?.stop();
});

/** The same namespace each time: a restarted server resumes the state its predecessor saved there. */
function serve(): Promise<ServerProcess> {
  return startServer([
    "--kubeconfig",
    cp.kubeconfig,
    "--namespace",
    "syncworker-pause",
    "--reconcile-interval",
    "60s",
    "--backoff-steps",
    "2",
    "--max-workers",
    String(MAX_WORKERS),
    "--metrics-listen",
    "127.0.0.1:0",
  ]);
}

async function resourceVersions(): Promise<Map<string, string>> {
  const versions = new Map<string, string>();
  for (const m of manifests.filter((m) => m.obj.metadata?.annotations?.["release.openshift.io/delete"] === undefined)) {
    // Mid-sync, a kind whose CRD the payload has not applied yet is not served at all.
    const live = await cp.api.get(apiVersionOf(m), m.gvk.kind, m.obj.metadata?.namespace, m.obj.metadata?.name ?? "").catch(() => undefined);
    versions.set(`${m.gvk.kind} ${m.obj.metadata?.namespace ?? ""}/${m.obj.metadata?.name ?? ""}`, live?.metadata.resourceVersion ?? "missing");
  }
  return versions;
}

/** Object writes the API server counted (its bookkeeping, events and status writes left out). */
async function writes(): Promise<number> {
  let sum = 0;
  for (const [key, count] of await cp.api.requestCounts()) if (WRITES.includes(key.split(" ")[0] ?? "")) sum += count;
  return sum;
}

test("a pause mid-sync writes nothing, survives a restart at the same position, and resume completes it", { timeout: 900_000 }, async () => {
  let server = await serve();
  try {
    // Installed first, so the update paused below runs in Updating mode (a run level at a time) on a cluster that
    // serves every kind it applies: the same payload from another location is another release to update to.
    await server.client.update({ generation: 1, desired: { image: RELEASE } });
    await waitForStatus(server.client, (s) => s.actual?.image === RELEASE && s.completed >= 1 && !s.failure, 400_000);
    const next = await tempRelease();
    await server.client.update({ generation: 2, desired: { image: next } });
    await waitForStatus(server.client, (s) => s.actual?.image === next && s.done > 5, 300_000);
    const paused = await server.client.pauseUpdate("kube integration test");
    assert.ok(paused.done < paused.total, `paused mid-sync: ${paused.done} of ${paused.total}`);
    assert.equal(paused.pause?.reason, "kube integration test");

    // The attempts running at the pause finish; then nothing moves.
    const metrics = server.metricsAddress;
    const read = async (): Promise<string> => `${(await server.client.getStatus()).done} ${await appliedTasks(metrics)} ${await writes()}`;
    const [heldDone, heldApplied] = (await settled(read)).split(" ").map(Number) as [number, number];
    assert.ok(heldDone <= paused.done + MAX_WORKERS, `done ${heldDone} moved by at most the ${MAX_WORKERS} tasks in flight at the pause (${paused.done})`);
    // The test's operator player writes statuses (bumping resourceVersions) while it catches up: it rests meanwhile.
    await player?.stop();
    const versions = await resourceVersions();
    const written = await writes();
    await sleep(5_000);
    assert.equal((await server.client.getStatus()).done, heldDone, "done stays while paused");
    assert.equal(await appliedTasks(metrics), heldApplied, "no task applied while paused");
    assert.equal(await writes(), written, "the API server counted no write while paused");
    const changed = [...(await resourceVersions())].filter(([id, rv]) => versions.get(id) !== rv).map(([id]) => id);
    assert.deepEqual(changed, [], "every resourceVersion unchanged while paused");

    assert.equal(await server.stop(), 0);
    server = await serve();
    const restarted = await server.client.getStatus();
    assert.equal(restarted.pause?.paused, true, "still paused after the restart");
    assert.equal(restarted.pause?.reason, "kube integration test");
    assert.equal(restarted.done, heldDone, "at the same position");
    await sleep(3_000);
    assert.equal(await appliedTasks(server.metricsAddress), 0, "nothing applied while paused after the restart");
    const changedAfterRestart = [...(await resourceVersions())].filter(([id, rv]) => versions.get(id) !== rv).map(([id]) => id);
    assert.deepEqual(changedAfterRestart, [], "no object written by the restarted, paused server");

    player = playOperators(cp.api, manifests);
    await server.client.resumeUpdate();
    const done = await waitForStatus(server.client, (s) => s.actual?.image === next && s.completed >= 1 && !s.failure, 300_000);
    assert.equal(done.pause, undefined);
    const applied = await appliedTasks(server.metricsAddress);
    assert.ok(
      applied > 0 && applied <= done.total - heldDone,
      `after resume ${applied} tasks applied, at most the ${done.total - heldDone} not done at the pause: none applied again`,
    );
  } finally {
    await server.stop();
  }
});
