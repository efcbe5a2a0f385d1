/**
 * The payload's manifest hash (spec §1.6): 64-bit FNV-1 over the `raw` of every included manifest in load
 * order, as 8 big-endian bytes in URL-safe base64 with padding. Two loads of the same payload agree, and
 * the value matches what the Go CVO reports for the same files.
 */
import type { Manifest } from "./manifest.js";

const TWO_32 = 4294967296;

/**
 * 64-bit FNV-1 (multiply, then XOR) of the UTF-8 bytes of `chunks`, big-endian. Uses two 32-bit halves in
 * plain numbers: prime = 2^40 + 0x1b3, so h·prime = (lo << 40) + h·0x1b3, all exact in doubles.
 */
export function fnv1_64(chunks: Iterable<string>): Uint8Array {
  let hi = 0xcbf29ce4;
  let lo = 0x84222325;
  const encoder = new TextEncoder();
  for (const chunk of chunks) {
    for (const byte of encoder.encode(chunk)) {
      const loProd = lo * 0x1b3;
      const carry = Math.floor(loProd / TWO_32);
      hi = (hi * 0x1b3 + carry + (lo & 0xffffff) * 256) % TWO_32;
      lo = (loProd % TWO_32 ^ byte) >>> 0;
    }
  }
  const out = new Uint8Array(8);
  const view = new DataView(out.buffer);
  view.setUint32(0, hi);
  view.setUint32(4, lo);
  return out;
}

/** Base64 with the URL-safe alphabet and `=` padding (Go `base64.URLEncoding`). */
export function base64UrlPadded(bytes: Uint8Array): string {
  return btoa(String.fromCharCode(...bytes)).replaceAll("+", "-").replaceAll("/", "_");
}

/** The CVO `ManifestHash` of `manifests`, e.g. `DL-FFQ2Uem8=`. */
export function manifestHash(manifests: readonly Manifest[]): string {
  return base64UrlPadded(fnv1_64(manifests.map((m) => m.raw)));
}
