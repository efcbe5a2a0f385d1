/**
 * Retrieves release payloads from OCI registries (CVO `pkg/cvo/updatepayload.go`, which runs a Job that copies
 * the image's `release-manifests/` and `manifests/`; here the layers are pulled directly). The manifest and
 * every blob are checked against their digests before anything from them is used, the payload directories are
 * extracted into a content-addressed cache, and the injected verifier decides whether the image is trusted.
 */
import { createHash } from "node:crypto";
import { createReadStream, createWriteStream } from "node:fs";
import { mkdir, mkdtemp, rename, rm } from "node:fs/promises";
import { join } from "node:path";
import { pipeline as pipe, Transform, type Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { createGunzip } from "node:zlib";
import { acceptHint, link } from "../../core/index.js";
import { PayloadError } from "../../payload/errors.js";
import type { PayloadArchive, PayloadInfo, RetrieveRequest } from "../../payload/retrieval-port.js";
import { archiveIn, checkEntry, entryDir, PULL_DIR_PREFIX, pruneCache, removeStalePulls, sealEntry, touchEntry } from "./cache.js";
import type { RegistryClient } from "./client.js";
import { PAYLOAD_DIRS, PayloadExtractor } from "./extract.js";
import { DEFAULT_PULL_LIMITS, type PullLimits } from "./limits.js";
import { layerCompression, parseManifest, selectPlatform, sha256Digest, type Descriptor } from "./image-manifest.js";
import { byDigest, parseReference, type ImageReference } from "./reference.js";
import { UNVERIFIED, type ImageVerifier } from "./verifier.js";

export interface RegistryRetrieverOptions {
  readonly client: RegistryClient;
  /** Root of the content-addressed cache (`--payload-cache`). */
  readonly cacheDir: string;
  /** GOARCH of this node: the manifest an image index's entries are chosen by. */
  readonly architecture: string;
  /** Signature verification; {@link UNVERIFIED} (no keys) when absent. */
  readonly verifier?: ImageVerifier;
  /** What one pull may take; {@link DEFAULT_PULL_LIMITS} when absent. */
  readonly limits?: PullLimits;
}

/** Called with "downloaded A of B bytes" while layers arrive. */
export type RetrieveProgress = (message: string) => void;

/** Read and decompression chunk size of a downloaded layer. */
const CHUNK_BYTES = 2 ** 20;

/** How often progress is told: every this fraction of the total, so a pull sends a bounded number of updates. */
const PROGRESS_STEP = 0.05;

export class RegistryRetriever {
  readonly #verify: ImageVerifier;
  readonly #limits: PullLimits;

  constructor(private readonly options: RegistryRetrieverOptions) {
    this.#verify = options.verifier ?? UNVERIFIED;
    this.#limits = options.limits ?? DEFAULT_PULL_LIMITS;
  }

  /** `image` by digest: a tag is resolved by fetching its manifest (the digest is of the bytes served). */
  async resolve(image: string, signal: AbortSignal): Promise<string> {
    const ref = parseReference(image);
    if (ref.digest) return byDigest(ref, ref.digest);
    return this.#bounded(ref, signal, async (step, bounded) => {
      step(`resolving tag ${ref.tag!}`);
      const { bytes } = await this.options.client.manifest(ref, ref.tag!, bounded);
      return byDigest(ref, sha256Digest(bytes));
    });
  }

  /**
   * Runs one registry operation under `--registry-pull-timeout`: `work` tells `step` what it is doing, and an error
   * (any error: this is the boundary of one pull) names that step and the registry. The caller's own abort passes
   * through unchanged.
   */
  async #bounded<T>(ref: ImageReference, signal: AbortSignal, work: (step: (what: string) => void, signal: AbortSignal) => Promise<T>): Promise<T> {
    const timeoutMs = this.#limits.pullTimeoutMs;
    const deadline = new AbortController();
    const timer = setTimeout(() => deadline.abort(new Error(`the pull did not finish within ${timeoutMs / 1000}s (--registry-pull-timeout)`)), timeoutMs);
    const bounded = link(signal, deadline.signal);
    let current = "starting";
    try {
      return await work((what) => void (current = what), bounded.signal);
    } catch (err) {
      if (signal.aborted) throw err;
      if (err instanceof PayloadError) throw err;
      const why = deadline.signal.aborted ? (deadline.signal.reason as Error).message : this.options.client.describe(err);
      throw new Error(`pulling ${ref.registry}/${ref.repository}: ${current}: ${why}`, { cause: err });
    } finally {
      clearTimeout(timer);
      bounded.dispose();
    }
  }

  /**
   * Verifies and pulls `desired.image` (unless its digest is cached) and returns the extracted directory.
   * An unverified image is refused unless forced or its risk (ImageVerification) is accepted; then it proceeds with
   * `verificationError` set (upstream), which the accepted risks record.
   */
  async retrieve(
    desired: Omit<RetrieveRequest, "version"> & { readonly version?: string },
    signal: AbortSignal,
    progress?: RetrieveProgress,
  ): Promise<PayloadInfo> {
    const ref = parseReference(desired.image);
    const digest = ref.digest ?? parseReference(await this.resolve(desired.image, signal)).digest!;
    const pinned = byDigest(ref, digest);
    const verification = await this.#verify(digest, pinned, signal).catch((err: unknown) => ({
      verified: false,
      error: err instanceof Error ? err : new Error(String(err)),
    }));
    let verificationError: PayloadError | undefined;
    if (verification.error) {
      if (!desired.force && !desired.acceptUnverified) {
        throw new PayloadError({
          kind: "Verification",
          message: `The update cannot be verified: ${verification.error.message}; ${acceptHint(["ImageVerification"])}`,
          cause: verification.error,
        });
      }
      // Accepted, upstream rewords the error it proceeds despite; that text is what the accepted risks record.
      const names = `version=${JSON.stringify(desired.version ?? "")} image=${JSON.stringify(desired.image)}`;
      const why = desired.force ? "the update was forced" : "the update accepts the risk ImageVerification";
      const message = `Target release ${names} cannot be verified, but continuing anyway because ${why}: ${verification.error.message}`;
      verificationError = new PayloadError({ kind: "Verification", message, cause: verification.error });
    }
    const dir = entryDir(this.options.cacheDir, digest);
    let archive = await checkEntry(dir, digest);
    if (archive) await touchEntry(dir);
    else {
      await rm(dir, { recursive: true, force: true });
      archive = await this.#bounded(ref, signal, (step, bounded) => this.#pull(ref, digest, dir, bounded, step, progress));
      // Best effort: a cache that cannot be pruned still serves this pull. A pull directory untouched for twice the
      // pull timeout belongs to no running pull.
      await pruneCache(this.options.cacheDir, this.#limits.maxCacheBytes).catch(() => undefined);
      await removeStalePulls(this.options.cacheDir, 2 * this.#limits.pullTimeoutMs).catch(() => undefined);
    }
    return { directory: dir, archive, local: false, verified: verification.verified, ...(verificationError ? { verificationError } : {}) };
  }

  /** Pulls the image into a temporary directory and renames the sealed result to `dir`. */
  async #pull(
    ref: ImageReference,
    digest: string,
    dir: string,
    signal: AbortSignal,
    step: (what: string) => void,
    progress: RetrieveProgress | undefined,
  ): Promise<PayloadArchive> {
    const layers = await this.#layers(ref, digest, signal, step);
    const maxLayer = this.#limits.maxLayerBytes;
    const big = layers.find((l) => l.size > maxLayer);
    if (big) throw new Error(`layer ${big.digest} declares ${big.size} bytes, more than --registry-max-layer allows (${maxLayer})`);
    await mkdir(this.options.cacheDir, { recursive: true });
    const tmp = await mkdtemp(join(this.options.cacheDir, PULL_DIR_PREFIX));
    try {
      const extractor = new PayloadExtractor(this.#limits);
      const total = layers.reduce((sum, l) => sum + l.size, 0);
      const tell = throttled(total, progress);
      let done = 0;
      for (const layer of layers) {
        const compression = layerCompression(layer.mediaType);
        const file = join(tmp, layer.digest.replace(":", "-"));
        step(`downloading layer ${layer.digest}`);
        await this.#download(ref, layer, file, (n) => tell((done += n)), signal);
        step(`extracting layer ${layer.digest}${compression === "gzip" ? " (gzip)" : ""}`);
        // 1 MiB chunks: with the 64 KiB and 16 KiB defaults, extracting a 1,000-file layer took 2-3 times as long.
        const tar = createReadStream(file, { highWaterMark: CHUNK_BYTES });
        // pipeline, not pipe: a decompression error must reach the extractor, and the file stream's own error a listener.
        const plain = compression === "gzip" ? pipe(tar, createGunzip({ chunkSize: CHUNK_BYTES }), () => undefined) : tar;
        await extractor.extract(plain, layer.digest, signal);
        await rm(file);
      }
      step("writing the payload cache entry");
      const tree = extractor.tree();
      for (const name of PAYLOAD_DIRS) {
        if (tree.get(name)?.kind !== "directory")
          throw new Error(`image ${byDigest(ref, digest)} has no ${name}/ directory in its ${layers.length} layer(s): it is not a release image`);
      }
      const archive = archiveIn(dir, await sealEntry(tmp, digest, tree));
      await mkdir(join(dir, ".."), { recursive: true });
      return await rename(tmp, dir).then(
        () => archive,
        async (err: NodeJS.ErrnoException) => {
          // Another pull of the same digest finished first; its entry is as good as ours.
          const theirs = err.code === "ENOTEMPTY" || err.code === "EEXIST" ? await checkEntry(dir, digest) : undefined;
          if (theirs) return theirs;
          throw err;
        },
      );
    } finally {
      await rm(tmp, { recursive: true, force: true });
    }
  }

  /** The layers of the image with manifest `digest`, through an index when it is one; every manifest's digest checked. */
  async #layers(ref: ImageReference, digest: string, signal: AbortSignal, step: (what: string) => void): Promise<readonly Descriptor[]> {
    step(`fetching manifest ${digest}`);
    let parsed = parseManifest(...(await this.#manifest(ref, digest, signal)));
    if (parsed.kind === "index") {
      const chosen = selectPlatform(parsed.manifests, this.options.architecture);
      step(`fetching manifest ${chosen.digest} (linux/${this.options.architecture})`);
      parsed = parseManifest(...(await this.#manifest(ref, chosen.digest, signal)));
      if (parsed.kind === "index") throw new Error(`manifest ${chosen.digest} for ${this.options.architecture} is itself an index`);
    }
    if (parsed.layers.length === 0) throw new Error(`image ${byDigest(ref, digest)} has no layers`);
    return parsed.layers;
  }

  async #manifest(ref: ImageReference, digest: string, signal: AbortSignal): Promise<[Buffer, string]> {
    const { bytes, mediaType } = await this.options.client.manifest(ref, digest, signal);
    const actual = sha256Digest(bytes);
    if (actual !== digest) throw new Error(`manifest ${digest} from ${ref.registry}/${ref.repository} has digest ${actual}: the registry served other content`);
    return [bytes, mediaType];
  }

  /** Streams blob `layer` to `file`, checking its size as it arrives and its digest at the end. */
  async #download(ref: ImageReference, layer: Descriptor, file: string, received: (bytes: number) => void, signal: AbortSignal): Promise<void> {
    const hash = createHash("sha256");
    let size = 0;
    const tooLong = (): Error => new Error(`blob ${layer.digest} is longer than the ${layer.size} bytes its manifest says`);
    const check = new Transform({
      transform(chunk: Buffer, _encoding, callback) {
        size += chunk.length;
        if (size > layer.size) return callback(tooLong());
        hash.update(chunk);
        received(chunk.length);
        callback(null, chunk);
      },
    });
    const { body, request }: { body: Readable; request: string } = await this.options.client.blob(ref, layer.digest, signal);
    try {
      await pipeline(body, check, createWriteStream(file), { signal });
    } catch (err) {
      if (signal.aborted || size > layer.size) throw err;
      throw new Error(`${request}: ${this.options.client.describe(err)}`, { cause: err });
    }
    const actual = `sha256:${hash.digest("hex")}`;
    if (size !== layer.size) throw new Error(`blob ${layer.digest} is ${size} bytes, its manifest says ${layer.size}`);
    if (actual !== layer.digest) throw new Error(`blob ${layer.digest} from ${ref.registry}/${ref.repository} has digest ${actual}: the layer was altered`);
  }
}

/** A progress callback told at most every {@link PROGRESS_STEP} of `total`, and at the end. */
function throttled(total: number, progress: RetrieveProgress | undefined): (done: number) => void {
  let next = 0;
  return (done) => {
    if (!progress || (done < next && done < total)) return;
    next = done + total * PROGRESS_STEP;
    progress(`downloaded ${done} of ${total} bytes`);
  };
}
