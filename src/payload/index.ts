/**
 * Release payloads: what a payload is and how it is read. Loads a payload directory (metadata, templated and plain
 * manifests, inclusion filter) into a {@link PayloadUpdate} with its manifest hash. Pure apart from the injected
 * {@link PayloadFs} (`nodePayloadFs` in src/retrieval is the Node implementation; getting a payload onto the
 * disk is src/retrieval's too). Every failure is a {@link PayloadError}.
 */
export { loadUpdate, loadTimeFilter, verifyPayloadVersion, validateDirectory, goArch, DEFAULT_CLUSTER_PROFILE } from "./load.js";
export type { LoadOptions, PayloadFs } from "./load.js";
export { DEFAULT_PAYLOAD_LIMITS, type PayloadLimits } from "./yaml-decode.js";
export { PayloadError, PAYLOAD_ERROR_POLICY } from "./errors.js";
export type { PayloadErrorInit, PayloadErrorKind, PayloadProblem, PayloadStep } from "./errors.js";
export type { PayloadAccess, PayloadArchive, PayloadInfo, PayloadLoader, PayloadRetriever, PayloadSource } from "./retrieval-port.js";
export {
  exclusionReason,
  manifestCapabilities,
  annotationsOf,
  CAPABILITY_ANNOTATION,
  FEATURE_SET_ANNOTATION,
  FEATURE_GATE_ANNOTATION,
  DEFAULT_FEATURE_SET,
  KNOWN_FEATURE_SETS,
  MAJOR_VERSION_ANNOTATION,
} from "./include.js";
export type { IncludeFilter } from "./include.js";
export { manifestHash } from "./hash.js";
export { gvkOf, nameOf, namespaceOf } from "./manifest.js";
export type { GroupVersionKind, KubeObject, Manifest, PayloadUpdate, Release } from "./manifest.js";

// Symbols below are library-internal: building blocks exported for tests and tools (render/diff CLI).
export { renderTemplate, TemplateError } from "./template.js";
export { parseManifests, ManifestParseError, resourceIdString } from "./parse.js";
export { parseReleaseMetadata, parseImageReferences, semverError, MetadataError, MULTI_ARCHITECTURE, type ReleaseMetadata } from "./metadata.js";
export { fnv1_64, base64UrlPadded } from "./hash.js";
export { CVO_MANIFEST_DIR, RELEASE_MANIFEST_DIR, RELEASE_METADATA_FILE, IMAGE_REFERENCES_FILE } from "./load.js";
