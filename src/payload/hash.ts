/**
 * The payload's manifest hash (spec §1.6): 64-bit FNV-1 over the `raw` of every included manifest in load
 * order, as 8 big-endian bytes in URL-safe base64 with padding. Two loads of the same payload agree, and
 * the value matches what the Go CVO reports for the same files.
 */
import type { Manifest } from "./manifest.js";

/**
 * 64-bit FNV-1 (multiply, then XOR) of the UTF-8 bytes of `chunks`, big-endian. The state is four 16-bit
 * limbs so every step is exact int32 arithmetic; prime = 2^40 + 0x1b3, i.e. limbs [0x1b3, 0, 0x100, 0].
 */
export function fnv1_64(chunks: Iterable<string>): Uint8Array {
  let h0 = 0x2325;
  let h1 = 0x8422;
  let h2 = 0x9ce4;
  let h3 = 0xcbf2;
  const encoder = new TextEncoder();
  for (const chunk of chunks) {
    for (const byte of encoder.encode(chunk)) {
      const t0 = h0 * 0x1b3;
      const t1 = h1 * 0x1b3 + (t0 >>> 16);
      const t2 = h2 * 0x1b3 + (h0 << 8) + (t1 >>> 16);
      h3 = (h3 * 0x1b3 + (h1 << 8) + (t2 >>> 16)) & 0xffff;
      h2 = t2 & 0xffff;
      h1 = t1 & 0xffff;
      h0 = (t0 & 0xffff) ^ byte;
    }
  }
  const out = new Uint8Array(8);
  const view = new DataView(out.buffer);
  view.setUint16(0, h3);
  view.setUint16(2, h2);
  view.setUint16(4, h1);
  view.setUint16(6, h0);
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
