// A member reached the way a production member is: its syncworker serves TLS and takes only bearer tokens, and its
// MemberCluster names the CA and the token by Secret. The hub's controller reads both Secrets and rolls the member
// out; a wrong token in the Secret is refused by the member, and shows as the member's state, not as a crash.
import assert from "node:assert/strict";
import { join } from "node:path";
import { isComplete } from "@syncworker/client";
import { startControlPlane, type ControlPlane } from "../harness/control-plane.js";
import { FLEET_API, demoAt, installFleet, startHub, tempDir, waitForRollout } from "../harness/fleet.js";
import { REPO_ROOT, startServer, waitForStatus, type ServerProcess } from "../harness/server.js";
import { makeTestPki, READER_TOKEN, WRITER_TOKEN, writeTokenFile, type TestPki } from "../harness/tls.js";
import { SyncWorkerClient } from "@syncworker/client";
import { tierTests } from "../harness/tiers.js";

const { after, before, test } = tierTests("kube", "tls");

const NAMESPACE = "fleet-secure";
let cp: ControlPlane;
let pki: TestPki;
let member: ServerProcess;
let hub: ServerProcess;

before(
  async () => {
    cp = await startControlPlane();
    await installFleet(cp, NAMESPACE);
    pki = await makeTestPki();
    member = await startServer([...pki.serveArgs(false), "--token-file", await writeTokenFile(pki.dir), "--reconcile-interval", "60s"]);
    // The harness's client speaks plaintext without a token: install the first release with one that does not.
    const admin = new SyncWorkerClient(member.address, { tls: { ca: await pki.pem(pki.ca), serverName: "localhost" }, token: WRITER_TOKEN });
    await admin.update({ generation: 1, desired: { image: join(REPO_ROOT, "examples/payloads/demo-1.0.0") } });
    await waitForStatus(admin, (s) => isComplete(s), 180_000);
    admin.close();
    const secret = (name: string, data: Record<string, string>) =>
      cp.api.apply(
        {
          apiVersion: "v1",
          kind: "Secret",
          metadata: { name, namespace: NAMESPACE },
          data: Object.fromEntries(Object.entries(data).map(([k, v]) => [k, Buffer.from(v).toString("base64")])),
        } as never,
        "test",
      );
    await secret("member-tls", { "ca.crt": (await pki.pem(pki.ca)).toString() });
    await secret("member-token", { token: WRITER_TOKEN });
    await secret("reader-token", { token: READER_TOKEN });
    hub = await startHub(cp, NAMESPACE);
  },
  { timeout: 90 * 60_000 },
);

after(async () => {
  await hub?.stop();
  await member?.stop();
  await cp?.stop();
});

async function registerMember(tokenSecret: string): Promise<void> {
  await cp.api.apply(
    {
      apiVersion: FLEET_API,
      kind: "MemberCluster",
      metadata: { name: "secure", namespace: NAMESPACE, labels: { env: "secure" } },
      spec: { address: member.address, tls: { secretRef: { name: "member-tls" }, serverName: "localhost" }, tokenSecretRef: { name: tokenSecret } },
    } as never,
    "test",
  );
}

async function rollout(name: string, version: string): Promise<void> {
  const image = await demoAt(await tempDir("fleet-secure-"), version);
  await cp.api.apply(
    {
      apiVersion: FLEET_API,
      kind: "ReleaseRollout",
      metadata: { name, namespace: NAMESPACE },
      spec: { release: { version, image }, memberSelector: { matchLabels: { env: "secure" } }, strategy: { maxFailures: 1, stages: [{ name: "all" }] } },
    } as never,
    "test",
  );
}

test("a reader's token in the Secret is refused by the member: its Update fails there, with the member's reason", { timeout: 5 * 60_000 }, async () => {
  await registerMember("reader-token");
  await rollout("with-reader-token", "1.1.0");
  const status = await waitForRollout(cp, NAMESPACE, "with-reader-token", (s) => s.members?.[0]?.state === "Failed", 3 * 60_000);
  assert.match(status.members?.[0]?.blocker ?? "", /PermissionDenied/);
  assert.equal(status.phase, "Completed", "one failure is within the budget of 1");
});

test("over TLS with the writer's token from its Secrets, the member is rolled out", { timeout: 5 * 60_000 }, async () => {
  await registerMember("member-token");
  await rollout("with-writer-token", "1.1.1");
  const status = await waitForRollout(cp, NAMESPACE, "with-writer-token", (s) => ["Completed", "Halted"].includes(s.phase ?? ""), 4 * 60_000);
  assert.equal(status.members?.[0]?.state, "Succeeded", JSON.stringify(status.members));
  assert.equal(status.pinnedImage?.endsWith("demo-1.1.1"), true);
});
