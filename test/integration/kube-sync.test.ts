// The applier against a real kube-apiserver and etcd, built and started by the harness: generated
// releases end to end through the gRPC API, per-component progress with a held operator, no-op
// reconciles, readiness that never comes, and an API server outage in the middle of a sync; real-a's
// unserved FlowSchema in the real-payload tier. The tests share one control plane and run in order.
import assert from "node:assert/strict";
import { writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ComponentState, OnDeadline, type ComponentOverride, type SyncWorkerStatus } from "@syncworker/client/gen/syncworker/v1/syncworker";
import type { Manifest } from "../../src/payload/index.js";
import {
  apiVersionOf,
  createForeignNamespaces,
  installMissingKinds,
  overridden,
  payloadManifests,
  playOperators,
  REAL_A_OVERRIDES,
  type OperatorPlayer,
} from "../harness/cluster-play.js";
import { assertGrowingWait, checkComponentProgress } from "../harness/component-progress.js";
import { startControlPlane, type ControlPlane } from "../harness/control-plane.js";
import { REPO_ROOT, startServer, type ServerProcess } from "../harness/server.js";
import { tempRelease, UNSERVED_FLOWSCHEMA, withUnservedKind, writeReleases } from "../harness/payload-gen.js";
import { realPayload, skipRealPayloads, tierTests } from "../harness/tiers.js";

const { after, before, test } = tierTests("kube", "tls");

const REAL_A = realPayload("real-a");
const REAL_B = realPayload("real-b");
const { a: RELEASE_A, b: RELEASE_B } = await writeReleases();
const DEMO_1 = join(REPO_ROOT, "examples/payloads/demo-1.0.0");
const DEMO_2 = join(REPO_ROOT, "examples/payloads/demo-1.1.0");
/** The ClusterOperator the progress test holds: run level 50, past the middle of the release. */
const HELD = "component-08";

let cp: ControlPlane;
let server: ServerProcess | undefined;
let player: OperatorPlayer | undefined;

// The first run builds kube-apiserver from source: allow the cold build inside the hook.
before(async () => (cp = await startControlPlane()), { timeout: 90 * 60_000 });
after(async () => {
  await player?.stop();
  await server?.stop();
  await cp?.stop();
});

const isClusterOperator = (m: Manifest): boolean => m.gvk.group === "config.openshift.io" && m.gvk.kind === "ClusterOperator";
const applied = (manifests: readonly Manifest[]): Manifest[] =>
  manifests.filter((m) => !overridden(m) && m.obj.metadata?.annotations?.["release.openshift.io/delete"] === undefined);

let services = 0;

/** A fresh service: its own namespace, so it does not resume the state a previous test's service saved. */
async function serve(): Promise<ServerProcess> {
  await server?.stop();
  // The interval is also the deadline of an initializing pass (twice that later), so it must cover a
  // whole pass over a release on a slow machine; failed passes are retried after interval/8 and more.
  const namespace = `syncworker-kube-sync-${++services}`;
  server = await startServer([
    "--kubeconfig",
    cp.kubeconfig,
    "--namespace",
    namespace,
    "--reconcile-interval",
    "60s",
    "--backoff-steps",
    "2",
    "--metrics-listen",
    "127.0.0.1:0",
  ]);
  return server;
}

async function play(dir: string): Promise<{ version: string; manifests: Manifest[] }> {
  const payload = await payloadManifests(dir);
  await installMissingKinds(cp.api, payload.manifests);
  await createForeignNamespaces(cp.api, payload.manifests);
  await player?.stop();
  player = playOperators(cp.api, payload.manifests);
  return payload;
}

async function update(dir: string, generation: number, overrides: ComponentOverride[] = [], state = 0): Promise<void> {
  assert.ok(server);
  const response = await server.client.update({ generation, desired: { version: "", image: dir, force: false }, overrides, capabilities: undefined, state });
  assert.equal(response.loadPayloadStatus?.failure, undefined, "the payload loads");
}

/** Watches statuses until `predicate` holds; every status seen goes to `seen` for invariant checks. */
async function watchUntil(predicate: (s: SyncWorkerStatus) => boolean, timeoutMs: number, seen: SyncWorkerStatus[] = []): Promise<SyncWorkerStatus> {
  assert.ok(server);
  try {
    for await (const status of server.client.watchStatus({ signal: AbortSignal.timeout(timeoutMs) })) {
      seen.push(status);
      if (predicate(status)) return status;
    }
  } catch {
    // aborted by the timeout; reported below
  }
  const log = join(tmpdir(), `syncworker-kube-sync-${process.pid}.log`);
  await writeFile(log, server.stderr());
  throw new Error(
    `no matching status within ${timeoutMs}ms (server log: ${log}; operators: ${String(player?.lastError())}); last: ${JSON.stringify(seen.at(-1))}`,
  );
}

/** Polls /metrics until the ClusterOperator's `cluster_operator_up` series is `want` (the watch cache may lag a moment). */
async function operatorUp(name: string, want: string, timeoutMs = 30_000): Promise<string> {
  assert.ok(server);
  const series = new RegExp(`^cluster_operator_up\\{name="${name}",[^}]*\\} \\S+$`, "m");
  let text = "";
  for (const deadline = Date.now() + timeoutMs; Date.now() < deadline; await new Promise((resolve) => setTimeout(resolve, 200))) {
    text = await (await fetch(`http://${server.metricsAddress}/metrics`)).text();
    const seen = series.exec(text)?.[0] ?? "";
    if (seen.endsWith(` ${want}`)) return seen;
  }
  assert.fail(
    `cluster_operator_up for ${name} did not become ${want}; last scrape:\n${text
      .split("\n")
      .filter((l) => l.startsWith("cluster_") || l.startsWith("syncworker_cache"))
      .join("\n")}`,
  );
}

/** A whole pass succeeded. `done` may stay below `total`: unmanaged manifests are skipped uncounted, as upstream. */
const completed = (version: string, generation: number) => (s: SyncWorkerStatus) =>
  s.generation === generation && s.actual?.version === version && s.total > 0 && s.completed >= 1 && !s.failure;

async function assertAppliedWithOurManager(manifests: readonly Manifest[]): Promise<void> {
  const problems: string[] = [];
  for (const m of applied(manifests)) {
    const id = `${m.gvk.kind} ${m.obj.metadata?.namespace ?? ""}/${m.obj.metadata?.name ?? ""}`;
    const live = await cp.api.get(apiVersionOf(m), m.gvk.kind, m.obj.metadata?.namespace, m.obj.metadata?.name ?? "");
    if (!live) problems.push(`${id} missing`);
    // ClusterOperators are created by their operators (here the test) and only read by the worker.
    else if (!isClusterOperator(m) && !live.metadata.managedFields?.some((f) => f.manager === "syncworker" && f.operation === "Apply")) {
      problems.push(`${id} has no fields applied by syncworker: ${JSON.stringify(live.metadata.managedFields?.map((f) => f.manager))}`);
    }
  }
  assert.deepEqual(problems, [], "every included object exists, applied by our field manager");
}

async function resourceVersions(manifests: readonly Manifest[]): Promise<Map<string, string>> {
  const versions = new Map<string, string>();
  for (const m of applied(manifests)) {
    const live = await cp.api.get(apiVersionOf(m), m.gvk.kind, m.obj.metadata?.namespace, m.obj.metadata?.name ?? "");
    versions.set(`${m.gvk.kind} ${m.obj.metadata?.namespace ?? ""}/${m.obj.metadata?.name ?? ""}`, live?.metadata.resourceVersion ?? "missing");
  }
  return versions;
}

test("a kind the cluster does not serve fails naming the kind", { timeout: 300_000 }, async () => {
  const release = await withUnservedKind(await tempRelease());
  await play(release);
  await serve();
  await update(release, 1);
  const failed = await watchUntil((s) => s.failure?.reason === "UpdatePayloadResourceTypeMissing", 280_000);
  assert.match(failed.failure?.message ?? "", new RegExp(`flowschema "${UNSERVED_FLOWSCHEMA}"`, "i"));
});

test("real-a's FlowSchema, of a version our server no longer serves, fails naming the kind", { timeout: 300_000, skip: skipRealPayloads }, async () => {
  await play(REAL_A);
  await serve();
  // Without the override, real-a's v1beta3 FlowSchema meets a server that no longer serves it.
  await update(REAL_A, 1);
  const failed = await watchUntil((s) => s.failure?.reason === "UpdatePayloadResourceTypeMissing", 280_000);
  assert.match(failed.failure?.message ?? "", /flowschema "openshift-oauth-server"/i);
});

test(
  "per-component progress on a real API server: components once, forward only, done summing up, a held operator waiting longer each snapshot",
  { timeout: 600_000 },
  async () => {
    const a = await play(RELEASE_A);
    assert.ok(player);
    player.hold.add(HELD);
    await serve();
    await update(RELEASE_A, 1);
    const seen: SyncWorkerStatus[] = [];
    const waitsOnIngress = (): number =>
      seen.filter((s) => s.components.some((c) => c.state === ComponentState.COMPONENT_STATE_WAITING && c.currentObject === `clusteroperator/${HELD}`)).length;
    const last = await watchUntil(
      (s) => {
        // Held until two snapshots showed the wait, then let go: the update must complete.
        if (waitsOnIngress() >= 2) player?.hold.clear();
        return completed(a.version, 1)(s);
      },
      500_000,
      seen,
    );
    const waits = checkComponentProgress(seen.filter((s) => s.actual?.image === RELEASE_A));
    assertGrowingWait(waits, `clusteroperator/${HELD}`, /^ClusterOperatorNotAvailable$/);
    assert.ok(
      last.components.length > 10 && last.components.every((c) => c.state === ComponentState.COMPONENT_STATE_DONE),
      "the completed pass finished every component",
    );
    assert.ok(last.timing?.startedAt, "the update's start is known");
  },
);

/** `first` applied by a fresh service, then `second` over it: each completes and every object is ours. */
async function appliesEndToEnd(first: string, second: string, overrides: ComponentOverride[] = []): Promise<void> {
  const a = await play(first);
  await serve();
  await update(first, 1, overrides);
  await watchUntil(completed(a.version, 1), 400_000);
  await assertAppliedWithOurManager(a.manifests);

  const b = await play(second);
  await update(second, 2);
  await watchUntil(completed(b.version, 2), 400_000);
  await assertAppliedWithOurManager(b.manifests);
}

test("release a applies end to end with server-side apply, then b supersedes it", { timeout: 900_000 }, () => appliesEndToEnd(RELEASE_A, RELEASE_B));

test("a no-op reconcile pass leaves every resourceVersion unchanged", { timeout: 300_000 }, async () => {
  const b = await payloadManifests(RELEASE_B);
  const first = await watchUntil((s) => s.reconciling && s.completed >= 1 && !s.failure, 120_000);
  const before = await resourceVersions(b.manifests);
  // The next completed pass re-applied every manifest.
  await watchUntil((s) => s.reconciling && s.completed > first.completed && !s.failure, 200_000);
  const afterPass = await resourceVersions(b.manifests);
  const changed = [...before].filter(([id, rv]) => afterPass.get(id) !== rv).map(([id]) => id);
  assert.deepEqual(changed, [], "no object was written by a no-op reconcile");
});

test(
  "real-a applies end to end with server-side apply, then real-b supersedes it: real OpenShift manifests on a real API server",
  { timeout: 900_000, skip: skipRealPayloads },
  () => appliesEndToEnd(REAL_A, REAL_B, REAL_A_OVERRIDES),
);

test("readiness that never comes fails with the CVO's reason naming the object", { timeout: 300_000 }, async () => {
  const demo = await play(DEMO_1);
  assert.ok(player);
  player.stall.add("demo-config/config-operator");
  await serve();
  await update(DEMO_1, 1, [], 2 /* Updating: Deployment health is checked */);
  const stalled = await watchUntil((s) => s.failure?.reason === "WorkloadNotAvailable", 120_000);
  assert.match(stalled.failure?.message ?? "", /demo-config\/config-operator/);

  player.stall.clear();
  player.hold.add("demo-api");
  const held = await watchUntil((s) => s.failure?.reason === "ClusterOperatorNotAvailable", 120_000);
  assert.match(held.failure?.message ?? "", /demo-api/);
  // The CVO's metric shows the same operator down, with the reason its operator gave.
  assert.match(await operatorUp("demo-api", "0"), /reason="HeldByTest"/);

  player.hold.clear();
  await watchUntil(completed(demo.version, 1), 120_000);
  assert.match(await operatorUp("demo-api", "1"), /version="1\.0\.0",reason="AsExpected"/);
});

test("an API server restart mid-sync is reported, retried and completed", { timeout: 600_000 }, async () => {
  // The operators still report 1.0.0, so the sync to 1.1.0 waits at the first ClusterOperator: mid-sync.
  const next = await payloadManifests(DEMO_2);
  await update(DEMO_2, 2);
  const midway = await watchUntil((s) => s.generation === 2 && s.done > 0 && s.done < s.total, 120_000);
  await cp.stopApiServer();
  const during: SyncWorkerStatus[] = [];
  const reported = await watchUntil((s) => s.generation === 2 && s.failure !== undefined && s.failure.reason !== "ClusterOperatorUpdating", 180_000, during);
  assert.ok(reported.failure?.message, "the outage is reported");
  // The first status seen was published before the server went away; nothing can be applied after it.
  const atStop = during[0]?.done ?? midway.done;
  assert.ok(
    during.every((s) => s.done <= atStop),
    `no progress is claimed while the API server is down: ${during.map((s) => s.done).join(",")}`,
  );

  await cp.startApiServer();
  await play(DEMO_2);
  await watchUntil(completed(next.version, 2), 300_000);
  await assertAppliedWithOurManager(next.manifests);
});

test("a progress deadline with an operator held unavailable: Failing naming it, the metric, a pause; resumed, it completes", { timeout: 300_000 }, async () => {
  const demo = await play(DEMO_1);
  assert.ok(player);
  player.hold.add("demo-api");
  await serve();
  assert.ok(server);
  const response = await server.client.update({
    generation: 1,
    desired: { image: DEMO_1 },
    progressDeadline: { seconds: 5, nanos: 0 },
    onDeadline: OnDeadline.ON_DEADLINE_PAUSE,
  });
  assert.equal(response.loadPayloadStatus?.failure, undefined, "the payload loads");
  const stalled = await watchUntil((s) => s.failure?.reason === "ProgressDeadlineExceeded" && s.pause !== undefined, 120_000);
  assert.match(stalled.failure?.message ?? "", /^no manifest was applied for 5s \(progress_deadline\); it waits on clusteroperator\/demo-api of component /);
  assert.equal(stalled.pause?.pausedBy, "syncworker");
  assert.equal(stalled.pause?.reason, "ProgressDeadlineExceeded (on_deadline PAUSE)");
  const metrics = await (await fetch(`http://${server.metricsAddress}/metrics`)).text();
  assert.match(metrics, /^syncworker_update_deadline_exceeded\{deadline="progress"\} 1$/m);
  assert.match(metrics, /^syncworker_update_deadlines_exceeded_total\{deadline="progress"\} 1$/m);

  player.hold.clear();
  await server.client.resumeUpdate();
  await watchUntil(completed(demo.version, 1), 120_000);
  const after = await (await fetch(`http://${server.metricsAddress}/metrics`)).text();
  assert.match(after, /^syncworker_update_deadline_exceeded\{deadline="progress"\} 0$/m, "cleared once manifests applied again");
});
