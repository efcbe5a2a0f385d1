// Release images pulled from a real OCI registry (Debian's docker-registry) by a real `syncworker serve`:
// updates by digest complete and report the digest, an index picks this node's architecture, a Docker v2
// schema 2 image copied by skopeo loads, a second pull of a digest is served from the cache, and every kind of
// broken or hostile image fails at RetrievePayload naming the cause while the running release stays; `diff` and
// `update --plan` by tag apply what was previewed, and a tag moved between them is refused naming both digests.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import type { SyncWorkerStatus, UpdateInput } from "@syncworker/client";
import { goArch } from "../../src/payload/index.js";
import { RegistryClient } from "../../src/retrieval/index.js";
import { payloadLayer, pushImage, pushIndex, pushPayload, sha256Digest } from "../../src/retrieval/registry/index.js";
import { runCli } from "../harness/cli.js";
import { writePayload } from "../harness/payload-gen.js";
import { loseBlob, startRegistry, tamperBlob, tarLayer, type LayerEntry, type TestRegistry } from "../harness/registry.js";
import { writeReleases } from "../harness/payload-gen.js";
import { REPO_ROOT, startServer, waitForStatus, type ServerProcess } from "../harness/server.js";
import { tierTests } from "../harness/tiers.js";

const { after, before, test } = tierTests("registry");

const DEMO_1 = join(REPO_ROOT, "examples/payloads/demo-1.0.0");
const DEMO_2 = join(REPO_ROOT, "examples/payloads/demo-1.1.0");
const { a: RELEASE_A } = await writeReleases();
const ARCH = goArch(process.arch);
const signal = new AbortController().signal;

let registry: TestRegistry;
let client: RegistryClient;
let server: ServerProcess;
let generation = 0;

before(async () => {
  registry = await startRegistry();
  client = new RegistryClient({ authFile: "", authFileOptional: true, insecureHosts: [registry.host] });
  const cache = await mkdtemp(join(tmpdir(), "syncworker-payload-cache-"));
  server = await startServer(["--insecure-registry", registry.host, "--payload-cache", cache]);
});
after(async () => {
  assert.equal(await server?.stop(), 0);
  await client?.close();
  await registry?.stop();
});

function request(image: string): UpdateInput {
  return { generation: ++generation, desired: { version: "", image, force: false }, overrides: [], capabilities: undefined, state: 0 };
}

const completed = (image: string) => (s: SyncWorkerStatus) => s.actual?.image === image && s.completed >= 1 && s.done === s.total && !s.failure;

/** Updates to `image` and waits until the release is completely applied. */
async function updateCompletes(image: string, timeoutMs = 120_000): Promise<SyncWorkerStatus> {
  const accepted = await server.client.update(request(image));
  assert.equal(accepted.loadPayloadStatus?.failure, undefined, `loads: ${JSON.stringify(accepted.loadPayloadStatus)}`);
  assert.equal(accepted.loadPayloadStatus?.step, "PayloadLoaded");
  return waitForStatus(server.client, completed(image), timeoutMs);
}

/** A one-layer image of `entries`, pushed by digest to a repository of its own; returns its pull spec. */
async function hostileImage(repository: string, entries: readonly LayerEntry[]): Promise<{ image: string; layer: string }> {
  const layer = await tarLayer(entries);
  const { digest } = await pushImage(client, `${registry.host}/${repository}:latest`, [layer], ARCH, signal);
  return { image: `${registry.host}/${repository}@${digest}`, layer: sha256Digest(layer) };
}

test("an update by digest completes on the embedded cluster, reports the digest, and a second pull uses the cache", { timeout: 300_000 }, async () => {
  const image = await pushPayload(client, RELEASE_A, `${registry.host}/release/release-a:1.0.0`, ARCH, signal);
  assert.match(image, /@sha256:[0-9a-f]{64}$/);
  const done = await updateCompletes(image, 240_000);
  assert.equal(done.actual?.image, image, "the status reports the pull spec by digest");
  assert.equal(registry.blobGets("release/release-a"), 1, "the one layer was pulled once");

  const demo = await pushPayload(client, DEMO_2, `${registry.host}/release/demo:1.1.0`, ARCH, signal);
  await updateCompletes(demo);
  const again = await server.client.update(request(image));
  assert.equal(again.loadPayloadStatus?.step, "PayloadLoaded", JSON.stringify(again.loadPayloadStatus));
  assert.equal(registry.blobGets("release/release-a"), 1, "the same digest was served from the cache, no blob fetched again");
  await waitForStatus(server.client, completed(image), 240_000);
});

test("an update by tag is resolved to the digest once, and the digest is what the status reports", { timeout: 120_000 }, async () => {
  const image = await pushPayload(client, DEMO_2, `${registry.host}/release/tagged:1.1.0`, ARCH, signal);
  const accepted = await server.client.update(request(`${registry.host}/release/tagged:1.1.0`));
  assert.equal(accepted.loadPayloadStatus?.update?.image, image, JSON.stringify(accepted.loadPayloadStatus));
  const done = await waitForStatus(server.client, completed(image), 120_000);
  assert.equal(done.history[0]?.image, image);
});

test("an image index loads the manifest of this node's architecture", { timeout: 120_000 }, async () => {
  const other = ARCH === "arm64" ? "s390x" : "arm64";
  const repo = `${registry.host}/release/multi`;
  const mine = await pushImage(client, `${repo}:${ARCH}`, [await payloadLayer(DEMO_1)], ARCH, signal);
  const theirs = await pushImage(client, `${repo}:${other}`, [await payloadLayer(DEMO_2)], other, signal);
  const index = await pushIndex(
    client,
    `${repo}:latest`,
    [
      { ...theirs, architecture: other },
      { ...mine, architecture: ARCH },
    ],
    signal,
  );
  const done = await updateCompletes(`${repo}@${index.digest}`);
  assert.equal(done.actual?.version, "1.0.0", `the ${ARCH} manifest's payload (demo-1.0.0), not ${other}'s`);
});

test("a Docker v2 schema 2 image written by skopeo loads", { timeout: 120_000 }, async () => {
  const source = await pushPayload(client, DEMO_1, `${registry.host}/release/demo:1.0.0`, ARCH, signal);
  const run = promisify(execFile);
  const dest = `docker://${registry.host}/release/docker-format:1.0.0`;
  await run("skopeo", ["copy", "--quiet", "--src-tls-verify=false", "--dest-tls-verify=false", "--format", "v2s2", `docker://${source}`, dest]);
  const { stdout } = await run("skopeo", ["inspect", "--tls-verify=false", "--raw", dest]);
  assert.match(stdout, /application\/vnd\.docker\.distribution\.manifest\.v2\+json/);
  const done = await updateCompletes(`${registry.host}/release/docker-format@${sha256Digest(Buffer.from(stdout))}`);
  assert.equal(done.actual?.version, "1.0.0");
});

test("broken and hostile images fail at RetrievePayload naming the cause; the running release stays", { timeout: 180_000 }, async () => {
  const good = await pushPayload(client, DEMO_1, `${registry.host}/release/demo:1.0.0`, ARCH, signal);
  await updateCompletes(good);

  const tampered = await hostileImage("broken/tampered", [
    { name: "release-manifests/release-metadata", content: `{"version":"9.9.9","tampered":"${generation}"}` },
  ]);
  await tamperBlob(registry, tampered.layer);
  const missing = await hostileImage("broken/missing", [
    { name: "release-manifests/release-metadata", content: `{"version":"9.9.8","missing":"${generation}"}` },
  ]);
  await loseBlob(registry, missing.layer);
  const stopped = await startRegistry();
  const downHost = stopped.host;
  await stopped.stop();

  const cases = [
    { name: "a tampered layer", image: tampered.image, cause: new RegExp(`blob ${tampered.layer} .* has digest sha256:[0-9a-f]{64}: the layer was altered`) },
    { name: "a manifest pointing to a missing blob", image: missing.image, cause: new RegExp(`blobs/${missing.layer}: 404 BLOB_UNKNOWN`) },
    {
      name: "an image without payload directories",
      image: (await hostileImage("broken/empty", [{ name: "etc/motd", content: "not a release" }])).image,
      cause: /has no release-manifests\/ directory .*not a release image/,
    },
    {
      name: "a tar entry with ../",
      image: (await hostileImage("broken/dotdot", [{ name: "release-manifests/../../escaped", content: "x" }])).image,
      cause: /tar entry "release-manifests\/\.\.\/\.\.\/escaped" refused: path contains "\.\."/,
    },
    {
      name: "a symbolic link leaving the root",
      image: (await hostileImage("broken/symlink", [{ name: "release-manifests/etc", type: "symlink", linkname: "../../../etc" }])).image,
      cause: /tar entry "release-manifests\/etc" refused: symbolic link to "\.\.\/\.\.\/\.\.\/etc" leaves the extraction root/,
    },
    {
      name: "a file written through a symbolic link",
      image: (
        await hostileImage("broken/through", [
          { name: "manifests/here", type: "symlink", linkname: "." },
          { name: "manifests/here/x.yaml", content: "x" },
        ])
      ).image,
      cause: /tar entry "manifests\/here\/x\.yaml" refused: it would be written through the symbolic link manifests\/here/,
    },
    {
      name: "a device file",
      image: (await hostileImage("broken/device", [{ name: "manifests/null", type: "character-device" }])).image,
      cause: /tar entry "manifests\/null" refused: character-device entries are not allowed/,
    },
    // A digest not in the cache: a cached one is served without asking the registry.
    {
      name: "a registry that is down",
      image: `${downHost}/release/demo@${sha256Digest(Buffer.from(`never pushed ${generation}`))}`,
      cause: new RegExp(`${downHost.replace(/\./g, "\\.")}.*ECONNREFUSED`),
    },
  ];
  for (const tc of cases) {
    const status = await server.client.update(request(tc.image));
    const load = status.loadPayloadStatus;
    assert.equal(load?.step, "RetrievePayload", `${tc.name}: ${JSON.stringify(load)}`);
    assert.equal(load?.failure?.reason, "UpdatePayloadRetrievalFailed", tc.name);
    assert.match(load?.failure?.message ?? "", /^Unable to download and prepare the update: /, tc.name);
    assert.match(load?.failure?.message ?? "", tc.cause, tc.name);
    assert.equal(status.actual?.image, good, `${tc.name}: the running release stays`);
  }
  const status = await server.client.getStatus();
  assert.equal(status.actual?.version, "1.0.0");
  assert.equal(status.failure, undefined, "the worker keeps applying the accepted release");
});

test("the CLI publishes a payload directory (push-payload), renders it by reference and updates to it", { timeout: 180_000 }, async () => {
  const pushed = await runCli(["push-payload", "examples/payloads/demo-1.1.0", `${registry.host}/cli/demo:1.1.0`, "--insecure-registry", registry.host]);
  assert.equal(pushed.code, 0, pushed.stderr);
  const image = pushed.stdout.trim();
  assert.match(image, new RegExp(`^${registry.host.replace(/\./g, "\\.")}/cli/demo@sha256:[0-9a-f]{64}$`));

  const cache = await mkdtemp(join(tmpdir(), "syncworker-render-cache-"));
  const fromImage = await runCli(["render", "--image", image, "--insecure-registry", registry.host, "--payload-cache", cache]);
  assert.equal(fromImage.code, 0, fromImage.stderr);
  const fromDir = await runCli(["render", "--image", "examples/payloads/demo-1.1.0", "--release-image", image]);
  assert.equal(fromImage.stdout, fromDir.stdout, "the image renders as the directory it was pushed from");
  assert.match(fromImage.stdout, /^included \d+ of \d+ manifests$/m);

  const updated = await runCli(["update", "--address", server.address, "--image", image, "--generation", String(++generation)]);
  assert.equal(updated.code, 0, updated.stderr);
  assert.equal((JSON.parse(updated.stdout) as { loadPayloadStatus?: { step?: string } }).loadPayloadStatus?.step, "PayloadLoaded");
  await waitForStatus(server.client, completed(image), 120_000);
});

/** `syncworker diff` of `image`: its output, and the plan digest it printed. */
async function diff(image: string): Promise<{ stdout: string; plan: string }> {
  const run = await runCli(["diff", "--address", server.address, "--image", image]);
  assert.equal(run.code, 1, `the update would change something: ${run.stderr}`);
  const [, plan] = /^Plan digest: (sha256:[0-9a-f]{64})$/m.exec(run.stdout) ?? [];
  assert.ok(plan, run.stdout);
  return { stdout: run.stdout, plan };
}

/** What the tests read of the status `syncworker update` prints. */
interface PrintedStatus {
  readonly loadPayloadStatus?: { readonly step?: string; readonly failure?: { readonly reason?: string; readonly message?: string } };
  readonly actual?: { readonly version?: string };
}

/** `syncworker update` of `image` pinned to `plan`: the status it printed, and its exit code and stderr. */
async function updatePinned(image: string, plan: string): Promise<PrintedStatus & { readonly code: number; readonly stderr: string }> {
  const run = await runCli(["update", "--address", server.address, "--image", image, "--plan", plan, "--generation", String(++generation)]);
  return { ...(JSON.parse(run.stdout) as PrintedStatus), code: run.code, stderr: run.stderr };
}

// Preview what you apply, by tag (issue 21): diff resolves the tag to its digest as update does.
test("diff by tag, then update by the same tag pinned to the previewed plan, applies it", { timeout: 120_000 }, async () => {
  const tag = `${registry.host}/release/previewed:1.0.0`;
  const image = await pushPayload(client, DEMO_1, tag, ARCH, signal);
  const previewed = await diff(tag);
  assert.ok(previewed.stdout.includes(`Resolved ${tag} to ${image}\n`), `diff names the digest it previewed:\n${previewed.stdout}`);
  assert.ok(previewed.stdout.includes(`(release 1.0.0 ${image})`), previewed.stdout);

  const accepted = await updatePinned(tag, previewed.plan);
  assert.equal(accepted.code, 0, accepted.stderr);
  assert.equal(accepted.loadPayloadStatus?.failure, undefined, JSON.stringify(accepted.loadPayloadStatus));
  assert.equal(accepted.loadPayloadStatus?.step, "PayloadLoaded");
  await waitForStatus(server.client, completed(image), 120_000);
});

test("a tag moved between diff and update is refused naming both image digests; the running release stays", { timeout: 120_000 }, async () => {
  const tag = `${registry.host}/release/previewed:next`;
  const first = await pushPayload(client, DEMO_2, tag, ARCH, signal);
  const previewed = await diff(tag);
  assert.ok(previewed.stdout.includes(`Resolved ${tag} to ${first}\n`), previewed.stdout);

  // Someone pushes another release to the same tag.
  const other = await mkdtemp(join(tmpdir(), "syncworker-moved-"));
  await writePayload(other, "1.2.0", [
    {
      file: "0000_50_moved_00_config.yaml",
      obj: { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "moved", namespace: "demo-config" }, data: { release: "1.2.0" } },
    },
  ]);
  const second = await pushPayload(client, other, tag, ARCH, signal);
  assert.notEqual(second, first);

  const refused = await updatePinned(tag, previewed.plan);
  const load = refused.loadPayloadStatus;
  assert.equal(load?.step, "PreconditionChecks", JSON.stringify(load));
  assert.equal(load?.failure?.reason, "PlanDigestMismatch");
  const digestOf = (image: string): string => image.slice(image.indexOf("@") + 1);
  const message = load?.failure?.message ?? "";
  assert.ok(message.includes(digestOf(first)) && message.includes(digestOf(second)), `names the previewed and the current image digest: ${message}`);
  assert.equal(refused.code, 1, "a refused update is no success for a script");
  assert.ok(refused.stderr.includes(digestOf(first)) && refused.stderr.includes(digestOf(second)), refused.stderr);
  assert.equal(refused.actual?.version, "1.0.0", "the previous release stays in effect");
});
