/**
 * `syncworker sign-payload`: signs a release image the way the CVO verifies it, so a user can try signature
 * verification end to end. It writes the atomic container signature claim for the image's manifest digest,
 * signs it with an OpenPGP private key, and stores the result in a signature-store directory (served as is
 * by any static web server for `--signature-store`) and/or in the registry's `sha256-<hex>.sig` tag.
 */
import { readFile } from "node:fs/promises";
import { ValueError } from "../config/index.js";
import type { RegistryClient } from "../retrieval/registry/client.js";
import { sha256Digest } from "../retrieval/registry/image-manifest.js";
import { byDigest, parseReference, type ImageReference } from "../retrieval/registry/reference.js";
import { addToStore, pushSignature, readSigningKey, signatureTag, signImage } from "../retrieval/verify/index.js";

/** Flags of `syncworker sign-payload`, as commander hands them over. */
export interface SignPayloadOptions {
  /** Armored OpenPGP private key file. */
  readonly key: string;
  /** File whose first line is the key's passphrase. */
  readonly passphraseFile?: string;
  /** Signature-store directory to add `sha256=<hex>/signature-N` to. */
  readonly store?: string;
  /** Add the signature to the registry's `.sig` tag. */
  readonly push?: boolean;
}

/**
 * Signs `image` (a pull spec; a tag is resolved to its digest through `registry`) and writes the signature
 * where the options say; returns one line per place written. The caller closes `registry`.
 */
export async function signPayload(image: string, options: SignPayloadOptions, registry: RegistryClient, now: Date, signal: AbortSignal): Promise<string[]> {
  if (!options.store && !options.push) throw new ValueError("store", "say where the signature goes: --store DIR, --push, or both");
  let ref: ImageReference;
  try {
    ref = parseReference(image);
  } catch (err) {
    throw new ValueError("image", (err as Error).message);
  }
  let passphrase: string | undefined;
  try {
    passphrase = options.passphraseFile ? (await readFile(options.passphraseFile, "utf8")).split("\n")[0] : undefined;
  } catch (err) {
    throw new ValueError("passphrase-file", `${options.passphraseFile}: ${(err as Error).message}`);
  }
  let key;
  try {
    key = await readSigningKey(await readFile(options.key, "utf8"), passphrase);
  } catch (err) {
    throw new ValueError("key", `${options.key}: ${(err as Error).message}`);
  }
  const digest = ref.digest ?? sha256Digest((await registry.manifest(ref, ref.tag ?? "", signal)).bytes);
  const signature = await signImage({ digest, reference: ref.digest ? image : byDigest(ref, digest) }, key, now);
  const written: string[] = [];
  if (options.store) written.push(`signature for ${digest} written to ${await addToStore(options.store, digest, signature)}`);
  if (options.push) {
    await pushSignature(registry, ref, digest, signature, signal);
    written.push(`signature for ${digest} pushed to ${ref.registry}/${ref.repository}:${signatureTag(digest)}`);
  }
  return written;
}
