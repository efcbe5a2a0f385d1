// The registry retriever's pure parts and its file handling: references, challenges, credentials, manifests and
// platforms, layer extraction (whiteouts, links, refusals), the cache's self-check, and the verification policy.
import assert from "node:assert/strict";
import { mkdir, mkdtemp, readFile, readdir, utimes, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import { test } from "node:test";
import { gunzipSync } from "node:zlib";
import { PayloadError } from "../../../src/payload/errors.js";
import { DirectoryRetriever, ImageRetriever } from "../../../src/retrieval/retrieve.js";
import { credentialsFor, parseChallenge } from "../../../src/retrieval/registry/auth.js";
import { checkEntry, entryDir, KEPT_ENTRIES, pruneCache, readArchive, removeStalePulls, sealEntry, touchEntry } from "../../../src/retrieval/registry/cache.js";
import { loadUpdate } from "../../../src/payload/load.js";
import { nodePayloadFs } from "../../../src/retrieval/node-fs.js";
import { MemoryPayloadFs, type PayloadNode, type PayloadTree } from "../../../src/payload/memory-fs.js";
import { openPayload } from "../../../src/retrieval/retrieve.js";
import { tempRelease } from "../../harness/payload-gen.js";
import { CAPS_4_16 } from "../payload/helpers.js";
import { PayloadExtractor } from "../../../src/retrieval/registry/extract.js";
import { layerCompression, parseManifest, selectPlatform, sha256Digest } from "../../../src/retrieval/registry/image-manifest.js";
import { RegistryClient, RegistryRetriever, parseReference, type ImageVerifier } from "../../../src/retrieval/registry/index.js";
import { tarLayer, type LayerEntry } from "../../harness/registry.js";

const HEX = "a".repeat(64);
const tmp = (prefix: string): Promise<string> => mkdtemp(join(tmpdir(), `syncworker-${prefix}-`));

for (const tc of [
  {
    text: `quay.io/openshift-release-dev/ocp-release@sha256:${HEX}`,
    want: { registry: "quay.io", repository: "openshift-release-dev/ocp-release", digest: `sha256:${HEX}` },
  },
  { text: "127.0.0.1:5000/release/demo:4.14.0-x86_64", want: { registry: "127.0.0.1:5000", repository: "release/demo", tag: "4.14.0-x86_64" } },
  { text: `localhost/demo:1@sha256:${HEX}`, want: { registry: "localhost", repository: "demo", tag: "1", digest: `sha256:${HEX}` } },
  { text: "busybox:latest", want: { registry: "docker.io", repository: "library/busybox", tag: "latest" } },
]) {
  test(`parseReference ${tc.text}`, () => assert.deepEqual(parseReference(tc.text), tc.want));
}

for (const tc of [
  { text: "quay.io/Upper/case:1", why: /lowercase path components/ },
  { text: "quay.io/repo@sha256:abc", why: /is not sha256:<64 hex digits>/ },
  { text: "quay.io/repo", why: /neither a tag nor a digest/ },
  { text: "quay.io/repo:bad tag", why: /is not a valid tag/ },
]) {
  test(`parseReference refuses ${tc.text}`, () =>
    assert.throws(() => parseReference(tc.text), {
      message: new RegExp(`invalid image reference "${tc.text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}": .*${tc.why.source}`),
    }));
}

test("parseChallenge reads quoted and bare parameters", () => {
  assert.deepEqual(parseChallenge('Bearer realm="https://auth.example/token",service="registry.example",scope="repository:a/b:pull"'), {
    scheme: "bearer",
    params: { realm: "https://auth.example/token", service: "registry.example", scope: "repository:a/b:pull" },
  });
  assert.deepEqual(parseChallenge("Basic realm=Registry"), { scheme: "basic", params: { realm: "Registry" } });
  assert.equal(parseChallenge(""), undefined);
});

test("credentialsFor reads a Docker config.json by registry host", async () => {
  const file = join(await tmp("auth"), "config.json");
  await writeFile(
    file,
    JSON.stringify({
      auths: {
        "quay.io": { auth: Buffer.from("robot:s3cr:et").toString("base64") },
        "https://index.docker.io/v1/": { username: "hub", password: "pw" },
        "registry.example:5000/some/path": { identitytoken: "tok" },
      },
    }),
  );
  assert.deepEqual(await credentialsFor(file, "quay.io", false), { username: "robot", password: "s3cr:et" });
  assert.deepEqual(await credentialsFor(file, "docker.io", false), { username: "hub", password: "pw" });
  assert.deepEqual(await credentialsFor(file, "registry.example:5000", false), { username: "<token>", password: "tok" });
  assert.equal(await credentialsFor(file, "other.example", false), undefined);
  assert.equal(await credentialsFor(join(file, "..", "absent.json"), "quay.io", true), undefined, "a missing default file is anonymous");
  await assert.rejects(credentialsFor(join(file, "..", "absent.json"), "quay.io", false), /reading registry credentials .*absent\.json: ENOENT/);
  await writeFile(file, "[]");
  await assert.rejects(credentialsFor(file, "quay.io", false), /config\.json are not a Docker config\.json: no "auths" object/);
});

const descriptor = (n: string, platform?: object): object => ({
  mediaType: "application/vnd.oci.image.manifest.v1+json",
  digest: `sha256:${n.repeat(64)}`,
  size: 10,
  ...(platform ? { platform } : {}),
});

test("parseManifest tells images from indexes, OCI and Docker alike", () => {
  const docker = { schemaVersion: 2, mediaType: "application/vnd.docker.distribution.manifest.v2+json", config: descriptor("c"), layers: [descriptor("1")] };
  assert.equal(parseManifest(Buffer.from(JSON.stringify(docker)), "").kind, "image");
  const oci = { schemaVersion: 2, config: descriptor("c"), layers: [descriptor("1"), descriptor("2")] };
  const parsed = parseManifest(Buffer.from(JSON.stringify(oci)), "application/vnd.oci.image.manifest.v1+json");
  assert.deepEqual(parsed.kind === "image" && parsed.layers.map((l) => l.digest), [`sha256:${"1".repeat(64)}`, `sha256:${"2".repeat(64)}`]);
  const index = {
    schemaVersion: 2,
    mediaType: "application/vnd.docker.distribution.manifest.list.v2+json",
    manifests: [descriptor("3", { os: "linux", architecture: "arm64" })],
  };
  assert.equal(parseManifest(Buffer.from(JSON.stringify(index)), "").kind, "index");
  assert.throws(() => parseManifest(Buffer.from(JSON.stringify({ schemaVersion: 1 })), ""), /schemaVersion 1 is not supported/);
  assert.throws(
    () => parseManifest(Buffer.from(JSON.stringify({ schemaVersion: 2, layers: [{ digest: "md5:x", size: 1 }] })), ""),
    /layers\[0\] has no sha256 digest/,
  );
});

test("selectPlatform picks linux/<arch> and lists what there is otherwise", () => {
  const manifests = [descriptor("1", { os: "linux", architecture: "arm64" }), descriptor("2", { os: "linux", architecture: "amd64" })];
  assert.equal(selectPlatform(parseDescriptors(manifests), "amd64").digest, `sha256:${"2".repeat(64)}`);
  assert.throws(() => selectPlatform(parseDescriptors(manifests), "s390x"), /no manifest for linux\/s390x \(it has linux\/arm64, linux\/amd64\)/);
});

function parseDescriptors(manifests: object[]): ReturnType<typeof selectPlatform>[] {
  const parsed = parseManifest(Buffer.from(JSON.stringify({ schemaVersion: 2, manifests })), "application/vnd.oci.image.index.v1+json");
  assert.equal(parsed.kind, "index");
  return parsed.kind === "index" ? [...parsed.manifests] : [];
}

test("layerCompression accepts gzip and plain tar layers and names what it refuses", () => {
  assert.equal(layerCompression("application/vnd.oci.image.layer.v1.tar+gzip"), "gzip");
  assert.equal(layerCompression("application/vnd.docker.image.rootfs.diff.tar.gzip"), "gzip");
  assert.equal(layerCompression("application/vnd.oci.image.layer.v1.tar"), "none");
  assert.throws(() => layerCompression("application/vnd.oci.image.layer.v1.tar+zstd"), /tar\+zstd" is not supported/);
});

/** Extracts `layers` (entry lists) in order; returns the tree they leave. */
async function extractLayers(...layers: LayerEntry[][]): Promise<PayloadTree> {
  const extractor = new PayloadExtractor();
  for (const [i, entries] of layers.entries()) {
    await extractor.extract(Readable.from([gunzipSync(await tarLayer(entries))]), `layer-${i}`, new AbortController().signal);
  }
  return extractor.tree();
}

/** A tree as path → file text, `-> target` of a link, or `/` for a directory. */
const shown = (tree: PayloadTree): Record<string, string> =>
  Object.fromEntries(
    [...tree]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([path, node]) => [path, node.kind === "file" ? node.data.toString() : node.kind === "symlink" ? `-> ${node.target}` : "/"]),
  );

test("only the payload directories are extracted, and later layers' whiteouts remove what earlier ones put", async () => {
  const tree = await extractLayers(
    [
      { name: "./release-manifests/a.yaml", content: "a" },
      { name: "release-manifests/b.yaml", content: "b" },
      { name: "manifests/old/x.yaml", content: "x" },
      { name: "etc/passwd", content: "not payload" },
      { name: "manifests/hard.yaml", type: "link", linkname: "release-manifests/a.yaml" },
    ],
    [
      { name: "release-manifests/.wh.b.yaml" },
      { name: "manifests/old/.wh..wh..opq" },
      { name: "manifests/old/y.yaml", content: "y" },
      { name: "manifests/link.yaml", type: "symlink", linkname: "old/y.yaml" },
    ],
  );
  assert.deepEqual(shown(tree), {
    manifests: "/",
    "manifests/hard.yaml": "a",
    "manifests/link.yaml": "-> old/y.yaml",
    "manifests/old": "/",
    "manifests/old/y.yaml": "y",
    "release-manifests": "/",
    "release-manifests/a.yaml": "a",
  });
});

for (const tc of [
  { name: "an absolute name", entries: [{ name: "/release-manifests/x", content: "x" }], why: /"\/release-manifests\/x" refused: absolute path/ },
  {
    name: "a link inside the root",
    entries: [
      { name: "manifests/ok", type: "symlink" as const, linkname: "../release-manifests" },
      { name: "manifests/ok/x", content: "x" },
    ],
    why: /written through the symbolic link manifests\/ok/,
  },
  {
    name: "an absolute link target",
    entries: [{ name: "manifests/l", type: "symlink" as const, linkname: "/etc/passwd" }],
    why: /symbolic link to "\/etc\/passwd" leaves the extraction root/,
  },
  {
    name: "a hard link to a file outside the payload",
    entries: [{ name: "manifests/l", type: "link" as const, linkname: "etc/shadow" }],
    why: /hard link to "etc\/shadow", which is not a payload file extracted before it/,
  },
]) {
  test(`extraction refuses ${tc.name}`, async () => {
    await assert.rejects(extractLayers(tc.entries), { message: new RegExp(`^layer layer-0: tar entry .*${tc.why.source}`) });
  });
}

test("extraction bounds a payload's total bytes and entries, counted across layers", async () => {
  const extract = async (limits: { maxPayloadBytes: number; maxPayloadFiles: number }, ...layers: LayerEntry[][]): Promise<void> => {
    const extractor = new PayloadExtractor(limits);
    for (const [i, entries] of layers.entries())
      await extractor.extract(Readable.from([gunzipSync(await tarLayer(entries))]), `layer-${i}`, new AbortController().signal);
  };
  const files = (n: number, size: number): LayerEntry[] => Array.from({ length: n }, (_, i) => ({ name: `manifests/f${i}.yaml`, content: "x".repeat(size) }));
  await extract({ maxPayloadBytes: 300, maxPayloadFiles: 10 }, files(3, 100));
  await assert.rejects(extract({ maxPayloadBytes: 300, maxPayloadFiles: 10 }, files(2, 100), files(2, 100)), {
    message: /^layer layer-1: tar entry "manifests\/f1\.yaml" refused: the payload's files would exceed 300 bytes in all \(--payload-max-bytes\)$/,
  });
  await assert.rejects(extract({ maxPayloadBytes: 1e6, maxPayloadFiles: 3 }, files(2, 1), files(2, 1)), {
    message: /^layer layer-1: tar entry "manifests\/f1\.yaml" refused: the payload has more than 3 entries \(--payload-max-files\)$/,
  });
});

test("a cache entry is used only while its archive has the recorded digest; the archive gives back the tree", async () => {
  const cache = await tmp("cache");
  const digest = `sha256:${HEX}`;
  const dir = entryDir(cache, digest);
  await mkdir(dir, { recursive: true });
  assert.equal(await checkEntry(dir, digest), undefined, "not sealed yet");
  const tree = await extractLayers([
    { name: "release-manifests/a.yaml", content: "a" },
    { name: "manifests/l", type: "symlink", linkname: "../release-manifests/a.yaml" },
  ]);
  const archiveDigest = await sealEntry(dir, digest, tree);
  const archive = await checkEntry(dir, digest);
  assert.deepEqual(archive, { path: join(dir, "payload.archive"), digest: archiveDigest });
  assert.deepEqual(shown(await readArchive(archive, new AbortController().signal)), shown(tree));
  assert.equal(await checkEntry(dir, `sha256:${"b".repeat(64)}`), undefined, "recorded for another digest");
  const bytes = await readFile(archive.path);
  await writeFile(archive.path, Buffer.concat([bytes.subarray(0, 600), Buffer.from("b"), bytes.subarray(601)]));
  assert.equal(await checkEntry(dir, digest), undefined, "a changed archive");
  const changed = sha256Digest(await readFile(archive.path));
  await assert.rejects(readArchive(archive, new AbortController().signal), {
    message: `payload archive ${archive.path} has digest ${changed}, not the ${archiveDigest} it was stored with: it changed on disk`,
  });
});

test("pruning keeps the most recently used entries, a hit counting as a use", async () => {
  const cache = await tmp("prune");
  const digests = Array.from({ length: KEPT_ENTRIES + 2 }, (_, i) => `sha256:${String(i).repeat(64)}`);
  for (const [i, digest] of digests.entries()) {
    const dir = entryDir(cache, digest);
    await mkdir(dir, { recursive: true });
    await sealEntry(dir, digest, new Map());
    const at = new Date(Date.UTC(2026, 0, 1, 0, i));
    await utimes(join(dir, "entry.json"), at, at);
  }
  await touchEntry(entryDir(cache, digests[0]!));
  const removed = await pruneCache(cache, Infinity);
  assert.deepEqual(removed.sort(), [entryDir(cache, digests[1]!), entryDir(cache, digests[2]!)], "the two least recently used go; the oldest was just used");
  assert.equal((await readdir(join(cache, "sha256"))).length, KEPT_ENTRIES);
  assert.deepEqual(await pruneCache(cache, Infinity), [], "nothing more to remove");
});

test("pruning keeps the cache's disk use under its bound, least recently used first, and always the newest entry", async () => {
  const cache = await tmp("prune-bytes");
  const file = (n: number): Map<string, PayloadNode> => new Map([["manifests/x", { kind: "file", data: Buffer.alloc(n) }]]);
  const digests = Array.from({ length: 3 }, (_, i) => `sha256:${String(i).repeat(64)}`);
  for (const [i, digest] of digests.entries()) {
    const dir = entryDir(cache, digest);
    await mkdir(dir, { recursive: true });
    await sealEntry(dir, digest, file(1000));
    const at = new Date(Date.UTC(2026, 0, 1, 0, i));
    await utimes(join(dir, "entry.json"), at, at);
  }
  assert.deepEqual(await pruneCache(cache, 2500), [entryDir(cache, digests[0]!)], "the oldest goes: three archives of over 1,000 bytes exceed 2,500");
  assert.deepEqual(await pruneCache(cache, 10), [entryDir(cache, digests[1]!)], "the newest stays even alone over the bound");
  assert.deepEqual(await readdir(join(cache, "sha256")), [digests[2]!.slice(7)]);
});

test("an archive whose digest matches but whose contents break the rules is refused naming why", async () => {
  const dir = await tmp("crafted");
  const read = async (text: string): Promise<unknown> => {
    const path = join(dir, "payload.archive");
    await writeFile(path, text);
    return readArchive({ path, digest: sha256Digest(Buffer.from(text)) }, new AbortController().signal);
  };
  const format = "syncworker.payload-archive/v1";
  await assert.rejects(
    read(`{"format":"${format}","entries":[["release-manifests/../../etc/x","file",1]]}\nx`),
    /tar entry "release-manifests\/\.\.\/\.\.\/etc\/x" refused: path contains "\.\."/,
  );
  await assert.rejects(
    read(`{"format":"${format}","entries":[["manifests/l","symlink","/etc/passwd"]]}\n`),
    /symbolic link to "\/etc\/passwd" leaves the extraction root/,
  );
  await assert.rejects(read(`{"format":"${format}","entries":[["manifests/a","file",5]]}\nab`), /is damaged: manifests\/a has a bad size/);
  await assert.rejects(read(`{"format":"${format}","entries":[]}\nextra`), /is damaged: 5 bytes follow its last entry/);
  await assert.rejects(read(`{"format":"other","entries":[]}\n`), /is damaged: it is not a syncworker\.payload-archive\/v1 archive/);
});

test("a payload read from its archive loads exactly as from its directory", async () => {
  const options = { architecture: "amd64", knownCapabilities: [...CAPS_4_16] };
  const release = await tempRelease();
  const fromDirectory = await loadUpdate(release, "quay.io/x/release@sha256:1", options, nodePayloadFs);
  const cache = await tmp("archive-load");
  const tree = new Map<string, PayloadNode>();
  for (const top of ["manifests", "release-manifests"]) {
    tree.set(top, { kind: "directory" });
    for (const name of await readdir(join(release, top))) tree.set(`${top}/${name}`, { kind: "file", data: await readFile(join(release, top, name)) });
  }
  const archiveDigest = await sealEntry(cache, `sha256:${HEX}`, tree);
  const { dir, fs } = await openPayload(
    { directory: cache, archive: { path: join(cache, "payload.archive"), digest: archiveDigest } },
    new AbortController().signal,
  );
  const fromArchive = await loadUpdate(dir, "quay.io/x/release@sha256:1", options, fs);
  assert.ok(fromArchive.manifests.length > 100);
  assert.equal(fromArchive.manifestHash, fromDirectory.manifestHash);
  assert.deepEqual(
    fromArchive.manifests.map((m) => m.originalFilename),
    fromDirectory.manifests.map((m) => m.originalFilename),
  );
});

test("the in-memory file system resolves links inside the tree and refuses what is not there", async () => {
  const root = "/cache/payload.archive";
  const fs = new MemoryPayloadFs(
    new Map<string, PayloadNode>([
      ["manifests", { kind: "directory" }],
      ["manifests/a.yaml", { kind: "file", data: Buffer.from("a") }],
      ["manifests/up", { kind: "symlink", target: "../../etc/passwd" }],
      ["manifests/abs", { kind: "symlink", target: "/etc/passwd" }],
      ["manifests/loop", { kind: "symlink", target: "loop" }],
      ["release-manifests", { kind: "symlink", target: "manifests" }],
    ]),
    root,
  );
  assert.deepEqual((await fs.readdir(root)).map((e) => `${e.name}:${e.type}`).sort(), ["manifests:directory", "release-manifests:symlink"]);
  assert.equal(await fs.readFile(`${root}/release-manifests/a.yaml`), "a", "a link in the middle is followed");
  assert.equal(await fs.realpath(`${root}/release-manifests`), `${root}/manifests`);
  assert.equal((await fs.stat(`${root}/release-manifests`)).isDirectory, true);
  await assert.rejects(fs.readFile(`${root}/release-manifests`), /is a symbolic link, not a regular file/, "not followed in the last component");
  assert.equal(await fs.realpath(`${root}/manifests/up`), "/cache/etc/passwd", "a link above the root resolves outside it, for the loader to refuse");
  assert.ok(!(await fs.realpath(`${root}/manifests/abs`)).startsWith(`${root}/`), "an absolute target is the host's, never the payload's");
  await assert.rejects(fs.readFile(await fs.realpath(`${root}/manifests/abs`)), { code: "ENOENT" }, "nothing outside the root is there");
  await assert.rejects(fs.stat(`${root}/manifests/loop`), { code: "ELOOP" });
  await assert.rejects(fs.stat(`${root}/missing`), { code: "ENOENT" });
  await assert.rejects(fs.readdir(`${root}/manifests/a.yaml`), { code: "ENOTDIR" });
});

test("verification: a refusal fails the retrieval unless forced or its risk accepted; then the image is unverified with the error", async () => {
  const cache = await tmp("verify-cache");
  const digest = `sha256:${HEX}`;
  // A sealed entry, so no registry is contacted: the registry host below does not exist.
  const dir = entryDir(cache, digest);
  await mkdir(dir, { recursive: true });
  const archive = { path: join(dir, "payload.archive"), digest: await sealEntry(dir, digest, new Map()) };
  const image = `registry.invalid/release@${digest}`;
  const client = new RegistryClient({ authFile: "", authFileOptional: true });
  const seen: string[] = [];
  const refuse: ImageVerifier = async (d, reference) => (seen.push(`${d} ${reference}`), { verified: false, error: new Error("no trusted signature") });
  const retriever = new RegistryRetriever({ client, cacheDir: cache, architecture: "amd64", verifier: refuse });
  const signal = new AbortController().signal;
  await assert.rejects(retriever.retrieve({ image, force: false }, signal), (err: unknown) => {
    assert.ok(err instanceof PayloadError);
    assert.equal(err.reason, "ImageVerificationFailed");
    assert.equal(err.step, "RetrievePayload");
    assert.equal(
      err.message,
      "The update cannot be verified: no trusted signature; to apply it anyway, accept the risk ImageVerification (accept_risks; --accept-risk in the CLI) or force the update (every risk)",
    );
    return true;
  });
  assert.deepEqual(seen, [`${digest} ${image}`], "the verifier is asked about the digest and the pull spec by digest");
  const forced = await retriever.retrieve({ image, force: true }, signal);
  assert.equal(forced.verified, false);
  assert.equal(
    forced.verificationError?.message,
    `Target release version="" image="${image}" cannot be verified, but continuing anyway because the update was forced: no trusted signature`,
  );
  const named = await retriever.retrieve({ image, force: false, acceptUnverified: true }, signal);
  assert.equal(named.verified, false);
  assert.equal(
    named.verificationError?.message,
    `Target release version="" image="${image}" cannot be verified, but continuing anyway because the update accepts the risk ImageVerification: no trusted signature`,
  );
  const trusted = new RegistryRetriever({ client, cacheDir: cache, architecture: "amd64", verifier: async () => ({ verified: true }) });
  assert.deepEqual(await trusted.retrieve({ image, force: false }, signal), { directory: dir, archive, local: false, verified: true });
  const unconfigured = new RegistryRetriever({ client, cacheDir: cache, architecture: "amd64" });
  assert.equal((await unconfigured.retrieve({ image, force: false }, signal)).verified, false, "no keys: unverified, not refused");
  await client.close();
});

test("admission with payload roots: a reference passes (pinned as given), a directory outside the roots does not, a malformed reference names why", async () => {
  const root = await tmp("root");
  const client = new RegistryClient({ authFile: "", authFileOptional: true });
  const images = new ImageRetriever(
    new DirectoryRetriever(undefined, [root]),
    new RegistryRetriever({ client, cacheDir: await tmp("admit-cache"), architecture: "amd64" }),
  );
  const signal = new AbortController().signal;
  const pinned = `registry.invalid/release@sha256:${HEX}`;
  assert.equal(await images.admit(pinned, signal), pinned);
  await assert.rejects(images.admit(join(tmpdir(), "elsewhere"), signal), { kind: "OutsideRoot" });
  await assert.rejects(images.admit("registry.invalid/Release:1", signal), {
    kind: "Retrieval",
    message: /invalid image reference "registry\.invalid\/Release:1"/,
  });
  // A tag the registry cannot resolve now stays as given; retrieval reports why.
  assert.equal(await images.admit("127.0.0.1:9/release:1", AbortSignal.timeout(5_000)), "127.0.0.1:9/release:1");
  await client.close();
});

test("a killed pull's working directory is removed once older than the bound; a running pull's and the entries stay", async () => {
  const cache = await tmp("stale-pulls");
  const killed = join(cache, "tmp-killed");
  const running = join(cache, "tmp-running");
  const entry = entryDir(cache, `sha256:${"a".repeat(64)}`);
  for (const dir of [killed, running, entry]) await mkdir(dir, { recursive: true });
  await writeFile(join(killed, "sha256-layer"), "half a layer");
  const now = Date.UTC(2026, 0, 1, 12);
  const old = new Date(now - 3 * 3_600_000);
  await utimes(killed, old, old);
  await utimes(running, new Date(now - 60_000), new Date(now - 60_000));
  assert.deepEqual(await removeStalePulls(cache, 2 * 3_600_000, now), [killed]);
  assert.deepEqual((await readdir(cache)).sort(), ["sha256", "tmp-running"]);
  assert.deepEqual(await removeStalePulls(join(cache, "absent"), 0, now), [], "no cache directory yet: nothing to do");
});
