// Hostile and broken registries against a real `syncworker serve` (issue 28): crafted images in the real test registry
// (a layer declared gzip that is plain tar, a corrupt gzip trailer, a decompression bomb, too many files) and a small
// HTTP server of the test's own that answers as a registry would not (never, a byte at a time, endlessly, a 404 with
// an endless body, a layer declaring 50 GiB). Each must fail its Update at RetrievePayload naming the cause while the
// service stays up and the accepted release stays; a saved Update replayed at start-up must not crash the restart.
import assert from "node:assert/strict";
import { once } from "node:events";
import { mkdtemp, readFile } from "node:fs/promises";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createGzip, gunzipSync } from "node:zlib";
import { pack } from "tar-stream";
import type { SyncWorkerStatus, UpdateInput } from "@syncworker/client";
import { goArch } from "../../src/payload/index.js";
import { RegistryClient } from "../../src/retrieval/index.js";
import { parseReference, pushPayload, sha256Digest } from "../../src/retrieval/registry/index.js";
import { writePayload } from "../harness/payload-gen.js";
import { startRegistry, tarLayer, type TestRegistry } from "../harness/registry.js";
import { startServer, waitForStatus, type ServerProcess } from "../harness/server.js";
import { tierTests } from "../harness/tiers.js";

const { after, before, test } = tierTests("registry");

const ARCH = goArch(process.arch);
const signal = new AbortController().signal;
const INCLUDE = { "include.release.openshift.io/self-managed-high-availability": "true" };
const MiB = 2 ** 20;
/** Small bounds, so every hostile case is refused in seconds; the flags are what is under test, not their defaults. */
const LIMITS = [
  ["--payload-max-bytes", "16Mi"],
  ["--payload-max-files", "1000"],
  ["--registry-max-response", "64Ki"],
  ["--registry-max-layer", "64Mi"],
  ["--registry-pull-timeout", "6s"],
  ["--registry-stall-timeout", "2s"],
].flat();

let registry: TestRegistry;
let client: RegistryClient;
let fake: FakeRegistry;
let server: ServerProcess;
let good: string;
let generation = 0;

/** What the fake registry answers for one request of a repository. */
type Answer = (req: IncomingMessage, res: ServerResponse) => void;

interface FakeRegistry {
  readonly host: string;
  /** Routes `/v2/<repository>/…` to `answer`. */
  serve(repository: string, answer: Answer): void;
  stop(): Promise<void>;
}

/** An HTTP server speaking just enough of the distribution API to be pulled from, answering as each case says. */
async function startFakeRegistry(): Promise<FakeRegistry> {
  const routes = new Map<string, Answer>();
  const http: Server = createServer((req, res) => {
    const path = new URL(req.url ?? "/", "http://x").pathname;
    if (path === "/v2/") return void res.writeHead(200).end("{}");
    const repository = /^\/v2\/(.+)\/(manifests|blobs)\//.exec(path)?.[1] ?? "";
    const answer = routes.get(repository);
    if (!answer) return void res.writeHead(404).end();
    answer(req, res);
  });
  http.listen(0, "127.0.0.1");
  await once(http, "listening");
  return {
    host: `127.0.0.1:${(http.address() as AddressInfo).port}`,
    serve: (repository, answer) => void routes.set(repository, answer),
    stop: async () => {
      http.closeAllConnections();
      http.close();
      await once(http, "close");
    },
  };
}

/** Writes `chunk` until the client goes away: an endless body. */
function endless(res: ServerResponse, chunk: Buffer): void {
  const write = (): void => {
    while (!res.destroyed && res.write(chunk));
  };
  res.on("drain", write);
  write();
}

const OCI_MANIFEST = "application/vnd.oci.image.manifest.v1+json";
const CONFIG = Buffer.from("{}");

/** An OCI image manifest listing `layers` (digest and declared size) as gzip layers, and its digest. */
function manifestOf(layers: readonly { digest: string; size: number }[]): { bytes: Buffer; digest: string } {
  const config = { mediaType: "application/vnd.oci.image.config.v1+json", digest: sha256Digest(CONFIG), size: CONFIG.length };
  const bytes = Buffer.from(
    JSON.stringify({
      schemaVersion: 2,
      mediaType: OCI_MANIFEST,
      config,
      layers: layers.map((l) => ({ mediaType: "application/vnd.oci.image.layer.v1.tar+gzip", ...l })),
    }),
  );
  return { bytes, digest: sha256Digest(bytes) };
}

/**
 * Pushes `blob` as the one gzip layer of an image, byte for byte (push.ts's pushImage decompresses its layers, which
 * a layer that is not gzip cannot survive); returns the image's pull spec by digest.
 */
async function pushRawLayer(repository: string, blob: Buffer): Promise<string> {
  const ref = parseReference(`${registry.host}/${repository}:latest`);
  await client.pushBlob(ref, sha256Digest(CONFIG), CONFIG, signal);
  await client.pushBlob(ref, sha256Digest(blob), blob, signal);
  const manifest = manifestOf([{ digest: sha256Digest(blob), size: blob.length }]);
  await client.pushManifest(ref, manifest.digest, OCI_MANIFEST, manifest.bytes, signal);
  return `${registry.host}/${repository}@${manifest.digest}`;
}

/** Answers a manifest request with `manifest` and a blob request as `blob` says. */
function image(manifest: Buffer, blob: Answer): Answer {
  return (req, res) =>
    req.url?.includes("/manifests/") ? res.writeHead(200, { "content-type": "application/vnd.oci.image.manifest.v1+json" }).end(manifest) : blob(req, res);
}

/** A gzip layer of `count` files of `size` zero bytes under manifests/, streamed (a bomb is never held expanded). */
async function zeroFilesLayer(count: number, size: number): Promise<Buffer> {
  const tar = pack();
  const zero = Buffer.alloc(size);
  const gz = tar.pipe(createGzip({ level: 9 }));
  const chunks: Buffer[] = [];
  const done = (async () => {
    for await (const chunk of gz as AsyncIterable<Buffer>) chunks.push(chunk);
  })();
  for (let i = 0; i < count; i++) {
    await new Promise<void>((resolve, reject) => tar.entry({ name: `manifests/zero-${i}.yaml`, size }, zero, (err) => (err ? reject(err) : resolve())));
  }
  tar.finalize();
  await done;
  return Buffer.concat(chunks);
}

function request(image: string): UpdateInput {
  return { generation: ++generation, desired: { version: "", image, force: false }, overrides: [], capabilities: undefined, state: 0 };
}

/** Peak resident memory of the server process (VmHWM), in MiB. */
async function peakRss(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, "utf8");
  return Number(/^VmHWM:\s+(\d+) kB/m.exec(status)?.[1] ?? 0) / 1024;
}

/** Updates to `image`, which must fail at RetrievePayload with a message matching `cause`; the service stays up on `good`. */
async function refused(name: string, image: string, cause: RegExp): Promise<void> {
  const status = await server.client.update(request(image));
  const load = status.loadPayloadStatus;
  assert.equal(load?.step, "RetrievePayload", `${name}: ${JSON.stringify(load)}`);
  assert.equal(load?.failure?.reason, "UpdatePayloadRetrievalFailed", name);
  assert.match(load?.failure?.message ?? "", /^Unable to download and prepare the update: pulling 127\.0\.0\.1:\d+\/[^:]+: /, name);
  assert.match(load?.failure?.message ?? "", cause, name);
  assert.equal(server.child.exitCode, null, `${name}: the service is alive`);
  const after = await server.client.getStatus();
  assert.equal(after.actual?.image, good, `${name}: the accepted release stays`);
}

const completed = (image: string) => (s: SyncWorkerStatus) => s.actual?.image === image && s.completed >= 1 && s.done === s.total && !s.failure;

before(async () => {
  registry = await startRegistry();
  fake = await startFakeRegistry();
  client = new RegistryClient({ authFile: "", authFileOptional: true, insecureHosts: [registry.host] });
  const dir = await mkdtemp(join(tmpdir(), "syncworker-hostile-payload-"));
  await writePayload(dir, "1.0.0", [
    {
      file: "0000_50_cm.yaml",
      obj: { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "hostile", namespace: "default", annotations: INCLUDE }, data: { a: "b" } },
    },
  ]);
  good = await pushPayload(client, dir, `${registry.host}/release/good:1.0.0`, ARCH, signal);
  const cache = await mkdtemp(join(tmpdir(), "syncworker-hostile-cache-"));
  server = await startServer(["--insecure-registry", registry.host, "--insecure-registry", fake.host, "--payload-cache", cache, ...LIMITS]);
  const accepted = await server.client.update(request(good));
  assert.equal(accepted.loadPayloadStatus?.step, "PayloadLoaded", JSON.stringify(accepted.loadPayloadStatus));
  await waitForStatus(server.client, completed(good), 120_000);
});
after(async () => {
  assert.equal(await server?.stop(), 0);
  await client?.close();
  await registry?.stop();
  await fake?.stop();
});

test("crafted images in the registry: bad gzip, a bomb, too many files; each refused naming the layer and the cause", { timeout: 300_000 }, async (t) => {
  const plain = gunzipSync(await tarLayer([{ name: "manifests/x.yaml", content: "x" }]));
  const gz = await tarLayer([{ name: "manifests/y.yaml", content: "y" }]);
  const trailer = Buffer.from(gz);
  trailer[trailer.length - 5] = trailer[trailer.length - 5]! ^ 0xff;
  // 20 files of 60 MiB: each under the per-file cap, 1.2 GiB together, about 1.2 MB compressed.
  const bomb = await pushRawLayer("hostile/bomb", await zeroFilesLayer(20, 60 * MiB));
  const many = await pushRawLayer("hostile/many", await tarLayer(Array.from({ length: 1500 }, (_, i) => ({ name: `manifests/m-${i}.yaml`, content: "x" }))));

  const before = await peakRss(server.child.pid!);
  await refused(
    "a layer declared gzip that is plain tar",
    await pushRawLayer("hostile/not-gzip", plain),
    new RegExp(`extracting layer ${sha256Digest(plain)} \\(gzip\\): .*incorrect header check`),
  );
  await refused(
    "a corrupt gzip trailer",
    await pushRawLayer("hostile/bad-trailer", trailer),
    new RegExp(`extracting layer ${sha256Digest(trailer)} \\(gzip\\): .*(incorrect data check|unexpected end)`),
  );
  await refused(
    "a decompression bomb",
    bomb,
    /tar entry "manifests\/zero-\d+\.yaml" refused: the payload's files would exceed 16777216 bytes in all \(--payload-max-bytes\)/,
  );
  await refused("too many files", many, /refused: the payload has more than 1000 entries \(--payload-max-files\)/);
  const peak = await peakRss(server.child.pid!);
  // Reported, not asserted: the figure depends on the machine.
  t.diagnostic(`serve peak RSS (VmHWM): ${before.toFixed(0)} MiB before the crafted images, ${peak.toFixed(0)} MiB after them`);
});

test("registries that never answer, drip, or send endless bodies fail the pull naming the registry and the step", { timeout: 300_000 }, async () => {
  const hung = new Set<ServerResponse>();
  fake.serve("slow/never", (_req, res) => void hung.add(res));
  fake.serve("slow/drip", (_req, res) => {
    res.writeHead(200, { "content-type": "application/vnd.oci.image.manifest.v1+json" });
    const timer = setInterval(() => (res.destroyed ? clearInterval(timer) : res.write(" ")), 500);
  });
  fake.serve("big/manifest", (_req, res) => {
    res.writeHead(200, { "content-type": "application/vnd.oci.image.manifest.v1+json" });
    endless(res, Buffer.alloc(MiB, 0x20));
  });
  const layer = await tarLayer([{ name: "manifests/z.yaml", content: "z" }]);
  const notFound = manifestOf([{ digest: sha256Digest(layer), size: layer.length }]);
  fake.serve(
    "big/error",
    image(notFound.bytes, (_req, res) => {
      res.writeHead(404, { "content-type": "text/plain" });
      endless(res, Buffer.alloc(MiB, 0x78));
    }),
  );
  const huge = manifestOf([{ digest: sha256Digest(layer), size: 50 * 2 ** 30 }]);
  let hugeBlobGets = 0;
  fake.serve(
    "big/layer",
    image(huge.bytes, (_req, res) => {
      hugeBlobGets++;
      endless(res, Buffer.alloc(MiB));
    }),
  );
  const someDigest = sha256Digest(Buffer.from("never served"));

  await refused(
    "a registry that never answers",
    `${fake.host}/slow/never@${someDigest}`,
    new RegExp(`fetching manifest ${someDigest}: .*the registry sent nothing for 2s \\(--registry-stall-timeout\\)`),
  );
  await refused(
    "a registry sending a byte every 0.5 s",
    `${fake.host}/slow/drip@${someDigest}`,
    new RegExp(`fetching manifest ${someDigest}: the pull did not finish within 6s \\(--registry-pull-timeout\\)`),
  );
  await refused(
    "an endless manifest",
    `${fake.host}/big/manifest@${someDigest}`,
    /GET http:\/\/127\.0\.0\.1:\d+\/v2\/big\/manifest\/manifests\/sha256:[0-9a-f]{64}: the response body is over 65536 bytes, more than --registry-max-response allows \(65536 bytes\)/,
  );
  await refused(
    "a 404 with an endless body",
    `${fake.host}/big/error@${notFound.digest}`,
    new RegExp(`downloading layer ${sha256Digest(layer)}: GET http://127\\.0\\.0\\.1:\\d+/v2/big/error/blobs/sha256:[0-9a-f]{64}: 404 x{50}`),
  );
  await refused(
    "a layer declaring 50 GiB",
    `${fake.host}/big/layer@${huge.digest}`,
    new RegExp(`layer ${sha256Digest(layer)} declares 53687091200 bytes, more than --registry-max-layer allows \\(67108864\\)`),
  );
  assert.equal(hugeBlobGets, 0, "the 50 GiB layer was refused before anything was downloaded");
  for (const res of hung) res.destroy();
});

test(
  "a saved Update whose registry answered 503, replayed at start-up against a layer that is not gzip, fails that Update, not the start-up",
  { timeout: 300_000 },
  async () => {
    const stateDir = await mkdtemp(join(tmpdir(), "syncworker-hostile-state-"));
    const cache = await mkdtemp(join(tmpdir(), "syncworker-hostile-cache-"));
    const args = ["--state-dir", stateDir, "--insecure-registry", registry.host, "--insecure-registry", fake.host, "--payload-cache", cache, ...LIMITS];
    const plain = gunzipSync(await tarLayer([{ name: "release-manifests/release-metadata", content: "{}" }]));
    const bad = manifestOf([{ digest: sha256Digest(plain), size: plain.length }]);
    let unavailable = true;
    const blob: Answer = (_req, res) => void res.writeHead(200).end(plain);
    fake.serve("replay/bad", (req, res) => (unavailable ? res.writeHead(503).end("down for maintenance") : image(bad.bytes, blob)(req, res)));
    const target = `${fake.host}/replay/bad@${bad.digest}`;

    const first = await startServer(args);
    const accepted = await first.client.update({
      generation: 1,
      desired: { version: "", image: target, force: false },
      overrides: [],
      capabilities: undefined,
      state: 0,
    });
    assert.equal(accepted.loadPayloadStatus?.failure?.reason, "UpdatePayloadRetrievalFailed", JSON.stringify(accepted.loadPayloadStatus));
    assert.match(accepted.loadPayloadStatus?.failure?.message ?? "", /503 down for maintenance/);
    assert.equal(await first.stop(), 0);

    unavailable = false;
    const second = await startServer(args);
    try {
      const replayed = await waitForStatus(second.client, (s) => /incorrect header check/.test(s.loadPayloadStatus?.failure?.message ?? ""), 60_000);
      assert.equal(replayed.loadPayloadStatus?.update?.image, target, "the saved Update is what was replayed");
      assert.match(replayed.loadPayloadStatus?.failure?.message ?? "", new RegExp(`extracting layer ${sha256Digest(plain)} \\(gzip\\)`));
      // Upstream retries a failed retrieval; the service must survive those attempts too.
      await new Promise((resolve) => setTimeout(resolve, 2_000));
      assert.equal(second.child.exitCode, null, "the restarted service is alive");
      assert.ok(await second.client.getStatus());
    } finally {
      assert.equal(await second.stop(), 0);
    }
  },
);
