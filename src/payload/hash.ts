/**
 * The payload's manifest hash (spec §1.6): 64-bit FNV-1 over the `raw` of every included manifest in load
 * order, as 8 big-endian bytes in URL-safe base64 with padding. Two loads of the same payload agree, and
 * the value matches what the Go CVO reports for the same files.
 */
import type { Manifest } from "./manifest.js";

/**
 * 64-bit FNV-1 (multiply, then XOR) of the UTF-8 bytes of `chunks`, big-endian. The state is four 16-bit
 * limbs so every step is exact small-integer arithmetic; prime = 2^40 + 0x1b3, i.e. limbs [0x1b3, 0, 0x100, 0].
 * Characters are encoded to UTF-8 on the fly (lone surrogates as U+FFFD, as TextEncoder does), so the
 * large input is never copied into a byte buffer.
 */
export function fnv1_64(chunks: Iterable<string>): Uint8Array {
  let h0 = 0x2325;
  let h1 = 0x8422;
  let h2 = 0x9ce4;
  let h3 = 0xcbf2;
  const utf8 = [0, 0, 0, 0];
  for (const chunk of chunks) {
    const n = chunk.length;
    for (let i = 0; i < n; i++) {
      let c = chunk.charCodeAt(i);
      let count = 1;
      if (c < 0x80) {
        utf8[0] = c;
      } else {
        if (c >= 0xd800 && c <= 0xdfff) {
          const d = i + 1 < n ? chunk.charCodeAt(i + 1) : 0;
          if (c <= 0xdbff && d >= 0xdc00 && d <= 0xdfff) {
            c = 0x10000 + ((c - 0xd800) << 10) + (d - 0xdc00);
            i++;
          } else {
            c = 0xfffd;
          }
        }
        if (c < 0x800) {
          utf8[0] = 0xc0 | (c >> 6);
          utf8[1] = 0x80 | (c & 0x3f);
          count = 2;
        } else if (c < 0x10000) {
          utf8[0] = 0xe0 | (c >> 12);
          utf8[1] = 0x80 | ((c >> 6) & 0x3f);
          utf8[2] = 0x80 | (c & 0x3f);
          count = 3;
        } else {
          utf8[0] = 0xf0 | (c >> 18);
          utf8[1] = 0x80 | ((c >> 12) & 0x3f);
          utf8[2] = 0x80 | ((c >> 6) & 0x3f);
          utf8[3] = 0x80 | (c & 0x3f);
          count = 4;
        }
      }
      for (let k = 0; k < count; k++) {
        const t0 = h0 * 0x1b3;
        const t1 = h1 * 0x1b3 + (t0 >>> 16);
        const t2 = h2 * 0x1b3 + (h0 << 8) + (t1 >>> 16);
        h3 = (h3 * 0x1b3 + (h1 << 8) + (t2 >>> 16)) & 0xffff;
        h2 = t2 & 0xffff;
        h1 = t1 & 0xffff;
        h0 = (t0 & 0xffff) ^ (utf8[k] ?? 0);
      }
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
  return btoa(String.fromCharCode(...bytes))
    .replaceAll("+", "-")
    .replaceAll("/", "_");
}

/** The CVO `ManifestHash` of `manifests`, e.g. `DL-FFQ2Uem8=`. */
export function manifestHash(manifests: readonly Manifest[]): string {
  return base64UrlPadded(fnv1_64(manifests.map((m) => m.raw)));
}
