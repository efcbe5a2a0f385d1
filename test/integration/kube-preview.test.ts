// Preview, blast-radius limits and plan-bound apply against a real kube-apiserver and etcd (issues 15 and 17):
// generated release a applied, then b previewed (checked object by object against the two payloads and the live
// objects), refused over a delete limit, refused with a stale plan digest, and applied with the current one. The
// tests share one control plane and one service, and run in order; the last one, on real-a, is of the real-payload tier.
import assert from "node:assert/strict";
import { Code, SyncWorkerError, type PreviewSummary } from "@syncworker/client";
import { PreviewAction, type ObjectPreview, type SyncWorkerStatus } from "@syncworker/client/gen/syncworker/v1/syncworker";
import type { Manifest } from "../../src/payload/index.js";
import { runCli } from "../harness/cli.js";
import { apiVersionOf, createForeignNamespaces, installMissingKinds, payloadManifests, playOperators, type OperatorPlayer } from "../harness/cluster-play.js";
import { startControlPlane, type ControlPlane } from "../harness/control-plane.js";
import { startServer, type ServerProcess } from "../harness/server.js";
import { tempRelease, UNSERVED_FLOWSCHEMA, withUnservedKind, writeReleases } from "../harness/payload-gen.js";
import { realPayload, skipRealPayloads, tierTests } from "../harness/tiers.js";

const { after, before, test } = tierTests("kube", "tls");

const REAL_A = realPayload("real-a");
const { a: RELEASE_A, b: RELEASE_B } = await writeReleases();
const DELETE = "release.openshift.io/delete";

let cp: ControlPlane;
let server: ServerProcess;
let player: OperatorPlayer | undefined;

before(async () => (cp = await startControlPlane()), { timeout: 90 * 60_000 });
after(async () => {
  await player?.stop();
  await server?.stop();
  await cp?.stop();
});

/** The same namespace each time: a restarted server resumes the state its predecessor saved there. */
const serve = (): Promise<ServerProcess> =>
  startServer(["--kubeconfig", cp.kubeconfig, "--namespace", "syncworker-kube-preview", "--reconcile-interval", "60s", "--backoff-steps", "2"]);

const idOf = (o: { group: string; kind: string; namespace: string; name: string }): string => `${o.group}/${o.kind} ${o.namespace}/${o.name}`;
const manifestId = (m: Manifest): string =>
  idOf({ group: m.gvk.group, kind: m.gvk.kind, namespace: m.obj.metadata?.namespace ?? "", name: m.obj.metadata?.name ?? "" });
/** The live object; none while its kind is not served (b's new component brings the CRD of its custom resource). */
const live = async (m: Manifest) =>
  (await cp.api.serves(apiVersionOf(m), m.gvk.kind))
    ? cp.api.get(apiVersionOf(m), m.gvk.kind, m.obj.metadata?.namespace, m.obj.metadata?.name ?? "")
    : undefined;
const withoutStatus = ({ status: _status, ...rest }: Manifest["obj"]): Manifest["obj"] => rest;

async function preview(dir: string): Promise<{ objects: ObjectPreview[]; summary: PreviewSummary }> {
  const objects: ObjectPreview[] = [];
  let summary: PreviewSummary | undefined;
  for await (const r of server.client.preview({ desired: { image: dir } }, { timeoutMs: 300_000 })) {
    if (r.object) objects.push(r.object);
    if (r.summary) summary = r.summary;
  }
  assert.ok(summary, "the stream ends with its summary");
  return { objects, summary };
}

async function watchUntil(predicate: (s: SyncWorkerStatus) => boolean, timeoutMs: number): Promise<SyncWorkerStatus> {
  let last: SyncWorkerStatus | undefined;
  try {
    for await (const status of server.client.watchStatus({ signal: AbortSignal.timeout(timeoutMs) })) {
      last = status;
      if (predicate(status)) return status;
    }
  } catch {
    // the timeout; reported below
  }
  assert.fail(`no matching status within ${timeoutMs}ms; last: ${JSON.stringify(last)}\n${server.stderr().slice(-3000)}`);
}

/** Every live object of the payloads, by id, with its resourceVersion. */
async function resourceVersions(manifests: readonly Manifest[]): Promise<Map<string, string>> {
  const versions = new Map<string, string>();
  for (const m of manifests) versions.set(manifestId(m), (await live(m))?.metadata.resourceVersion ?? "absent");
  return versions;
}

let a: { version: string; manifests: Manifest[] };
let b: { version: string; manifests: Manifest[] };

test("after release a, a preview of b lists exactly the objects that differ, and writes nothing", { timeout: 900_000 }, async () => {
  a = await payloadManifests(RELEASE_A);
  b = await payloadManifests(RELEASE_B);
  for (const p of [a, b]) {
    await installMissingKinds(cp.api, p.manifests);
    await createForeignNamespaces(cp.api, p.manifests);
  }
  player = playOperators(cp.api, a.manifests);
  server = await serve();
  await server.client.update({ generation: 1, desired: { image: RELEASE_A } });
  await watchUntil((s) => s.actual?.version === a.version && s.completed >= 1 && !s.failure, 600_000);

  const before = await resourceVersions([...a.manifests, ...b.manifests]);
  const { objects, summary } = await preview(RELEASE_B);

  // What each object should be, from the two payloads and the live cluster alone.
  const previous = new Map(a.manifests.map((m) => [manifestId(m), JSON.stringify(withoutStatus(m.obj))]));
  const expected = new Map<string, string>();
  for (const m of b.manifests) {
    const id = manifestId(m);
    const exists = (await live(m)) !== undefined;
    if (m.obj.metadata?.annotations?.[DELETE] !== undefined) expected.set(id, exists ? "DELETE" : "UNCHANGED");
    else if (m.gvk.kind === "ClusterOperator") expected.set(id, exists ? "UNCHANGED" : "CREATE");
    else if (!exists) expected.set(id, "CREATE");
    else expected.set(id, previous.get(id) === JSON.stringify(withoutStatus(m.obj)) ? "UNCHANGED" : "CHANGE");
  }
  const actions = new Map(
    objects.filter((o) => o.action !== PreviewAction.PREVIEW_ACTION_SKIPPED).map((o) => [idOf(o), PreviewAction[o.action].replace("PREVIEW_ACTION_", "")]),
  );
  const differences = [...expected]
    .filter(([id, action]) => actions.get(id) !== action)
    .map(([id, action]) => `${id}: expected ${action}, previewed ${actions.get(id)}`);
  assert.deepEqual(differences, [], "each object's action follows from the payloads and the live objects");
  assert.equal(actions.size, expected.size, "nothing previewed that b does not include");
  assert.ok(summary.change > 0 && summary.unchanged > 0, `both kinds present: ${JSON.stringify(summary)}`);

  // By hand: the ConfigMap b edits shows that edit; one both ship alike is unchanged.
  const edited = objects.find((o) => o.kind === "ConfigMap" && o.file === "0000_00_component-00_05_configmap.json");
  assert.equal(edited?.action, PreviewAction.PREVIEW_ACTION_CHANGE);
  assert.match(edited?.diff ?? "", /^\+.*logLevel: Debug/m, "the changed line, as added");
  assert.match(edited?.diff ?? "", /^-.*logLevel: Normal/m, "the old line, as removed");
  const same = objects.find((o) => o.kind === "ConfigMap" && o.file === "0000_03_component-01_05_configmap.json");
  assert.equal(same?.action, PreviewAction.PREVIEW_ACTION_UNCHANGED);
  assert.equal(same?.diff, "");

  const afterPreview = await resourceVersions([...a.manifests, ...b.manifests]);
  assert.deepEqual(
    [...afterPreview].filter(([id, rv]) => before.get(id) !== rv),
    [],
    "no resourceVersion moved: the preview wrote nothing",
  );
  assert.match(summary.planDigest, /^sha256:[0-9a-f]{64}$/);
  assert.equal((await preview(RELEASE_B)).summary.planDigest, summary.planDigest, "stable while nothing changes");
});

test("syncworker diff exits 1 with changes, 2 on an error", { timeout: 300_000 }, async () => {
  const changes = await runCli(["diff", "--address", server.address, "--image", RELEASE_B]);
  assert.equal(changes.code, 1, changes.stderr);
  assert.match(changes.stdout, /^diff -u -N live\/core\.v1\.ConfigMap\.openshift-component-00\.\S+ merged\//m);
  assert.match(changes.stdout, /^Plan: \d+ to create, \d+ to change, \d+ to delete, \d+ unchanged, \d+ skipped \(release 1\.1\.0 /m);
  assert.match(changes.stdout, /^Plan digest: sha256:[0-9a-f]{64}$/m);
  const missing = await runCli(["diff", "--address", server.address, "--image", "/nonexistent/no-such-payload"]);
  assert.ok(missing.code >= 2, `an error exits 2 or more, got ${missing.code}`);
  assert.match(missing.stderr, /no-such-payload/);
});

test("an update of b over its delete limit is refused at PreconditionChecks naming the count and the limit", { timeout: 300_000 }, async () => {
  // Leftovers of an older release that b deletes: what a delete limit guards against.
  for (const m of b.manifests.filter((m) => m.obj.metadata?.annotations?.[DELETE] === "true")) {
    if (await live(m)) continue;
    const { [DELETE]: _delete, ...annotations } = m.obj.metadata?.annotations ?? {};
    const body = { ...withoutStatus(m.obj), metadata: { ...m.obj.metadata, annotations } };
    // A delete-annotated manifest keeps only its identity; kinds whose schema wants more are left out.
    const res = await cp.api.request("POST", `${await cp.api.pathOf(apiVersionOf(m), m.gvk.kind, m.obj.metadata?.namespace)}?fieldManager=older-release`, body);
    assert.ok(res.status === 201 || res.status === 422, `creating a leftover ${manifestId(m)}: ${res.status} ${JSON.stringify(res.body)}`);
  }
  const { summary } = await preview(RELEASE_B);
  assert.ok(summary.delete >= 1, `b deletes something: ${JSON.stringify(summary)}`);
  const status = await server.client.update({ generation: 2, desired: { image: RELEASE_B }, limits: { maxDeletions: summary.delete - 1 } });
  const load = status.loadPayloadStatus;
  assert.equal(load?.step, "PreconditionChecks");
  assert.equal(load?.failure?.reason, "BlastRadiusExceeded");
  assert.match(
    load?.failure?.message ?? "",
    new RegExp(`would delete ${summary.delete} objects?, more than the limit of ${summary.delete - 1} \\(max_deletions\\)`),
  );
  assert.equal(status.actual?.version, a.version, "the previous release stays in effect");
});

test(
  "the refused update survives a restart with its limit: the restarted service refuses it again, for the same reason, and applies nothing",
  { timeout: 300_000 },
  async () => {
    const refused = (await server.client.getStatus()).loadPayloadStatus;
    assert.equal(refused?.failure?.reason, "BlastRadiusExceeded");
    const leftovers = b.manifests.filter((m) => m.obj.metadata?.annotations?.[DELETE] === "true");
    const present = new Map<string, string>();
    for (const m of leftovers) {
      const rv = (await live(m))?.metadata.resourceVersion;
      if (rv) present.set(manifestId(m), rv);
    }
    assert.ok(present.size >= 1, "objects the limit protects exist");

    assert.equal(await server.stop(), 0, "SIGTERM: an orderly stop");
    const restartedAt = Date.now();
    server = await serve();
    // The saved status shows the refusal at once; the replay of the saved Update decides again (a newer load status).
    const replayed = await watchUntil(
      (s) =>
        (s.loadPayloadStatus?.lastTransitionTime?.getTime() ?? 0) >= restartedAt &&
        ["PreconditionChecks", "PayloadLoaded"].includes(s.loadPayloadStatus?.step ?? ""),
      240_000,
    );
    const load = replayed.loadPayloadStatus;
    assert.equal(load?.step, "PreconditionChecks", `refused again, not loaded: ${JSON.stringify(load)}`);
    assert.equal(load?.update?.image, RELEASE_B);
    assert.equal(load?.failure?.reason, "BlastRadiusExceeded");
    assert.equal(load?.failure?.message, refused?.failure?.message, "the same count and limit");
    assert.equal(replayed.actual?.version, a.version, "the previous release is still the one shown");
    assert.ok(!replayed.history.some((h) => h.image === RELEASE_B), `b never entered the history: ${JSON.stringify(replayed.history)}`);
    for (const m of leftovers.filter((m) => present.has(manifestId(m)))) {
      assert.equal((await live(m))?.metadata.resourceVersion, present.get(manifestId(m)), `${manifestId(m)} is neither deleted nor written`);
    }
  },
);

test("a stale plan digest is refused naming both digests; the current one applies b, forced past the limit", { timeout: 900_000 }, async () => {
  // b's operators from here on, before the previews whose digests are compared: the operator b adds creates its
  // ClusterOperator (a create in the plan until then), which would change the plan between them.
  await player?.stop();
  player = playOperators(cp.api, b.manifests);
  for (const m of b.manifests.filter((m) => m.gvk.kind === "ClusterOperator")) {
    for (let i = 0; !(await live(m)); i++) {
      assert.ok(i < 150, `the operator player creates ${manifestId(m)}: ${String(player.lastError())}`);
      await new Promise((r) => setTimeout(r, 200));
    }
  }
  const first = await preview(RELEASE_B);
  // Someone creates an object b would create: the plan changes (a change instead of a create).
  // A ClusterRole: nothing follows from creating it (a new namespace, or a CRD the server then serves, would change
  // the plan again a moment later, between the update and the preview compared with it).
  const created = first.objects.find((o) => o.action === PreviewAction.PREVIEW_ACTION_CREATE && o.kind === "ClusterRole");
  assert.ok(created, "b creates something");
  const m = b.manifests.find((x) => manifestId(x) === idOf(created));
  assert.ok(m);
  const meta = { ...m.obj.metadata, labels: { ...m.obj.metadata?.labels, "edited-by": "test" } };
  await cp.api.must("POST", `${await cp.api.pathOf(apiVersionOf(m), m.gvk.kind, m.obj.metadata?.namespace)}?fieldManager=someone-else`, {
    ...withoutStatus(m.obj),
    metadata: meta,
  });

  const stale = await server.client.update({ generation: 3, desired: { image: RELEASE_B }, expectedPlanDigest: first.summary.planDigest });
  const load = stale.loadPayloadStatus;
  assert.equal(load?.step, "PreconditionChecks");
  assert.equal(load?.failure?.reason, "PlanDigestMismatch");
  const second = await preview(RELEASE_B);
  assert.notEqual(second.summary.planDigest, first.summary.planDigest);
  assert.ok(load?.failure?.message.includes(first.summary.planDigest) && load.failure.message.includes(second.summary.planDigest), load?.failure?.message);
  assert.match(load?.failure?.message ?? "", /PreconditionChecks/);

  const accepted = await server.client.update({
    generation: 4,
    desired: { image: RELEASE_B, force: true },
    expectedPlanDigest: second.summary.planDigest,
    limits: { maxDeletions: second.summary.delete - 1 },
  });
  assert.equal(accepted.loadPayloadStatus?.failure, undefined, JSON.stringify(accepted.loadPayloadStatus));
  assert.match(accepted.loadPayloadStatus?.acceptedRisks ?? "", /forced past blast-radius limits: the update would delete/);
  await watchUntil((s) => s.generation === 4 && s.actual?.version === b.version && s.completed >= 1 && !s.failure, 600_000);

  const none = await runCli(["diff", "--address", server.address, "--image", RELEASE_B]);
  assert.equal(none.code, 0, `${none.stdout}\n${none.stderr}`);
  assert.match(none.stdout, /^Plan: 0 to create, 0 to change, 0 to delete, \d+ unchanged/m);
});

test("a kind the cluster does not serve and the payload does not bring fails the preview, naming it", { timeout: 300_000 }, async () => {
  const release = await withUnservedKind(await tempRelease({ version: "1.2.0", variant: "b" }));
  const err = await preview(release).then(
    () => undefined,
    (e: unknown) => e,
  );
  assert.ok(err instanceof SyncWorkerError && err.code === Code.FailedPrecondition, String(err));
  assert.match(
    err.rawMessage,
    new RegExp(
      `FlowSchema/${UNSERVED_FLOWSCHEMA} dry-run failed \\(NoMatch\\): .*no matches for kind "FlowSchema" in version "flowcontrol\\.apiserver\\.k8s\\.io/v1beta3"`,
    ),
  );
  assert.equal((await runCli(["diff", "--address", server.address, "--image", release])).code, 2);
});

test("real-a's FlowSchema, of a version our server no longer serves, fails the preview, naming it", { timeout: 300_000, skip: skipRealPayloads }, async () => {
  // real-a without its override: its v1beta3 FlowSchema meets a server that no longer serves that version.
  const err = await preview(REAL_A).then(
    () => undefined,
    (e: unknown) => e,
  );
  assert.ok(err instanceof SyncWorkerError && err.code === Code.FailedPrecondition, String(err));
  assert.match(
    err.rawMessage,
    /FlowSchema\/openshift-oauth-server dry-run failed \(NoMatch\): .*no matches for kind "FlowSchema" in version "flowcontrol\.apiserver\.k8s\.io\/v1beta3"/,
  );
  assert.equal((await runCli(["diff", "--address", server.address, "--image", REAL_A])).code, 2);
});
