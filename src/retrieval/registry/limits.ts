/**
 * Bounds on what a registry and an image may make a pull use: each is something an outsider controls (a response
 * body, a layer's size, what a layer expands to, how slowly bytes come), and each has a `serve` flag (see
 * src/config/options.ts). The defaults leave room for an OpenShift release (a few hundred MB of layers, a thousand
 * manifest files of tens of MB in all) while keeping one hostile pull far from exhausting the host.
 */

export interface PullLimits {
  /** Bytes of a manifest, index, token or error body read from a registry (`--registry-max-response`). */
  readonly maxResponseBytes: number;
  /** A layer whose manifest declares more bytes is refused before it is downloaded (`--registry-max-layer`). */
  readonly maxLayerBytes: number;
  /** Bytes of all payload files one image may extract to (`--payload-max-bytes`). */
  readonly maxPayloadBytes: number;
  /** Payload entries (files, directories, links) one image may extract (`--payload-max-files`). */
  readonly maxPayloadFiles: number;
  /** Disk use of the payload cache; the least recently used entries are removed beyond it (`--payload-cache-max`). */
  readonly maxCacheBytes: number;
  /** One pull, from the first manifest to the sealed cache entry (`--registry-pull-timeout`). */
  readonly pullTimeoutMs: number;
  /** How long a registry may send nothing (no headers, no body bytes) before the pull fails (`--registry-stall-timeout`). */
  readonly stallTimeoutMs: number;
}

export const DEFAULT_PULL_LIMITS: PullLimits = Object.freeze({
  // The distribution registry itself refuses manifests above 4 MiB.
  maxResponseBytes: 4 * 2 ** 20,
  maxLayerBytes: 2 ** 30,
  maxPayloadBytes: 256 * 2 ** 20,
  maxPayloadFiles: 20_000,
  maxCacheBytes: 2 ** 30,
  pullTimeoutMs: 10 * 60_000,
  stallTimeoutMs: 30_000,
});
