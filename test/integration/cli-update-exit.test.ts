// `syncworker update` called as a script calls it (issue 22, exit codes): 0 when the service takes the release; 1,
// with one line on stderr naming why, when the request is invalid (INVALID_ARGUMENT), its payload does not load, or
// it is refused at PreconditionChecks (a blast-radius limit, a stale plan digest). The status stays on stdout.
import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { runCli } from "../harness/cli.js";
import { REPO_ROOT, startServer, waitForStatus, type ServerProcess } from "../harness/server.js";

const DEMO_1 = join(REPO_ROOT, "examples/payloads/demo-1.0.0");
const DEMO_2 = join(REPO_ROOT, "examples/payloads/demo-1.1.0");

let server: ServerProcess;
before(async () => (server = await startServer()));
after(async () => assert.equal(await server.stop(), 0));

let generation = 0;
const update = (...args: string[]) => runCli(["update", "--address", server.address, "--generation", String(++generation), ...args]);

/** The one stderr line of a refused update, checked to name `reason` at `step`; its status is still printed. */
function refused(run: { code: number; stdout: string; stderr: string }, reason: string, step: string): string {
  assert.equal(run.code, 1, `exit 1: ${run.stdout.slice(0, 2_000)}`);
  assert.equal((JSON.parse(run.stdout) as { loadPayloadStatus?: { step?: string } }).loadPayloadStatus?.step, step, "the status is printed all the same");
  const lines = run.stderr.trimEnd().split("\n");
  assert.equal(lines.length, 1, run.stderr);
  assert.match(lines[0]!, new RegExp(`^syncworker: the update was not taken: ${reason} at ${step}: `));
  return lines[0]!;
}

test("an update the service takes exits 0", { timeout: 60_000 }, async () => {
  const taken = await update("--image", DEMO_1);
  assert.equal(taken.code, 0, taken.stderr);
  assert.equal(taken.stderr, "");
  await waitForStatus(server.client, (s) => s.actual?.version === "1.0.0" && s.completed >= 1 && !s.failure, 60_000);
});

test("an update whose payload does not load exits 1 naming the payload", { timeout: 60_000 }, async () => {
  const line = refused(await update("--image", "/nonexistent/syncworker/payload"), "UpdatePayloadRetrievalFailed", "RetrievePayload");
  assert.match(line, /nonexistent\/syncworker\/payload/);
});

test("an update refused at PreconditionChecks exits 1 naming the limit or the digests", { timeout: 60_000 }, async () => {
  const limit = refused(await update("--image", DEMO_2, "--max-deletions", "0"), "BlastRadiusExceeded", "PreconditionChecks");
  assert.match(limit, /would delete 1 object, more than the limit of 0 \(max_deletions\)/);
  const stale = `sha256:${"0".repeat(64)}`;
  const mismatch = refused(await update("--image", DEMO_2, "--plan", stale), "PlanDigestMismatch", "PreconditionChecks");
  assert.match(mismatch, new RegExp(`expected plan digest ${stale}, computed sha256:[0-9a-f]{64}`));
});

test("an invalid request exits 1 with the server's INVALID_ARGUMENT", async () => {
  const run = await update("--image", DEMO_2, "--plan", "abc");
  assert.equal(run.code, 1);
  assert.equal(run.stdout, "", "no status: the service took nothing");
  assert.match(run.stderr, /^syncworker: INVALID_ARGUMENT: expected_plan_digest must be a Preview's plan_digest/);
});

test(
  "named risks: one accepted of two still refuses, naming the other; both accepted take the release and the history records them",
  { timeout: 90_000 },
  async () => {
    const stale = `sha256:${"0".repeat(64)}`;
    const checks = ["--max-deletions", "0", "--plan", stale];
    const one = refused(await update("--image", DEMO_2, ...checks, "--accept-risk", "PlanDigest"), "BlastRadiusExceeded", "PreconditionChecks");
    assert.match(one, /to apply it anyway, accept the risk BlastRadius \(accept_risks; --accept-risk in the CLI\)/);

    const both = await update("--image", DEMO_2, ...checks, "--accept-risk", "PlanDigest", "--accept-risk", "BlastRadius");
    assert.equal(both.code, 0, both.stderr);
    const risks = (JSON.parse(both.stdout) as { loadPayloadStatus?: { acceptedRisks?: string } }).loadPayloadStatus?.acceptedRisks ?? "";
    assert.match(risks, /^accepted risk PlanDigest: the plan changed since it was previewed: .*\naccepted risk BlastRadius: the update would delete 1 object/);
    const done = await waitForStatus(server.client, (s) => s.actual?.version === "1.1.0" && s.completed >= 1 && !s.failure, 60_000);
    assert.match(done.history.find((h) => h.version === "1.1.0")?.acceptedRisks ?? "", /accepted risk BlastRadius/);
  },
);

test("an unknown risk name is a usage error (exit 2) listing the names", async () => {
  const run = await update("--image", DEMO_2, "--accept-risk", "Everything");
  assert.equal(run.code, 2);
  assert.match(
    run.stderr,
    /"Everything" is not a risk name; the names are ClusterVersionUpgradeable, Rollback, GiantHop, ImageVerification, BlastRadius, PlanDigest/,
  );
});
