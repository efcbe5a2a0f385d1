// Bounded, honest status on a real `syncworker serve` with a real registry: an image index listing thousands of
// foreign platforms fails the Update with a short message, and every reader (Update's answer, GetStatus,
// StatusWatch, state.json) still works; capability names this release does not know are refused and never become
// /metrics series; a --signature-store URL's password never reaches the status, the history, state.json or the log;
// the CLI prints server-provided text with no terminal control bytes.
import assert from "node:assert/strict";
import { mkdtemp, readFile, stat, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as openpgp from "openpgp";
import { Code, SyncWorkerError, type SyncWorkerStatus, type UpdateInput } from "@syncworker/client";
import { goArch } from "../../src/payload/index.js";
import { RegistryClient } from "../../src/retrieval/index.js";
import { payloadLayer, pushImage, pushIndex } from "../../src/retrieval/registry/index.js";
import { KNOWN_CAPABILITIES } from "../../src/policy/index.js";
import { runCli } from "../harness/cli.js";
import { startRegistry, tarLayer, type TestRegistry } from "../harness/registry.js";
import { REPO_ROOT, startServer, waitForStatus, type ServerProcess } from "../harness/server.js";
import { tierTests } from "../harness/tiers.js";

const { after, before, test } = tierTests("registry");

const DEMO = join(REPO_ROOT, "examples/payloads/demo-1.0.0");
const ARCH = goArch(process.arch);
const signal = new AbortController().signal;
const PASSWORD = "s3cret-store-password";
/** gRPC's default receive limit, which every default client keeps. */
const DEFAULT_RECEIVE_LIMIT = 4 * 1024 * 1024;

let registry: TestRegistry;
let client: RegistryClient;
let server: ServerProcess;
let store: Server;
let stateDir: string;
let generation = 0;

before(async () => {
  registry = await startRegistry();
  client = new RegistryClient({ authFile: "", authFileOptional: true, insecureHosts: [registry.host] });
  const keys = await mkdtemp(join(tmpdir(), "syncworker-keys-"));
  const { publicKey } = await openpgp.generateKey({ userIDs: [{ name: "trusted", email: "trusted@example.com" }], format: "armored" });
  await writeFile(join(keys, "trusted.asc"), publicKey);
  // A signature store with nothing in it: every release is unverified, and a forced one records why, naming the store.
  store = createServer((_req, res) => res.writeHead(404).end());
  await new Promise<void>((resolve) => store.listen(0, "127.0.0.1", resolve));
  const storeUrl = `http://user:${PASSWORD}@127.0.0.1:${(store.address() as AddressInfo).port}/`;
  stateDir = await mkdtemp(join(tmpdir(), "syncworker-state-"));
  const cache = await mkdtemp(join(tmpdir(), "syncworker-payload-cache-"));
  server = await startServer([
    "--state-dir",
    stateDir,
    "--insecure-registry",
    registry.host,
    "--payload-cache",
    cache,
    "--verification-keys",
    keys,
    "--signature-store",
    storeUrl,
    "--metrics-listen",
    "127.0.0.1:0",
  ]);
});
after(async () => {
  assert.equal(await server?.stop(), 0);
  await client?.close();
  await registry?.stop();
  await new Promise((resolve) => store?.close(resolve));
});

const request = (image: string, force: boolean, capabilities?: UpdateInput["capabilities"]): UpdateInput => ({
  generation: ++generation,
  desired: { version: "", image, force },
  overrides: [],
  capabilities,
  state: 0,
});

const savedState = async (): Promise<string> => readFile(join(stateDir, "state.json"), "utf8");

test("an image index of 13,000 foreign platforms fails the Update with a bounded message; every reader still works", { timeout: 180_000 }, async () => {
  const image = await pushImage(client, `${registry.host}/release/foreign:one`, [await tarLayer([{ name: "x", content: "x" }])], "foreign", signal);
  // One real manifest listed 13,000 times (the registry checks that what an index lists exists, and takes at most 4 MiB of it): unbounded, the
  // message naming each is 0.8 MB, and a status quotes it several times.
  const platforms = Array.from({ length: 13_000 }, (_, i) => ({ ...image, architecture: `arch${i}-${"x".repeat(50)}` }));
  const index = await pushIndex(client, `${registry.host}/release/foreign:index`, platforms, signal);
  const ref = `${registry.host}/release/foreign@${index.digest}`;

  const answered = await server.client.update(request(ref, true));
  const failure = answered.loadPayloadStatus?.failure?.message ?? answered.failure?.message ?? "";
  assert.match(failure, /no manifest for linux\/\w+ \(it has linux\/arch0-x+, linux\/arch1-x+, .* … and 12950 more\)$/);

  const status = await server.client.getStatus();
  assert.equal(status.revision >= answered.revision, true);
  const watched = await waitForStatus(server.client, (s) => s.loadPayloadStatus?.failure !== undefined, 30_000);
  assert.match(watched.loadPayloadStatus?.failure?.message ?? "", /… and 12950 more/);
  const raw = await runCli(["status", "--address", server.address]);
  assert.equal(raw.code, 0, raw.stderr);
  await waitForSaved((text) => text.includes("… and 12950 more"));
  const size = (await stat(join(stateDir, "state.json"))).size;
  assert.ok(size < DEFAULT_RECEIVE_LIMIT / 4, `state.json is ${size} bytes`);
});

async function waitForSaved(holds: (text: string) => boolean): Promise<string> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const text = await savedState().catch(() => "");
    if (holds(text)) return text;
    if (Date.now() > deadline) throw new Error(`state.json did not reach the expected state; it is ${text.length} characters`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

test(
  "unknown capability names are refused with INVALID_ARGUMENT naming them, and /metrics has one series per known capability",
  { timeout: 180_000 },
  async () => {
    const invented = Array.from({ length: 20_000 }, (_, i) => `Invented${i}`);
    const refused = await server.client
      .update(request(DEMO, false, { baselineCapabilitySet: "None", additionalEnabledCapabilities: ["Console", ...invented] }))
      .then(
        () => assert.fail("accepted"),
        (err: unknown) => err,
      );
    assert.ok(refused instanceof SyncWorkerError && refused.code === Code.InvalidArgument, String(refused));
    assert.match(refused.rawMessage, /20000 unknown capabilities: "Invented0", "Invented1", .* … and 19950 more$/);

    await server.client.update(request(DEMO, false, { baselineCapabilitySet: "None", additionalEnabledCapabilities: ["Console"] }));
    await waitForStatus(server.client, (s) => s.capabilitiesStatus?.enabled.includes("Console") === true, 60_000);
    const metrics = await (await fetch(`http://${server.metricsAddress}/metrics`)).text();
    const series = metrics.split("\n").filter((line) => line.startsWith("cluster_version_capability{"));
    assert.ok(series.length > 0 && series.length <= KNOWN_CAPABILITIES.length, `${series.length} series`);
    assert.ok(
      series.some((line) => line.startsWith('cluster_version_capability{name="Console"} 1')),
      series.join("\n"),
    );
  },
);

test("a --signature-store URL's password is in none of the status, the history, state.json and the log", { timeout: 180_000 }, async () => {
  const extra = await tarLayer([{ name: "notes/redaction", content: "1" }]);
  const { digest } = await pushImage(client, `${registry.host}/release/unsigned:latest`, [await payloadLayer(DEMO), extra], ARCH, signal);
  const image = `${registry.host}/release/unsigned@${digest}`;
  const accepted = await server.client.update(request(image, true));
  assert.equal(accepted.loadPayloadStatus?.step, "PayloadLoaded", JSON.stringify(accepted.loadPayloadStatus));
  const risks = accepted.loadPayloadStatus?.acceptedRisks ?? "";
  assert.match(risks, /http:\/\/redacted@127\.0\.0\.1:\d+\//, "the store is still named");
  const done = await waitForStatus(server.client, (s: SyncWorkerStatus) => s.actual?.image === image && s.history[0]?.acceptedRisks !== "", 120_000);
  const shown = JSON.stringify(done);
  assert.ok(shown.includes("redacted@") && !shown.includes(PASSWORD), "status and history");
  const saved = await waitForSaved((text) => text.includes(digest) && text.includes("redacted@"));
  assert.ok(!saved.includes(PASSWORD), "state.json");
  assert.ok(server.stderr().includes("redacted@") && !server.stderr().includes(PASSWORD), "the log");
});

test("pause and resume print server-provided text without terminal control bytes", { timeout: 120_000 }, async () => {
  const hostile = "maintenance \u001b]0;pwned\u0007\u001b[2J \u009b31m";
  const paused = await runCli(["pause", "--address", server.address, "--reason", hostile]);
  assert.equal(paused.code, 0, paused.stderr);
  assert.match(paused.stdout, /maintenance \\u001b\]0;pwned\\u0007\\u001b\[2J \\u009b31m/);
  const resumed = await runCli(["resume", "--address", server.address]);
  assert.equal(resumed.code, 0, resumed.stderr);
  for (const out of [paused.stdout, resumed.stdout]) assert.doesNotMatch(out, /[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/);
});
