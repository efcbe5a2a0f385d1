/**
 * OpenPGP for simple signing: reading keyrings, checking a signed message against one, and producing one
 * as `gpg --sign` (what containers/image and `skopeo standalone-sign` write) does. OpenPGP.js does the
 * cryptography; this file only maps its answers to library-go's wording.
 */
import * as openpgp from "openpgp";
import { messageOf } from "../../payload/errors.js";

/** Public keys trusted together: one `--verification-keys` file, as one `verifier-public-key-*` upstream. */
export interface Keyring {
  readonly name: string;
  readonly keys: readonly openpgp.PublicKey[];
}

const ARMOR = "-----BEGIN PGP";

/** Armored or binary, as upstream's `loadArmoredOrUnarmoredGPGKeyRing`; private keys count as their public half. */
export async function readKeyring(name: string, data: Uint8Array): Promise<Keyring> {
  let keys: openpgp.Key[];
  try {
    keys = isArmored(data) ? await openpgp.readKeys({ armoredKeys: new TextDecoder().decode(data) }) : await openpgp.readKeys({ binaryKeys: data });
  } catch (err) {
    throw new Error(`unable to read keyring ${name}: ${messageOf(err)}`, { cause: err });
  }
  return { name, keys: keys.map((key) => key.toPublic()) };
}

/**
 * The signed content of `signature` when a key of `keyring` made a valid, unexpired signature over it;
 * throws otherwise (library-go's `verifySignatureWithKeyring`).
 */
export async function verifyWithKeyring(signature: Uint8Array, keyring: Keyring, now: Date): Promise<Uint8Array> {
  let result: openpgp.VerifyMessageResult<Uint8Array>;
  try {
    const verificationKeys = [...keyring.keys];
    result = isArmored(signature)
      ? await openpgp.verify({
          message: await openpgp.readMessage({ armoredMessage: new TextDecoder().decode(signature) }),
          verificationKeys,
          format: "binary",
          date: now,
        })
      : await openpgp.verify({ message: await openpgp.readMessage({ binaryMessage: signature }), verificationKeys, format: "binary", date: now });
  } catch (err) {
    throw new Error(`could not read the message: ${messageOf(err)}`, { cause: err });
  }
  if (result.signatures.length === 0) throw new Error("not signed");
  const failures: string[] = [];
  for (const sig of result.signatures) {
    try {
      await sig.verified;
      return result.data;
    } catch (err) {
      failures.push(messageOf(err));
    }
  }
  throw new Error(`signature error: ${failures.join("; ")}`);
}

/** `content` as a signed (not armored) OpenPGP message, as `gpg --sign` writes signature files. */
export async function signMessage(content: Uint8Array, signingKey: openpgp.PrivateKey, now: Date): Promise<Uint8Array> {
  const message: openpgp.Message<Uint8Array> = await openpgp.createMessage({ binary: content, date: now });
  return openpgp.sign({ message, signingKeys: signingKey, format: "binary", date: now });
}

/** Reads an armored private key, decrypting it with `passphrase` when it is protected. */
export async function readSigningKey(armored: string, passphrase?: string): Promise<openpgp.PrivateKey> {
  const key = await openpgp.readPrivateKey({ armoredKey: armored });
  if (key.isDecrypted()) return key;
  if (passphrase === undefined) throw new Error("the signing key is protected by a passphrase; none was given");
  return openpgp.decryptKey({ privateKey: key, passphrase });
}

/** Upper-case hex fingerprint, as library-go and gpg print keys. */
export function fingerprint(key: openpgp.Key): string {
  return key.getFingerprint().toUpperCase();
}

function isArmored(data: Uint8Array): boolean {
  return new TextDecoder().decode(data.subarray(0, 64)).trimStart().startsWith(ARMOR);
}
