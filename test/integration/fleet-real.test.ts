// The fleet with real OpenShift release payloads (SYNCWORKER_REAL_PAYLOADS): five fresh member `serve` processes on
// embedded clusters are installed with real-a (4.16.0) by one rollout, then moved to real-b (4.16.1) by a staged one,
// from a hub on the harness's real kube-apiserver.
import assert from "node:assert/strict";
import { setMaxListeners } from "node:events";
import { FLEET_API, MemberSampler, installFleet, registerMembers, startHub, waitForRollout } from "../harness/fleet.js";
import { startControlPlane, type ControlPlane } from "../harness/control-plane.js";
import { startServer, type ServerProcess } from "../harness/server.js";
import { realPayload, skipRealPayloads, tierTests } from "../harness/tiers.js";

const { after, before, test } = tierTests("kube");
setMaxListeners(50);

const NAMESPACE = "fleet-real";
const REAL_A = realPayload("real-a");
const REAL_B = realPayload("real-b");
let cp: ControlPlane;
const members: ServerProcess[] = [];
let hub: ServerProcess;

before(
  async () => {
    if (skipRealPayloads) return;
    cp = await startControlPlane();
    await installFleet(cp, NAMESPACE);
    // No release yet: the first rollout installs one.
    members.push(...(await Promise.all(Array.from({ length: 5 }, () => startServer(["--operator-delay", "500ms", "--reconcile-interval", "120s"])))));
    await registerMembers(cp, NAMESPACE, members);
    hub = await startHub(cp, NAMESPACE);
  },
  { timeout: 90 * 60_000 },
);

after(async () => {
  for (const p of [hub, ...members]) await p?.stop();
  await cp?.stop();
});

async function rollout(name: string, version: string, image: string): Promise<void> {
  await cp.api.apply(
    {
      apiVersion: FLEET_API,
      kind: "ReleaseRollout",
      metadata: { name, namespace: NAMESPACE },
      spec: {
        release: { version, image },
        memberSelector: { matchLabels: { env: "test" } },
        strategy: { maxConcurrent: 2, stages: [{ name: "canary", count: 1 }, { name: "rest" }] },
      },
    } as never,
    "test",
  );
}

test(
  "real OpenShift payloads: a rollout installs 4.16.0 on five members, a staged one moves them to 4.16.1, two at a time",
  { timeout: 40 * 60_000, skip: skipRealPayloads },
  async () => {
    await rollout("install-4-16-0", "4.16.0", REAL_A);
    const installed = await waitForRollout(cp, NAMESPACE, "install-4-16-0", (s) => ["Completed", "Halted"].includes(s.phase ?? ""), 20 * 60_000);
    assert.equal(installed.phase, "Completed", JSON.stringify(installed.members?.filter((m) => m.state !== "Succeeded")));

    const sampler = new MemberSampler(members);
    await rollout("to-4-16-1", "4.16.1", REAL_B);
    const updated = await waitForRollout(cp, NAMESPACE, "to-4-16-1", (s) => ["Completed", "Halted"].includes(s.phase ?? ""), 20 * 60_000);
    await sampler.stop();
    assert.equal(updated.phase, "Completed", JSON.stringify(updated.members?.filter((m) => m.state !== "Succeeded")));
    assert.equal(updated.stageSummary, "canary 1/1 · rest 4/4");
    assert.ok(sampler.maxUpdating <= 2, `the members reported ${sampler.maxUpdating} updating at once`);
    for (const m of members) {
      const s = await m.client.getStatus();
      assert.equal(s.actual?.version, "4.16.1");
      assert.equal(s.generation, 2, "one generation per rollout");
    }
  },
);
