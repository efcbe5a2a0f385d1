/**
 * `--verification-keys DIR`: the public keys release images must be signed with. Each file is one keyring
 * (armored or binary, one key or several), and every keyring must have signed an image, as every
 * `verifier-public-key-*` entry of the CVO's verifier ConfigMap must.
 */
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { readKeyring, type Keyring } from "./pgp.js";
import { messageOf } from "../../payload/errors.js";

/** Reads the keyrings in `dir` (hidden files and subdirectories skipped); throws naming a file that is not a keyring. */
export async function loadKeyrings(dir: string): Promise<Keyring[]> {
  const entries = await readdir(dir, { withFileTypes: true });
  const keyrings: Keyring[] = [];
  for (const entry of entries.filter((e) => !e.name.startsWith(".") && (e.isFile() || e.isSymbolicLink())).sort((a, b) => (a.name < b.name ? -1 : 1))) {
    const path = join(dir, entry.name);
    let keyring: Keyring;
    try {
      keyring = await readKeyring(entry.name, await readFile(path));
    } catch (err) {
      throw new Error(`${path}: ${messageOf(err)}`, { cause: err });
    }
    if (keyring.keys.length === 0) throw new Error(`${path} holds no public key`);
    keyrings.push(keyring);
  }
  if (keyrings.length === 0) throw new Error(`${dir} holds no key files`);
  return keyrings;
}
