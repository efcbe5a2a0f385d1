/**
 * Producing signatures the verifier accepts, for `syncworker sign-payload` and tests: the same signed
 * claim `skopeo standalone-sign` or `gpg --sign` over a documented claim would give.
 */
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { PrivateKey } from "openpgp";
import { claimFor } from "./claim.js";
import { signMessage } from "./pgp.js";
import { digestPathSegment, MAX_SIGNATURES } from "./store.js";

/** What a signature names: the manifest digest, and the pull spec recorded as its identity. */
export interface SignedImage {
  readonly digest: string;
  readonly reference: string;
}

/** A signed atomic container signature claim for `image`, as a `signature-N` file holds it. */
export async function signImage(image: SignedImage, key: PrivateKey, now: Date, creator = "syncworker sign-payload"): Promise<Uint8Array> {
  const claim = claimFor(image.digest, image.reference, creator, Math.floor(now.getTime() / 1000));
  return signMessage(claim, key, now);
}

/**
 * Writes `signature` into a signature-store directory as the next free `signature-N` of its digest (the
 * layout a static web server then serves to `--signature-store`); returns the file's path.
 */
export async function addToStore(storeDir: string, digest: string, signature: Uint8Array): Promise<string> {
  const dir = join(storeDir, digestPathSegment(digest));
  await mkdir(dir, { recursive: true });
  for (let i = 1; i <= MAX_SIGNATURES; i++) {
    const path = join(dir, `signature-${i}`);
    try {
      // "wx": never replaces a signature someone else put there.
      await writeFile(path, signature, { flag: "wx" });
      return path;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
    }
  }
  throw new Error(`${dir} already holds ${MAX_SIGNATURES} signatures, as many as a verifier reads`);
}
