// Per-component progress against a real kube-apiserver and etcd: real-a applied through a `serve` process while the
// test holds the ingress ClusterOperator unavailable, then lets it go.
import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { ComponentState, type SyncWorkerStatus } from "@syncworker/client";
import { createForeignNamespaces, installMissingKinds, payloadManifests, playOperators, REAL_A_OVERRIDES, type OperatorPlayer } from "../harness/cluster-play.js";
import { assertGrowingWait, checkComponentProgress } from "../harness/component-progress.js";
import { startControlPlane, type ControlPlane } from "../harness/control-plane.js";
import { FIXTURES, startServer, type ServerProcess } from "../harness/server.js";

const REAL_A = join(FIXTURES, "real-a");

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

test("real-a on a real API server: components once, forward only, done summing up, a held operator waiting longer each snapshot", { timeout: 900_000 }, async () => {
  const a = await payloadManifests(REAL_A);
  await installMissingKinds(cp.api, a.manifests);
  await createForeignNamespaces(cp.api, a.manifests);
  player = playOperators(cp.api, a.manifests);
  player.hold.add("ingress");
  // Failed passes are retried after interval/8, /4…: a 16 s interval retries the held operator every few seconds.
  server = await startServer(["--kubeconfig", cp.kubeconfig, "--namespace", "syncworker-kube-progress", "--reconcile-interval", "16s", "--backoff-steps", "2"]);
  await server.client.update({ generation: 1, desired: { version: "", image: REAL_A, force: false }, overrides: REAL_A_OVERRIDES, state: 0 });

  const seen: SyncWorkerStatus[] = [];
  const waitsOnIngress = (): number =>
    seen.filter((s) => s.components.some((c) => c.state === ComponentState.COMPONENT_STATE_WAITING && c.currentObject === "clusteroperator/ingress")).length;
  for await (const status of server.client.watchStatus({ signal: AbortSignal.timeout(800_000) })) {
    seen.push(status);
    // Held until two snapshots showed the wait, then let go: the update must complete.
    if (waitsOnIngress() >= 2) player.hold.clear();
    if (status.actual?.version === a.version && status.completed >= 1 && !status.failure) break;
  }
  const statuses = seen.filter((s) => s.actual?.image === REAL_A);
  const waits = checkComponentProgress(statuses);
  assertGrowingWait(waits, "clusteroperator/ingress", /^ClusterOperatorNotAvailable$/);
  const last = statuses.at(-1)!;
  assert.ok(last.components.length > 10 && last.components.every((c) => c.state === ComponentState.COMPONENT_STATE_DONE), "the completed pass finished every component");
  assert.ok(last.timing?.startedAt, "the update's start is known");
});
