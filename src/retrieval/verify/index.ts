/**
 * Release-image signature verification as the CVO does it: simple-signing claims in OpenPGP signed
 * messages, read from signature stores and the registry, checked against `--verification-keys`.
 */
export { configureVerifier, type VerificationOptions } from "./configure.js";
export { releaseVerifier, type ReleaseVerifierOptions } from "./verifier.js";
export { pushSignature, registrySignatures, signatureTag, SIGNATURE_LAYER_TYPE } from "./registry.js";
export { loadKeyrings } from "./keys.js";
export { signatureStore, type SignatureSource } from "./store.js";
export { addToStore, signImage, type SignedImage } from "./sign.js";
export { readSigningKey } from "./pgp.js";

// Library-internal below: the pieces, for tests and the CLI.
export { ATOMIC_SIGNATURE_TYPE, checkClaim, claimFor, type AtomicClaim } from "./claim.js";
export { fingerprint, readKeyring, verifyWithKeyring, type Keyring } from "./pgp.js";
export { digestPathSegment, MAX_SIGNATURES } from "./store.js";
