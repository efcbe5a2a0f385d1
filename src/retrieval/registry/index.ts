/**
 * Release images in OCI registries: pull (with the payload cache), the verifier seam, and publishing a
 * payload directory as an image (`syncworker push-payload`).
 */
export { RegistryRetriever, type RegistryRetrieverOptions, type RetrieveProgress } from "./retriever.js";
export { RegistryClient, type RegistryClientOptions } from "./client.js";
export { UNVERIFIED, type ImageVerifier, type VerificationResult } from "./verifier.js";
export { defaultAuthFile } from "./auth.js";
export { defaultPayloadCache } from "./cache.js";
export { parseReference, byDigest, isDigest, type ImageReference } from "./reference.js";

// Symbols below are library-internal: building blocks for tests and tools.
export { PayloadExtractor, PAYLOAD_DIRS } from "./extract.js";
export { parseManifest, selectPlatform, sha256Digest, type Descriptor } from "./image-manifest.js";
export { pushPayload, pushImage, pushIndex, payloadLayer, type PushedManifest } from "./push.js";
