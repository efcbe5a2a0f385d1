// Pulling from a registry that serves TLS with a private CA and requires bearer tokens (the distribution token
// flow against a token server the harness runs): with the pull secret and the CA an update by digest completes;
// without credentials, or without trusting the CA, it fails at RetrievePayload naming why, and the release the
// service runs stays.
import assert from "node:assert/strict";
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { SyncWorkerStatus, UpdateInput } from "@syncworker/client";
import { goArch } from "../../src/payload/index.js";
import { RegistryClient } from "../../src/retrieval/index.js";
import { pushPayload } from "../../src/retrieval/registry/index.js";
import { startRegistry, writePullSecret, type TestRegistry } from "../harness/registry.js";
import { REPO_ROOT, startServer, waitForStatus, type ServerProcess } from "../harness/server.js";
import { tierTests } from "../harness/tiers.js";

const { after, before, test } = tierTests("registry", "tls");

const DEMO_1 = join(REPO_ROOT, "examples/payloads/demo-1.0.0");
const DEMO_2 = join(REPO_ROOT, "examples/payloads/demo-1.1.0");

let registry: TestRegistry;
let secret: string;
let image: string;
const servers: ServerProcess[] = [];

before(async () => {
  registry = await startRegistry({ secure: true });
  assert.ok(registry.pki && registry.user);
  secret = await writePullSecret(registry.host, registry.user);
  const client = new RegistryClient({ authFile: secret, authFileOptional: false, caPem: (await registry.pki.pem(registry.pki.ca)).toString() });
  try {
    image = await pushPayload(client, DEMO_2, `${registry.host}/release/demo:1.1.0`, goArch(process.arch), new AbortController().signal);
  } finally {
    await client.close();
  }
});
after(async () => {
  for (const server of servers) assert.equal(await server.stop(), 0);
  await registry?.stop();
});

/** A server whose default credential locations are empty, so only the flags given count. */
async function serve(args: readonly string[]): Promise<ServerProcess> {
  const home = await mkdtemp(join(tmpdir(), "syncworker-no-credentials-"));
  const server = await startServer([...args, "--payload-cache", join(home, "cache")], { DOCKER_CONFIG: home, REGISTRY_AUTH_FILE: "" });
  servers.push(server);
  return server;
}

function request(target: string, generation: number): UpdateInput {
  return { generation, desired: { version: "", image: target, force: false }, overrides: [], capabilities: undefined, state: 0 };
}

const completed = (target: string) => (s: SyncWorkerStatus) => s.actual?.image === target && s.completed >= 1 && s.done === s.total && !s.failure;

test("with the pull secret and the registry's CA, an update by digest completes through the token flow", { timeout: 120_000 }, async () => {
  const server = await serve(["--registry-ca", registry.pki!.ca, "--pull-secret", secret]);
  const accepted = await server.client.update(request(image, 1));
  assert.equal(accepted.loadPayloadStatus?.step, "PayloadLoaded", JSON.stringify(accepted.loadPayloadStatus));
  const done = await waitForStatus(server.client, completed(image), 60_000);
  assert.equal(done.actual?.version, "1.1.0");
  assert.match(registry.log(), /"GET \/v2\/release\/demo\/blobs\/sha256:[0-9a-f]{64} HTTP\/1\.1" 200/, "the blob was served to the token holder");
});

for (const tc of [
  {
    name: "without credentials",
    args: () => ["--registry-ca", registry.pki!.ca],
    cause: () => new RegExp(`registry ${registry.host.replace(/\./g, "\\.")} requires authentication and there are no credentials for it`),
  },
  {
    name: "without trusting the registry's CA",
    args: () => ["--pull-secret", secret],
    cause: () => /self[- ]signed certificate|unable to (get local issuer|verify)/,
  },
]) {
  test(`${tc.name}, the pull fails at RetrievePayload naming why and the running release stays`, { timeout: 120_000 }, async () => {
    const server = await serve(tc.args());
    await server.client.update(request(DEMO_1, 1));
    await waitForStatus(server.client, completed(DEMO_1), 60_000);
    const refused = await server.client.update(request(image, 2));
    assert.equal(refused.loadPayloadStatus?.step, "RetrievePayload", JSON.stringify(refused.loadPayloadStatus));
    assert.equal(refused.loadPayloadStatus?.failure?.reason, "UpdatePayloadRetrievalFailed");
    assert.match(refused.loadPayloadStatus?.failure?.message ?? "", tc.cause());
    assert.equal(refused.actual?.image, DEMO_1, "the running release stays");
  });
}
