/**
 * The retrieval port: what a retriever promises and what it hands back. Its own file, so the retrievers (in
 * src/retrieval/: the directory one, the registry one under registry/) and the worker share it without importing
 * one another, and payload/ needs nothing of retrieval/.
 */
import type { PayloadUpdate } from "./manifest.js";

/** A payload archive in the payload cache and the digest it must have. */
export interface PayloadArchive {
  readonly path: string;
  /** `sha256:<hex>` of the archive's bytes. */
  readonly digest: string;
}

/**
 * Where a payload is: a directory on disk, or (pulled from a registry) an archive in the payload cache, which
 * `directory` then names the cache entry of.
 */
export interface PayloadSource {
  directory: string;
  archive?: PayloadArchive;
}

/** Where a retrieved payload is, and whether its signature was verified. */
export interface PayloadInfo extends PayloadSource {
  /** True when the payload is the operator's own image (no download happened). */
  local: boolean;
  verified: boolean;
  /** Set when verification failed but the update was forced. */
  verificationError?: Error;
}

/** What to retrieve, and whether an image that cannot be verified may be used all the same. */
export interface RetrieveRequest {
  readonly version: string;
  readonly image: string;
  /** The update is forced: every risk is accepted, an unverified image too (upstream words it so). */
  readonly force: boolean;
  /** The update names the risk ImageVerification: an unverified image is accepted, the other risks are not. */
  readonly acceptUnverified?: boolean;
}

/** Introduced for testing: the worker depends on this, not on a concrete retriever. */
export interface PayloadRetriever {
  /**
   * Makes the payload of `desired` available locally. Must honour `signal`. A download tells `progress`
   * how far it is ("downloaded A of B bytes"), for the load-payload status.
   */
  retrieve(desired: RetrieveRequest, signal: AbortSignal, progress?: (message: string) => void): Promise<PayloadInfo>;
}

/** Loads a retrieved payload directory; injected so the worker stays free of file I/O. Must honour `signal`. */
export type PayloadLoader = (source: PayloadSource, releaseImage: string, signal: AbortSignal) => Promise<PayloadUpdate>;

/** What reading a payload takes: a retriever and the loader of what it retrieves. */
export interface PayloadAccess {
  readonly retriever: PayloadRetriever;
  readonly loadPayload: PayloadLoader;
}
