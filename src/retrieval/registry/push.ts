/**
 * Publishing a payload directory as a release image (`syncworker push-payload`): one gzip layer holding
 * `release-manifests/` and `manifests/`, an OCI image config and manifest, pushed through the same
 * {@link RegistryClient} (and credentials) that pulls. The layer is deterministic (sorted entries, zero
 * times and owners), so pushing the same directory twice gives the same digest.
 */
import { lstat, readdir, readFile, readlink } from "node:fs/promises";
import { join } from "node:path";
import { gunzipSync, gzipSync } from "node:zlib";
import { pack } from "tar-stream";
import type { RegistryClient } from "./client.js";
import type { PayloadNode, PayloadTree } from "../../payload/memory-fs.js";
import { PAYLOAD_DIRS } from "./extract.js";
import { sha256Digest } from "./image-manifest.js";
import { byDigest, parseReference, type ImageReference } from "./reference.js";

const OCI_MANIFEST = "application/vnd.oci.image.manifest.v1+json";
const OCI_INDEX = "application/vnd.oci.image.index.v1+json";
const OCI_CONFIG = "application/vnd.oci.image.config.v1+json";
const OCI_LAYER_GZIP = "application/vnd.oci.image.layer.v1.tar+gzip";

/** The payload directories of `dir` as a tree (what pulling the image gives back). */
async function payloadTree(dir: string): Promise<PayloadTree> {
  const tree = new Map<string, PayloadNode>();
  for (const top of PAYLOAD_DIRS) {
    const info = await lstat(join(dir, top)).catch(() => undefined);
    if (!info?.isDirectory()) throw new Error(`${dir} has no ${top}/ directory: it is not a release payload`);
    for (const path of [top, ...(await readdir(join(dir, top), { recursive: true })).map((p) => join(top, p))]) {
      const abs = join(dir, path);
      const entry = await lstat(abs);
      if (entry.isDirectory()) tree.set(path, { kind: "directory" });
      else if (entry.isSymbolicLink()) tree.set(path, { kind: "symlink", target: await readlink(abs) });
      else if (entry.isFile()) tree.set(path, { kind: "file", data: await readFile(abs) });
      else throw new Error(`${abs} is neither a file, a directory nor a symbolic link`);
    }
  }
  return tree;
}

/**
 * `tree` as an uncompressed tar, deterministic (sorted, so directories come before their contents; zero times and
 * owners): the same tree always gives the same bytes.
 */
async function tarOf(tree: PayloadTree): Promise<Buffer> {
  const tar = pack();
  const chunks: Buffer[] = [];
  tar.on("data", (chunk: unknown) => chunks.push(chunk as Buffer));
  const ended = new Promise<void>((resolve, reject) => tar.on("end", resolve).on("error", reject));
  const fixed = { mtime: new Date(0), uid: 0, gid: 0 };
  for (const path of [...tree.keys()].sort()) {
    const node = tree.get(path)!;
    if (node.kind === "directory") tar.entry({ ...fixed, name: `${path}/`, type: "directory", mode: 0o755 });
    else if (node.kind === "symlink") tar.entry({ ...fixed, name: path, type: "symlink", linkname: node.target, mode: 0o777 });
    else tar.entry({ ...fixed, name: path, type: "file", mode: 0o644 }, node.data);
  }
  tar.finalize();
  await ended;
  return Buffer.concat(chunks);
}

/** The payload directories of `dir` as a gzip-compressed tar (an OCI layer). */
export async function payloadLayer(dir: string): Promise<Buffer> {
  return gzipSync(await tarOf(await payloadTree(dir)));
}

/** A pushed manifest: what an index lists it by. */
export interface PushedManifest {
  readonly digest: string;
  readonly size: number;
}

/**
 * Pushes an image of the given gzip layers for linux/`architecture` to `reference` (under its tag, or by
 * digest alone) and returns its manifest's digest and size.
 */
export async function pushImage(
  client: RegistryClient,
  reference: string,
  layers: readonly Buffer[],
  architecture: string,
  signal: AbortSignal,
): Promise<PushedManifest> {
  const ref = parseReference(reference);
  const config = Buffer.from(
    JSON.stringify({ architecture, os: "linux", rootfs: { type: "layers", diff_ids: layers.map((l) => sha256Digest(gunzipSync(l))) } }),
  );
  const blobs = [config, ...layers];
  for (const blob of blobs) await client.pushBlob(ref, sha256Digest(blob), blob, signal);
  const descriptor = (mediaType: string, blob: Buffer): object => ({ mediaType, digest: sha256Digest(blob), size: blob.length });
  const manifest = {
    schemaVersion: 2,
    mediaType: OCI_MANIFEST,
    config: descriptor(OCI_CONFIG, config),
    layers: layers.map((l) => descriptor(OCI_LAYER_GZIP, l)),
  };
  return pushManifest(client, ref, OCI_MANIFEST, manifest, signal);
}

/** Pushes an OCI image index of already pushed per-architecture manifests (linux/arch). */
export async function pushIndex(
  client: RegistryClient,
  reference: string,
  manifests: readonly (PushedManifest & { architecture: string })[],
  signal: AbortSignal,
): Promise<PushedManifest> {
  const index = {
    schemaVersion: 2,
    mediaType: OCI_INDEX,
    manifests: manifests.map((m) => ({ mediaType: OCI_MANIFEST, digest: m.digest, size: m.size, platform: { os: "linux", architecture: m.architecture } })),
  };
  return pushManifest(client, parseReference(reference), OCI_INDEX, index, signal);
}

async function pushManifest(client: RegistryClient, ref: ImageReference, mediaType: string, doc: object, signal: AbortSignal): Promise<PushedManifest> {
  const bytes = Buffer.from(JSON.stringify(doc));
  const digest = sha256Digest(bytes);
  await client.pushManifest(ref, ref.tag ?? digest, mediaType, bytes, signal);
  return { digest, size: bytes.length };
}

/** `syncworker push-payload DIR REF`: publishes a payload directory and returns its pull spec by digest. */
export async function pushPayload(client: RegistryClient, dir: string, reference: string, architecture: string, signal: AbortSignal): Promise<string> {
  const { digest } = await pushImage(client, reference, [await payloadLayer(dir)], architecture, signal);
  return byDigest(parseReference(reference), digest);
}
