// Preview, `syncworker diff`, blast-radius limits and plan-bound apply through a real `syncworker serve` process on
// the embedded cluster (the same RPC and seam as on a real cluster: a dry-run apply that stores nothing).
import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { Code, PreviewAction, SyncWorkerError, type ObjectPreview, type PreviewSummary } from "@syncworker/client";
import { runCli } from "../harness/cli.js";
import { violatedField } from "../harness/grpc-errors.js";
import { REPO_ROOT, startServer, waitForStatus, type ServerProcess } from "../harness/server.js";

const DEMO_1 = join(REPO_ROOT, "examples/payloads/demo-1.0.0");
const DEMO_2 = join(REPO_ROOT, "examples/payloads/demo-1.1.0");

let server: ServerProcess;

// A server-wide default limit that any whole-payload change exceeds.
before(async () => (server = await startServer(["--max-changed-percent", "10", "--debug-endpoints"])));
after(async () => server?.stop());

async function preview(image: string): Promise<{ objects: ObjectPreview[]; summary: PreviewSummary }> {
  const objects: ObjectPreview[] = [];
  let summary: PreviewSummary | undefined;
  for await (const r of server.client.preview({ desired: { image } }, { timeoutMs: 60_000 })) {
    if (r.object) objects.push(r.object);
    if (r.summary) summary = r.summary;
  }
  assert.ok(summary, "the stream ends with its summary");
  return { objects, summary };
}

/**
 * Holds the worker (its reconcile passes re-apply every 5 s, and the simulated controllers answer with status
 * writes) and waits until the store stops changing, so a comparison around a preview sees only what it wrote.
 */
async function quiesce(): Promise<string[]> {
  await server.client.pauseUpdate("preview test: nothing else may write");
  let last = await versions();
  for (let i = 0; i < 30; i++) {
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const now = await versions();
    if (now.join() === last.join()) return now;
    last = now;
  }
  assert.fail("the embedded store kept changing for 30 s while the worker was paused");
}

/** `kind/namespace/name@resourceVersion` of every embedded object. */
async function versions(): Promise<string[]> {
  const res = await fetch(`http://${server.adminAddress}/debug/embedded/objects`);
  const objects = (await res.json()) as Array<{ kind: string; metadata: { name: string; namespace?: string; resourceVersion: string } }>;
  return objects.map((o) => `${o.kind}/${o.metadata.namespace ?? ""}/${o.metadata.name}@${o.metadata.resourceVersion}`).sort();
}

test("the first install, forced past the default limit, then a preview of the next release lists its changes and writes nothing", async () => {
  const refused = await server.client.update({ generation: 1, desired: { image: DEMO_1 } });
  assert.equal(refused.loadPayloadStatus?.failure?.reason, "BlastRadiusExceeded", "serve's --max-changed-percent applies to a request without limits");
  assert.match(
    refused.loadPayloadStatus?.failure?.message ?? "",
    /would change \d+ of \d+ objects \(100%\), more than the limit of 10% \(max_changed_percent\)/,
  );
  const forced = await server.client.update({ generation: 1, desired: { image: DEMO_1, force: true } });
  assert.match(forced.loadPayloadStatus?.acceptedRisks ?? "", /forced past blast-radius limits/);
  await waitForStatus(server.client, (s) => s.actual?.version === "1.0.0" && s.completed >= 1 && !s.failure, 60_000);

  const before = await quiesce();
  const { objects, summary } = await preview(DEMO_2);
  const config = objects.find((o) => o.kind === "ConfigMap" && o.name === "config-config");
  assert.equal(config?.action, PreviewAction.PREVIEW_ACTION_CHANGE);
  assert.match(config?.diff ?? "", /^-  release: 1\.0\.0\n\+  release: 1\.1\.0$/m);
  assert.equal(summary.change, objects.filter((o) => o.action === PreviewAction.PREVIEW_ACTION_CHANGE).length, "the summary counts what was streamed");
  assert.equal(summary.release?.version, "1.1.0");
  assert.deepEqual(summary.limitViolations.length, 1, `the default limit is evaluated: ${summary.limitViolations.join("; ")}`);
  assert.deepEqual(await versions(), before, "the preview stored nothing");
  await server.client.resumeUpdate();
  assert.equal((await preview(DEMO_2)).summary.planDigest, summary.planDigest, "the digest is stable while nothing changes");

  const same = await preview(DEMO_1);
  assert.equal(same.summary.create + same.summary.change + same.summary.delete, 0, "the applied release previews as unchanged");
});

test("syncworker diff: 1 with changes, 0 without, 2 on an error", async () => {
  const changes = await runCli(["diff", "--address", server.address, "--image", DEMO_2]);
  assert.equal(changes.code, 1, changes.stderr);
  assert.match(changes.stdout, /^diff -u -N live\/core\.v1\.ConfigMap\.demo-config\.config-config merged\/core\.v1\.ConfigMap\.demo-config\.config-config$/m);
  assert.match(changes.stdout, /^\+  release: 1\.1\.0$/m);
  assert.match(changes.stdout, /^Over a blast-radius limit: the update would change/m);
  const none = await runCli(["diff", "--address", server.address, "--image", DEMO_1]);
  assert.equal(none.code, 0, none.stderr);
  assert.match(none.stdout, /^Plan: 0 to create, 0 to change, 0 to delete, \d+ unchanged, \d+ skipped \(release 1\.0\.0 /m);
  const bad = await runCli(["diff", "--address", server.address, "--image", join(REPO_ROOT, "examples/payloads/none")]);
  assert.equal(bad.code, 2, bad.stderr);
  assert.match(bad.stderr, /FAILED_PRECONDITION: .*examples\/payloads\/none/);
  assert.equal((await runCli(["diff", "--address", server.address, "--image", DEMO_2, "--no-such-flag"])).code, 2, "a bad flag is an error, not a change");
});

test("syncworker diff -o json: the objects with their actions, the plan digest and the release; the same exit codes", async () => {
  type DiffJson = {
    requestedImage: string;
    release: { version: string; image: string };
    planDigest: string;
    summary: Record<string, number>;
    limitViolations: string[];
    objects: Array<{ action: string; kind: string; name: string; diff?: string }>;
  };
  const text = await runCli(["diff", "--address", server.address, "--image", DEMO_2]);
  const changes = await runCli(["diff", "--address", server.address, "--image", DEMO_2, "-o", "json"]);
  assert.equal(changes.code, 1, changes.stderr);
  const doc = JSON.parse(changes.stdout) as DiffJson;
  assert.equal(doc.planDigest, /^Plan digest: (\S+)$/m.exec(text.stdout)?.[1], "the digest `update --plan` pins, as the text shows it");
  assert.equal(doc.release.version, "1.1.0");
  assert.equal(doc.requestedImage, DEMO_2, "an absolute path is sent as given");
  const config = doc.objects.find((o) => o.kind === "ConfigMap" && o.name === "config-config");
  assert.equal(config?.action, "change");
  assert.match(config?.diff ?? "", /^\+  release: 1\.1\.0$/m);
  assert.equal(doc.summary["change"], doc.objects.filter((o) => o.action === "change").length);
  assert.equal(
    doc.objects.length,
    Object.values(doc.summary).reduce((a, b) => a + b, 0),
    "every object, unchanged and skipped ones too",
  );
  assert.equal(doc.limitViolations.length, 1);

  const none = await runCli(["diff", "--address", server.address, "--image", DEMO_1, "-o", "json"]);
  assert.equal(none.code, 0, none.stderr);
  assert.deepEqual(
    (JSON.parse(none.stdout) as DiffJson).objects.map((o) => o.action).filter((a) => a !== "unchanged" && a !== "skip"),
    [],
  );
  const bad = await runCli(["diff", "--address", server.address, "--image", join(REPO_ROOT, "examples/payloads/none"), "-o", "json"]);
  assert.equal(bad.code, 2, bad.stderr);
  assert.equal(bad.stdout, "", "no partial document");
  assert.equal((await runCli(["diff", "--address", server.address, "--image", DEMO_2, "-o", "yaml"])).code, 2, "an unknown format is an error");
});

test("syncworker diff --help names what --image takes: a directory or an image reference", async () => {
  const help = await runCli(["diff", "--help"]);
  assert.equal(help.code, 0);
  assert.match(help.stdout, /--image <dir\|ref>/);
  assert.match(help.stdout, /-o, --output <format>/);
});

test("bad limits and digests are refused naming the field", async () => {
  const refusal = async (call: Promise<unknown>): Promise<SyncWorkerError> => {
    const err = await call.then(
      () => undefined,
      (e: unknown) => e,
    );
    assert.ok(err instanceof SyncWorkerError && err.code === Code.InvalidArgument, String(err));
    return err;
  };
  const tooMuch = await refusal(server.client.update({ desired: { image: DEMO_2 }, limits: { maxChangedPercent: 101 } }));
  assert.equal(violatedField(tooMuch), "limits.max_changed_percent");
  const digest = await refusal(server.client.update({ desired: { image: DEMO_2 }, expectedPlanDigest: "abc" }));
  assert.equal(violatedField(digest), "expected_plan_digest");
  const negative = await refusal(server.client.preview({ desired: { image: DEMO_2 }, limits: { maxDeletions: -1 } }).next());
  assert.equal(violatedField(negative), "limits.max_deletions");
});

test("an update pinned to a plan it no longer has is refused naming both digests; the current plan applies", async () => {
  const { summary } = await preview(DEMO_2);
  const stale = `sha256:${"0".repeat(64)}`;
  const refused = await server.client.update({ generation: 2, desired: { image: DEMO_2 }, expectedPlanDigest: stale, limits: { maxChangedPercent: 100 } });
  const load = refused.loadPayloadStatus;
  assert.equal(load?.step, "PreconditionChecks");
  assert.equal(load?.failure?.reason, "PlanDigestMismatch");
  assert.ok(load?.failure?.message.includes(stale) && load.failure.message.includes(summary.planDigest), load?.failure?.message);
  assert.equal(refused.actual?.version, "1.0.0", "the previous release stays in effect");

  const applied = await server.client.update({
    generation: 3,
    desired: { image: DEMO_2 },
    expectedPlanDigest: summary.planDigest,
    limits: { maxChangedPercent: 100 },
  });
  assert.equal(applied.loadPayloadStatus?.failure, undefined, JSON.stringify(applied.loadPayloadStatus));
  await waitForStatus(server.client, (s) => s.generation === 3 && s.actual?.version === "1.1.0" && s.completed >= 1 && !s.failure, 60_000);
});
