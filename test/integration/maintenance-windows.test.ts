// Maintenance windows and not_before on a `serve` process, through the CLI as a script uses it: an update in a change
// freeze waits and the status says why and until when, nothing applied; `update --not-before` waits the same way and
// a cancel drops it; a window that does not parse stops `serve` naming the flag and the part.
import assert from "node:assert/strict";
import { join } from "node:path";
import { test } from "node:test";
import { runCli } from "../harness/cli.js";
import { isComplete } from "@syncworker/client";
import { REPO_ROOT, startServer, waitForStatus } from "../harness/server.js";

const DEMO_1 = join(REPO_ROOT, "examples/payloads/demo-1.0.0");
const DEMO_2 = join(REPO_ROOT, "examples/payloads/demo-1.1.0");
const settle = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

test("in a change freeze an update waits, the status naming the freeze and when it ends; nothing is applied", { timeout: 120_000 }, async () => {
  // A freeze opening every minute for two: always in force.
  const server = await startServer(["--maintenance-window", "deny * * * * * for 2m in UTC"]);
  try {
    const taken = await runCli(["update", "--image", DEMO_1, "--address", server.address]);
    assert.equal(taken.code, 0, taken.stderr);
    await settle(2_000);
    const status = await server.client.getStatus();
    assert.match(status.maintenance?.reason ?? "", /^in the change freeze "deny \* \* \* \* \* for 2m in UTC" until \d{4}-/);
    assert.equal(status.done, 0, "nothing applied");
    const shown = await runCli(["status", "--address", server.address]);
    assert.match(shown.stdout, /^State: +Waiting: in the change freeze "deny \* \* \* \* \* for 2m in UTC" until .*$/m);
  } finally {
    assert.equal(await server.stop(), 0);
  }
});

test("update --not-before waits, saying until when, and a cancel drops it", { timeout: 120_000 }, async () => {
  const server = await startServer([]);
  try {
    assert.equal((await runCli(["update", "--image", DEMO_1, "--address", server.address])).code, 0);
    await waitForStatus(server.client, (s) => isComplete(s) && s.actual?.image === DEMO_1, 60_000);
    const later = new Date(Date.now() + 3_600_000);
    const instant = later.toISOString().replace(/\.\d{3}Z$/, "Z");
    const taken = await runCli(["update", "--image", DEMO_2, "--generation", "2", "--not-before", instant, "--address", server.address]);
    assert.equal(taken.code, 0, taken.stderr);
    const shown = await runCli(["status", "--address", server.address]);
    assert.match(
      shown.stdout,
      new RegExp(`^State: +Waiting: the update is not to start before ${later.toISOString().replace(/\.\d{3}Z$/, "")}.*, until ${instant}$`, "m"),
    );
    assert.equal((await server.client.getStatus()).actual?.image, DEMO_1, "nothing of 1.1.0 applied");
    const cancelled = await runCli(["cancel", "--address", server.address]);
    assert.equal(cancelled.code, 0, cancelled.stderr);
    const after = await server.client.getStatus();
    assert.equal(after.loadPayloadStatus?.update?.image, DEMO_1);
    assert.equal(after.maintenance, undefined, "the release in effect is not held");
    const bad = await runCli(["update", "--image", DEMO_1, "--not-before", "tomorrow", "--address", server.address]);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /--not-before: "tomorrow" is not an RFC 3339 time/);
  } finally {
    assert.equal(await server.stop(), 0);
  }
});

test("a maintenance window that does not parse stops serve, naming the flag and the part", async () => {
  const run = await runCli(["serve", "--maintenance-window", "allow 0 2 * * SAT for 4h in Atlantis"]);
  assert.equal(run.code, 2);
  assert.match(run.stderr, /--maintenance-window: "allow 0 2 \* \* SAT for 4h in Atlantis": "Atlantis" is not an IANA time zone/);
});
