/**
 * Payload retrieval: turns a desired release's image into a local directory `loadUpdate` can read. An image
 * is either a directory already on disk (an absolute path or a `file://` URL, for development) or an OCI
 * reference pulled from its registry ({@link RegistryRetriever}); {@link ImageRetriever} tells them apart.
 */
import { isAbsolute, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { isWithin, statError, validateDirectory, type PayloadFs } from "../payload/load.js";
import { PayloadError } from "../payload/errors.js";
import { MemoryPayloadFs } from "../payload/memory-fs.js";
import type { PayloadInfo, PayloadRetriever, PayloadSource, RetrieveRequest } from "../payload/retrieval-port.js";
import { nodePayloadFs } from "./node-fs.js";
import { parseReference } from "./registry/reference.js";
import type { RegistryRetriever } from "./registry/retriever.js";
import { readArchive } from "./registry/cache.js";

/** The directory and file access `loadUpdate` reads `source` with; an archive is read (and its digest checked) first. */
export async function openPayload(source: PayloadSource, signal: AbortSignal): Promise<{ dir: string; fs: PayloadFs }> {
  if (!source.archive) return { dir: source.directory, fs: nodePayloadFs };
  const tree = await readArchive(source.archive, signal);
  return { dir: source.archive.path, fs: new MemoryPayloadFs(tree, source.archive.path) };
}

export const NO_IMAGE_MESSAGE = "no payload image has been specified and the contents of the payload cannot be retrieved";

/**
 * Retrieves payloads named by an absolute directory path or a `file://` URL. Nothing is verified
 * (`verified: false`); a missing or incomplete directory is `UpdatePayloadRetrievalFailed`, as a failed
 * download is upstream. Image references are rejected until an OCI retriever exists.
 *
 * With payload roots, a directory must resolve (symbolic links followed) under one of them, and the resolved
 * directory is what gets loaded, so a link swapped afterwards changes nothing.
 */
export class DirectoryRetriever implements PayloadRetriever {
  /**
   * @param roots resolved directories payloads must lie under (`--payload-root`); none: any directory
   */
  constructor(
    private readonly fs: PayloadFs = nodePayloadFs,
    private readonly roots: readonly string[] = [],
  ) {}

  /**
   * Checks, before an Update is accepted, that `image` names a payload directory under the roots; a
   * {@link PayloadError} says why not, naming nothing outside them. Without roots every image passes.
   */
  async admit(image: string): Promise<void> {
    if (this.roots.length > 0) await this.#underRoots(directoryOf(image));
  }

  async retrieve(desired: RetrieveRequest, signal: AbortSignal): Promise<PayloadInfo> {
    signal.throwIfAborted();
    const image = desired.image;
    if (image === "") throw new PayloadError({ kind: "NoImage", message: NO_IMAGE_MESSAGE });
    const directory = await this.#underRoots(directoryOf(image));
    let isDirectory: boolean;
    try {
      ({ isDirectory } = await this.fs.stat(directory));
    } catch (err) {
      throw retrievalFailed(this.#unprobeable(statError(directory, err)));
    }
    if (!isDirectory) throw retrievalFailed(this.#unprobeable(statError(directory, { code: "ENOTDIR" })));
    signal.throwIfAborted();
    try {
      await validateDirectory(directory, this.fs);
    } catch (err) {
      throw retrievalFailed(this.#unprobeable(err));
    }
    return { directory, local: false, verified: false };
  }

  /**
   * Without payload roots an Update may name any path of this host: a path that cannot be used then reads as
   * missing whatever the cause (forbidden, not a directory), so a caller cannot tell what exists. Under a root the
   * cause is shown.
   */
  #unprobeable(err: unknown): unknown {
    const { path, code } = (typeof err === "object" && err !== null ? err : {}) as { path?: unknown; code?: unknown };
    if (this.roots.length > 0 || typeof path !== "string" || code === "ENOENT") return err;
    return statError(path, { code: "ENOENT" });
  }

  /** The resolved `directory`, which must lie under a root; unchanged without roots. */
  async #underRoots(directory: string): Promise<string> {
    if (this.roots.length === 0) return directory;
    const lexical = resolve(directory);
    const outside = (): PayloadError => {
      const text = `payload directory ${JSON.stringify(directory)} is not under a payload root`;
      return new PayloadError({ kind: "OutsideRoot", message: text, problems: [{ file: "", message: text }] });
    };
    let real: string;
    try {
      real = await this.fs.realpath(lexical);
    } catch (err) {
      // Whether something exists outside the roots is none of the caller's business.
      if (!this.roots.some((root) => isWithin(root, lexical))) throw outside();
      throw retrievalFailed(statError(lexical, err));
    }
    if (!this.roots.some((root) => isWithin(root, real))) throw outside();
    return real;
  }
}

/** The directory a directory image names: an absolute path or a `file://` URL. */
function directoryOf(image: string): string {
  if (image.startsWith("file://")) {
    try {
      return fileURLToPath(image);
    } catch (err) {
      throw retrievalFailed(new Error(`invalid file URL ${JSON.stringify(image)}: ${String(err)}`, { cause: err }));
    }
  }
  if (isAbsolute(image)) return image;
  throw retrievalFailed(
    new Error(`OCI image references are not supported yet by this retriever (image ${JSON.stringify(image)}); use an absolute directory path or a file:// URL`),
  );
}

/** A directory image: an absolute path or a `file://` URL; anything else is an OCI reference. */
export function isDirectoryImage(image: string): boolean {
  return image.startsWith("file://") || isAbsolute(image);
}

/**
 * The service's retriever: directory images from disk (under the payload roots), OCI references from their
 * registry. Every failure is a {@link PayloadError} of the RetrievePayload step.
 */
export class ImageRetriever implements PayloadRetriever {
  constructor(
    private readonly directories: DirectoryRetriever,
    private readonly registry: RegistryRetriever,
  ) {}

  /**
   * Admission of an Update's image: a directory must lie under the payload roots; a reference must parse,
   * and a tag is resolved to its digest here, once, so the digest is what the service keeps and reports.
   * Returns the image to use. A tag that cannot be resolved now (registry unreachable) is kept as given, and
   * retrieval then reports why it cannot be pulled.
   */
  async admit(image: string, signal: AbortSignal): Promise<string> {
    if (image === "" || isDirectoryImage(image)) {
      await this.directories.admit(image);
      return image;
    }
    let digest: string | undefined;
    try {
      digest = parseReference(image).digest;
    } catch (err) {
      throw new PayloadError({ kind: "Retrieval", message: (err as Error).message, cause: err });
    }
    if (digest) return image;
    return this.registry.resolve(image, signal).catch(() => image);
  }

  async retrieve(desired: RetrieveRequest, signal: AbortSignal, progress?: (message: string) => void): Promise<PayloadInfo> {
    if (desired.image === "" || isDirectoryImage(desired.image)) return this.directories.retrieve(desired, signal);
    try {
      return await this.registry.retrieve(desired, signal, progress);
    } catch (err) {
      if (err instanceof PayloadError || signal.aborted) throw err;
      throw retrievalFailed(err);
    }
  }
}

/** Upstream wraps every download failure this way (spec §7.8). */
function retrievalFailed(cause: unknown): PayloadError {
  const text = cause instanceof Error ? cause.message : String(cause);
  return new PayloadError({ kind: "Retrieval", message: `Unable to download and prepare the update: ${text}`, problems: [{ file: "", message: text }], cause });
}
