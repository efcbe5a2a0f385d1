/**
 * Release retrieval: getting a payload onto this host and into memory. Directory images from disk (under the
 * payload roots), OCI images pulled from their registry into the payload cache and verified against signatures,
 * the Node {@link PayloadFs} they are read with, and the loader thread that parses them off the event loop. Everything
 * here touches the file system, the network or threads; what a payload is and how it is read stays in src/payload.
 */
export { DirectoryRetriever, ImageRetriever, isDirectoryImage, NO_IMAGE_MESSAGE, openPayload } from "./retrieve.js";
export { ThreadedPayloadLoader, type PortableLoadOptions } from "./threaded-loader.js";
export { nodePayloadFs, isNotExist } from "./node-fs.js";
export {
  RegistryClient,
  RegistryRetriever,
  UNVERIFIED,
  defaultAuthFile,
  defaultPayloadCache,
  type ImageVerifier,
  type VerificationResult,
} from "./registry/index.js";
