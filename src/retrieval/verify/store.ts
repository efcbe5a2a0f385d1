/**
 * Where release-image signatures come from. A signature store is containers/image's "lookaside" layout
 * the CVO reads (library-go `store/sigstore`): `<base>/<algo>=<hex>/signature-1`, `signature-2`, … read in
 * order until one is missing, as plain files served over HTTP(S) (or read from a `file://` directory).
 */
import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { getGlobalDispatcher, interceptors, type Dispatcher } from "undici";
import { redactCredentials } from "../../status/text.js";
import { messageOf } from "../../payload/errors.js";

/** A source of signatures for one digest. */
export interface SignatureSource {
  /** Where it looks, for messages ("signature store under https://…"). */
  readonly description: string;
  /**
   * Yields every signature found for `digest`, in order, or an Error for each one that could not be read
   * (the verifier reports them when nothing verifies); ends when there are no more. `reference` is the
   * image's pull spec by digest. Stops early when the consumer does; honours `signal` by throwing.
   */
  signatures(digest: string, reference: string, signal: AbortSignal): AsyncIterable<Uint8Array | Error>;
}

/** Upstream's bound on signatures read per digest, against a store that never says 404. */
export const MAX_SIGNATURES = 9;

/** Upstream reads at most this much of one signature; a signed claim is a few hundred bytes. */
export const MAX_SIGNATURE_BYTES = 50 * 1024;

/** The store's directory name for a digest: `sha256:abc` → `sha256=abc` (library-go `DigestToKeyPrefix`). */
export function digestPathSegment(digest: string): string {
  const parts = digest.split(":");
  if (parts.length !== 2 || !parts[0] || !parts[1]) throw new Error("the provided digest must be of the form ALGO:HASH");
  return `${parts[0]}=${parts[1]}`;
}

/**
 * A signature store at `base` (`http://`, `https://` or `file://`). `dispatcher` carries TLS settings
 * (a custom CA) for HTTPS; the global one otherwise.
 */
export function signatureStore(base: URL, dispatcher: Dispatcher = getGlobalDispatcher()): SignatureSource {
  if (base.protocol === "file:") return fileStore(fileURLToPath(base));
  if (base.protocol !== "http:" && base.protocol !== "https:") throw new Error(`the store ${base.href} scheme is unrecognized`);
  const root = base.href.endsWith("/") ? base.href : `${base.href}/`;
  // Go's http.Client, which the CVO reads stores with, follows redirects; a store behind a CDN may use them.
  const client = dispatcher.compose(interceptors.redirect({ maxRedirections: 10 }));
  return {
    description: `containers/image signature store under ${redactCredentials(base.href)}`,
    async *signatures(digest, _reference, signal) {
      const dir = `${root}${digestPathSegment(digest)}/signature-`;
      for (let i = 1; i <= MAX_SIGNATURES; i++) {
        signal.throwIfAborted();
        const url = `${dir}${i}`;
        let fetched: Uint8Array | "missing";
        try {
          fetched = await httpSignature(client, url, signal);
        } catch (err) {
          signal.throwIfAborted();
          yield new Error(`unable to retrieve signature from ${redactCredentials(url)}: ${messageOf(err)}`, { cause: err });
          continue;
        }
        if (fetched === "missing") {
          yield new Error(`unable to retrieve signature from ${redactCredentials(url)}: no more signatures to check`);
          return;
        }
        if (fetched.length > 0) yield fetched;
      }
    },
  };
}

/** A local directory in the store layout, as library-go's `fileStore` (and `sign-payload --store`) writes it. */
function fileStore(directory: string): SignatureSource {
  return {
    description: `containers/image signature store under file://${directory}`,
    async *signatures(digest, _reference, signal) {
      const dir = `${directory}/${digestPathSegment(digest)}/signature-`;
      for (let i = 1; i <= MAX_SIGNATURES; i++) {
        signal.throwIfAborted();
        try {
          yield await readFile(`${dir}${i}`, { signal });
        } catch (err) {
          signal.throwIfAborted();
          if ((err as NodeJS.ErrnoException).code === "ENOENT") {
            yield new Error(`unable to retrieve signature from ${dir}${i}: no more signatures to check`);
            return;
          }
          yield new Error(`unable to load signature ${dir}${i}: ${messageOf(err)}`, { cause: err });
        }
      }
    },
  };
}

/** One signature file over HTTP: its bytes, or "missing" on 404. */
async function httpSignature(dispatcher: Dispatcher, url: string, signal: AbortSignal): Promise<Uint8Array | "missing"> {
  const { origin, pathname, search } = new URL(url);
  const response = await dispatcher.request({ origin, path: `${pathname}${search}`, method: "GET", signal });
  if (response.statusCode === 404) {
    await response.body.dump();
    return "missing";
  }
  if (response.statusCode < 200 || response.statusCode >= 300) {
    await response.body.dump();
    throw new Error(`response status ${response.statusCode}`);
  }
  return readBounded(response.body);
}

/** All of `stream`, or an Error (the stream destroyed) once it passes {@link MAX_SIGNATURE_BYTES}. */
export async function readBounded(stream: AsyncIterable<unknown> & { destroy(): void }): Promise<Uint8Array> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream) {
    size += (chunk as Buffer).length;
    if (size > MAX_SIGNATURE_BYTES) {
      stream.destroy();
      throw new Error(`signature larger than ${MAX_SIGNATURE_BYTES} bytes`);
    }
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}
