/**
 * The `--image` argument of the client commands: a payload directory on the caller's disk (relative paths are
 * resolved against the caller's directory, not the server's) or a release image reference pulled from its
 * registry. An existing directory wins, so a directory named like a reference stays a directory.
 */
import { statSync } from "node:fs";
import { isAbsolute, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { goArch, type PayloadSource } from "../payload/index.js";
import { isDirectoryImage, RegistryClient, RegistryRetriever } from "../retrieval/index.js";
import { parseReference } from "../retrieval/registry/index.js";
import { compileRegistryAccess, payloadCacheDir, type RegistryFlags } from "../config/index.js";

/** True when `image` is meant as an OCI reference: it is no directory here and parses as one. */
export function isImageReference(image: string): boolean {
  if (image === "" || isDirectoryImage(image)) return false;
  if (statSync(resolve(image), { throwIfNoEntry: false })?.isDirectory()) return false;
  try {
    parseReference(image);
    return true;
  } catch {
    return false;
  }
}

/** What `update --image` sends: a reference as given, a directory as an absolute `file://` URL. */
export function payloadLocation(image: string): string {
  if (image === "" || image.includes("://") || isAbsolute(image) || isImageReference(image)) return image;
  return pathToFileURL(resolve(image)).href;
}

/**
 * Where `reference`'s payload is for `render`: pulled into the payload cache (`--payload-cache`, default as `serve`'s)
 * unless its digest is there already. Not verified: the command only reads.
 */
export async function pulledPayload(reference: string, flags: RegistryFlags & { readonly payloadCache?: string }, signal: AbortSignal): Promise<PayloadSource> {
  const client = new RegistryClient(compileRegistryAccess(flags));
  try {
    const retriever = new RegistryRetriever({ client, cacheDir: payloadCacheDir(flags.payloadCache), architecture: goArch(process.arch) });
    return await retriever.retrieve({ image: reference, force: true }, signal);
  } finally {
    await client.close();
  }
}
