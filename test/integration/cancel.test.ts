// `syncworker cancel` against a `serve` process on the embedded cluster, as a script calls it: an update accepted
// while paused is dropped (exit 0) and the release in effect stays, also across a restart on the same state; once
// applying started, exit 1 naming what was applied; `--rollback` goes back to the last completed release of the same
// minor version (the history says rollback), and is refused across a minor version.
import assert from "node:assert/strict";
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { isComplete, type SyncWorkerStatus } from "@syncworker/client";
import { runCli } from "../harness/cli.js";
import { tempRelease } from "../harness/payload-gen.js";
import { startServer, waitForStatus, type ServerProcess } from "../harness/server.js";

const STATE = await mkdtemp(join(tmpdir(), "syncworker-cancel-"));
const V100 = await tempRelease({ version: "1.0.0", components: 6 });
const V101 = await tempRelease({ version: "1.0.1", variant: "b", components: 6 });
const V110 = await tempRelease({ version: "1.1.0", variant: "b", components: 6 });

let server: ServerProcess;
after(async () => assert.equal(await server.stop(), 0));

/**
 * Operators take 2 s to report, so an update is still mid-apply when the test sees its first manifest applied; the
 * test then holds it there with a pause from its own connection (milliseconds, where a CLI's cold start on a busy
 * machine took long enough for the update to finish), so the cancels meet an update that has started applying.
 */
const serve = (): Promise<ServerProcess> => startServer(["--state-dir", STATE, "--operator-delay", "2s", "--reconcile-interval", "60s"]);
const cli = (...args: string[]) => runCli([...args, "--address", server.address]);
let generation = 0;
const update = (image: string) => cli("update", "--image", image, "--generation", String(++generation));
const completeAt = (image: string) => (s: SyncWorkerStatus) => isComplete(s) && s.actual?.image === image;

test("paused, an accepted update is dropped; the release in effect stays, across a restart too", { timeout: 180_000 }, async () => {
  server = await serve();
  assert.equal((await update(V100)).code, 0);
  await waitForStatus(server.client, completeAt(V100), 120_000);
  assert.equal((await cli("pause", "--reason", "change window")).code, 0);
  assert.equal((await update(V101)).code, 0);

  const cancelled = await cli("cancel");
  assert.equal(cancelled.code, 0, cancelled.stderr);
  const status = await server.client.getStatus();
  assert.equal(status.loadPayloadStatus?.update?.image, V100);
  assert.equal(status.pause?.updatePending, false);
  assert.deepEqual(
    status.history.map((h) => h.image),
    [V100],
  );

  assert.equal(await server.stop(), 0);
  server = await serve();
  const restarted = await server.client.getStatus();
  assert.equal(restarted.loadPayloadStatus?.update?.image, V100, "the restart replays the release in effect");
  assert.equal((await cli("resume")).code, 0);
  const done = await waitForStatus(server.client, completeAt(V100), 120_000);
  assert.equal(done.actual?.version, "1.0.0");
});

/** Updates to `image`, waits for its first manifest applied, and holds it there with a pause. */
async function heldMidApply(image: string): Promise<void> {
  assert.equal((await update(image)).code, 0);
  await waitForStatus(server.client, (s) => s.actual?.image === image && s.done > 0, 60_000);
  await server.client.pauseUpdate("held mid-apply by the test");
}

test("once applying started: exit 1 naming what was applied; --rollback returns to 1.0.0, recorded as a rollback", { timeout: 240_000 }, async () => {
  await heldMidApply(V101);
  const refused = await cli("cancel");
  assert.equal(refused.code, 1);
  assert.match(
    refused.stderr.trim(),
    /^syncworker: FAILED_PRECONDITION: the update to 1\.0\.1 \(.*\) has started applying, \d+ of \d+ manifests \(\d+ of \d+ components done\) applied; it cannot be dropped$/,
  );

  const rolled = await cli("cancel", "--rollback");
  assert.equal(rolled.code, 0, rolled.stderr);
  assert.equal(rolled.stdout, "Rolling back from 1.0.1 to 1.0.0; the history records it as a rollback; it starts on resume\n");
  assert.equal((await cli("resume")).code, 0);
  const done = await waitForStatus(server.client, completeAt(V100), 180_000);
  assert.deepEqual(
    done.history.slice(0, 2).map((h) => `${h.version} ${h.state}${h.rollback ? " rollback" : ""}`),
    ["1.0.0 Completed rollback", "1.0.1 Partial"],
  );
  const shown = await cli("status");
  assert.match(shown.stdout, /Completed 1\.0\.0 .* \(rollback\)/);
});

test("a rollback across a minor version is refused, exit 1 naming why", { timeout: 180_000 }, async () => {
  await heldMidApply(V110);
  const refused = await cli("cancel", "--rollback");
  assert.equal(refused.code, 1);
  assert.match(
    refused.stderr,
    /a rollback from 1\.1\.0 to 1\.0\.0 would leave its minor version, and only a rollback within the same minor version is allowed/,
  );
  assert.equal((await cli("resume")).code, 0);
  await waitForStatus(server.client, completeAt(V110), 120_000);
});
