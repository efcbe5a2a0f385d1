// Two `serve --kubeconfig … --leader-elect` replicas against the harness's real kube-apiserver: one
// leads and applies, the other serves reads from the state the leader saves and refuses writes naming
// the leader; when the leader is killed mid-sync the standby takes over within the lease duration and
// completes the sync. Also: a state object someone else wrote with a bad shape stops start-up.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { once } from "node:events";
import { promisify } from "node:util";
import { Code, ComponentState, SyncWorkerError, type SyncWorkerStatus } from "@syncworker/client";
import { createForeignNamespaces, installMissingKinds, payloadManifests, playOperators, type OperatorPlayer } from "../harness/cluster-play.js";
import { startControlPlane, type ControlPlane } from "../harness/control-plane.js";
import { startServer, SYNCWORKER, waitForStatus, type ServerProcess } from "../harness/server.js";
import { tempRelease } from "../harness/payload-gen.js";
import { tierTests } from "../harness/tiers.js";

const { after, before, test } = tierTests("kube", "tls");

const RELEASE = await tempRelease();
const NAMESPACE = "syncworker-ha";
/** client-go's defaults, which the service uses. */
const LEASE_DURATION_MS = 15_000;
const RETRY_PERIOD_MS = 2_000;

let cp: ControlPlane;
let player: OperatorPlayer | undefined;
const servers: ServerProcess[] = [];
/** The Lease and role sampler of the first test; stopped here too, so a failed assertion cannot leave it polling. */
let stopSampling: () => Promise<void> = async () => undefined;

before(async () => (cp = await startControlPlane()), { timeout: 90 * 60_000 });
after(async () => {
  await stopSampling();
  await player?.stop();
  for (const server of servers) await server.stop();
  await cp?.stop();
});

async function holder(): Promise<string> {
  const lease = await cp.api.get("coordination.k8s.io/v1", "Lease", NAMESPACE, "syncworker-leader");
  return (lease?.["spec"] as { holderIdentity?: string } | undefined)?.holderIdentity ?? "";
}

async function role(server: ServerProcess): Promise<string> {
  if (server.child.exitCode !== null || server.child.signalCode !== null) return "dead";
  const res = await fetch(`http://${server.adminAddress}/readyz`, { signal: AbortSignal.timeout(5_000) }).catch(() => undefined);
  // The role, without the version that follows it ("ok: leader, version 0.1.0").
  return res ? (await res.text().catch(() => "dead")).replace(/, version \S+$/, "") : "dead";
}

/** The sum of a counter or histogram count over all its series in the server's /metrics. */
async function metricSum(server: ServerProcess, name: string): Promise<number> {
  const text = await (await fetch(`http://${server.adminAddress}/metrics`)).text();
  return text
    .split("\n")
    .filter((line) => line.startsWith(`${name}{`) || line.startsWith(`${name} `))
    .reduce((sum, line) => sum + Number(line.slice(line.lastIndexOf(" ") + 1)), 0);
}

const identityOf = (server: ServerProcess): RegExp => new RegExp(`_${server.child.pid}$`);

test("replicas elect one leader; the standby refuses writes naming it, follows its progress, and takes over mid-sync", { timeout: 20 * 60_000 }, async () => {
  const payload = await payloadManifests(RELEASE);
  await installMissingKinds(cp.api, payload.manifests);
  await createForeignNamespaces(cp.api, payload.manifests);
  player = playOperators(cp.api, payload.manifests);
  // Every ClusterOperator stays unavailable until the takeover, so the sync is certainly still running then.
  for (const m of payload.manifests) if (m.gvk.kind === "ClusterOperator") player.hold.add(m.obj.metadata?.name ?? "");

  const args = ["--kubeconfig", cp.kubeconfig, "--leader-elect", "--namespace", NAMESPACE, "--reconcile-interval", "60s", "--backoff-steps", "2"];
  servers.push(await startServer(args), await startServer(args));

  // Sample the Lease and both replicas' roles for the whole test: never two leaders at once.
  const samples: Array<{ at: number; holder: string; roles: string[] }> = [];
  let sampling = true;
  const sampler = (async () => {
    while (sampling) {
      const [h, ...roles] = await Promise.all([holder().catch(() => "?"), ...servers.map(role)]);
      samples.push({ at: Date.now(), holder: h, roles });
      await new Promise((r) => setTimeout(r, 200));
    }
  })();
  stopSampling = async () => {
    sampling = false;
    await sampler;
  };

  let leaderIdentity = "";
  for (let i = 0; i < 100 && !leaderIdentity; i++) {
    leaderIdentity = await holder();
    if (!leaderIdentity) await new Promise((r) => setTimeout(r, 200));
  }
  const leader = servers.find((s) => identityOf(s).test(leaderIdentity));
  const standby = servers.find((s) => s !== leader);
  assert.ok(leader && standby, `the Lease holder ${leaderIdentity} is one of the replicas`);
  for (let i = 0; i < 50 && (await role(leader)) !== "ok: leader"; i++) await new Promise((r) => setTimeout(r, 200));
  assert.equal(await role(leader), "ok: leader");
  assert.equal(await role(standby), "ok: standby", "a standby is ready: it serves reads");

  const request = { generation: 1, desired: { version: "", image: RELEASE, force: false }, overrides: [], capabilities: undefined, state: 0 };
  await assert.rejects(standby.client.update(request), (err) => {
    assert.ok(err instanceof SyncWorkerError, String(err));
    assert.equal(err.code, Code.Unavailable);
    assert.ok(err.rawMessage.includes(leaderIdentity), `the error names the leader: ${err.rawMessage}`);
    return true;
  });
  await assert.rejects(standby.client.notify("drift"), (err) => err instanceof SyncWorkerError && err.code === Code.Unavailable);

  const accepted = await leader.client.update(request);
  assert.equal(accepted.loadPayloadStatus?.failure, undefined, "the payload loads");
  // The standby follows the leader's progress through the state object.
  const followed = await waitForStatus(standby.client, (s) => s.actual?.image === RELEASE && s.done > 0, 120_000);
  assert.ok(followed.total > 0);
  // With the leader's components and timing, as it saved them.
  assert.equal(
    followed.components.reduce((sum, c) => sum + c.done, 0),
    followed.done,
    `the standby's components add up to done: ${JSON.stringify(followed.components.map((c) => [c.component, c.done]))}`,
  );
  assert.ok(
    followed.components.some((c) => c.state !== ComponentState.COMPONENT_STATE_PENDING),
    "components the leader has started",
  );
  assert.ok(followed.timing?.startedAt, "the update's timing");
  await waitForStatus(leader.client, (s) => s.done > 10, 120_000);
  assert.ok((await metricSum(leader, "syncworker_task_duration_seconds_count")) > 0, "the leader applies");
  assert.equal(await metricSum(standby, "syncworker_task_duration_seconds_count"), 0, "the standby applies nothing");

  // Kill the leader mid-sync; the standby takes over once the lease it last saw renewed has expired.
  const beforeKill = await standby.client.getStatus();
  const killedAt = Date.now();
  const exited = once(leader.child, "exit");
  leader.child.kill("SIGKILL");
  await exited;
  let tookOverAt = 0;
  while (!tookOverAt && Date.now() - killedAt < 2 * LEASE_DURATION_MS) {
    if ((await role(standby)) === "ok: leader") tookOverAt = Date.now();
    else await new Promise((r) => setTimeout(r, 100));
  }
  const takeoverMs = tookOverAt - killedAt;
  console.log(`takeover after SIGKILL of the leader: ${takeoverMs} ms`);
  // The standby counts the lease duration from when it saw the last renewal, up to one (jittered) retry period
  // after the leader made it, and notices the expiry at its next attempt, up to one more retry period later.
  const takeoverBoundMs = LEASE_DURATION_MS + 2 * 1.2 * RETRY_PERIOD_MS + 2_000;
  assert.ok(tookOverAt > 0 && takeoverMs <= takeoverBoundMs, `took over within the lease duration (+ two retry periods): ${takeoverMs} ms`);
  assert.match(await holder(), identityOf(standby));

  player.hold.clear();
  const done = await waitForStatus(standby.client, (s: SyncWorkerStatus) => s.actual?.image === RELEASE && s.completed >= 1 && !s.failure, 10 * 60_000);
  assert.ok(done.revision > beforeKill.revision, "revisions continue above the old leader's");
  assert.equal(done.generation, 1);

  // The release installs the ClusterVersion CRD; once an installer created ClusterVersion version, the leader also
  // shows its state there, as the CVO would (at its next save: the next reconcile pass at the latest).
  await cp.api.must("POST", await cp.api.pathOf("config.openshift.io/v1", "ClusterVersion"), {
    apiVersion: "config.openshift.io/v1",
    kind: "ClusterVersion",
    metadata: { name: "version" },
    spec: { clusterID: "4c8a4a4e-2f8a-4d77-9a3c-0d0e5b7f6a11" },
  });
  let view: Record<string, unknown> | undefined;
  for (let i = 0; i < 600; i++) {
    view = (await cp.api.get("config.openshift.io/v1", "ClusterVersion", undefined, "version"))?.status;
    if ((view?.["history"] as Array<{ state: string }> | undefined)?.[0]?.state === "Completed") break;
    await new Promise((r) => setTimeout(r, 200));
  }
  assert.equal(
    (view?.["desired"] as { image?: string } | undefined)?.image,
    RELEASE,
    `kubectl get clusterversion shows the desired release; server log:\n${standby
      .stderr()
      .split("\n")
      .filter((l) => l.includes("ClusterVersion"))
      .slice(-5)
      .join("\n")}`,
  );
  assert.deepEqual(
    (view?.["history"] as Array<{ state: string; image: string }>).map((h) => [h.state, h.image]),
    [["Completed", RELEASE]],
  );
  assert.ok((view?.["conditions"] as Array<{ type: string }>).some((c) => c.type === "Progressing"));

  await stopSampling();
  const both = samples.filter((s) => s.roles.filter((r) => r === "ok: leader").length > 1);
  assert.deepEqual(both, [], "never two replicas leading at once");
  assert.ok(
    samples.some((s) => s.roles.includes("ok: standby")),
    "the samples saw a standby",
  );
});

test("a state object with a bad shape stops start-up naming it, and is left as it was", { timeout: 120_000 }, async () => {
  const namespace = "syncworker-bad-state";
  await cp.api.must("POST", "/api/v1/namespaces", { apiVersion: "v1", kind: "Namespace", metadata: { name: namespace } });
  const created = (await cp.api.must("POST", `/api/v1/namespaces/${namespace}/configmaps`, {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: "syncworker-state" },
    data: { "state.json": JSON.stringify({ format: "syncworker.state/v1", writer: "someone-else", revision: { published: "many" } }) },
  })) as { metadata: { resourceVersion: string } };
  const result = await promisify(execFile)(process.execPath, [
    ...SYNCWORKER,
    "serve",
    "--listen",
    "127.0.0.1:0",
    "--kubeconfig",
    cp.kubeconfig,
    "--namespace",
    namespace,
  ]).then(
    () => ({ code: 0, stderr: "" }),
    (err: { code: number; stderr: string }) => ({ code: err.code, stderr: err.stderr }),
  );
  assert.notEqual(result.code, 0, "start-up fails");
  assert.match(result.stderr, /ConfigMap syncworker-bad-state\/syncworker-state/, "the message names the object");
  assert.match(result.stderr, /revision\.published/, "and the offending field");
  const live = await cp.api.get("v1", "ConfigMap", namespace, "syncworker-state");
  assert.equal(live?.metadata.resourceVersion, created.metadata.resourceVersion, "nothing overwritten");
});
