import { test } from "node:test";
import assert from "node:assert/strict";
import { base64UrlPadded, fnv1_64, manifestHash } from "../../../src/payload/hash.js";
import { loadUpdate } from "../../../src/payload/load.js";
import { nodePayloadFs } from "../../../src/retrieval/node-fs.js";
import { manifestOf, PAYLOADTEST, tempPayload } from "./helpers.js";

/** Straightforward BigInt FNV-1, the reference the limb implementation must agree with. */
function fnv1Reference(bytes: Uint8Array): bigint {
  let h = 14695981039346656037n;
  for (const b of bytes) h = ((h * 1099511628211n) & 0xffffffffffffffffn) ^ BigInt(b);
  return h;
}
const hex = (b: Uint8Array): string => Buffer.from(b).toString("hex");

// Go hash/fnv New64 (FNV-1). "foobar" under FNV-1a would be 85944171f73967e8: the order of XOR and multiply matters.
const VECTORS: [input: string, fnv1: string][] = [
  ["", "cbf29ce484222325"],
  ["a", "af63bd4c8601b7be"],
  ["foobar", "340d8765a4dda9c2"],
  ["é😀<&>", "1ab2af62f7f3f456"],
];

for (const [input, want] of VECTORS) {
  test(`fnv1_64(${JSON.stringify(input)}) = ${want}`, () => {
    assert.equal(hex(fnv1_64([input])), want);
  });
}

test("fnv1_64 agrees with a BigInt reference on varied input, including multi-byte UTF-8", () => {
  let seed = 7;
  const rnd = (): number => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  for (let n = 0; n < 50; n++) {
    const s = Array.from({ length: Math.floor(rnd() * 300) }, () => String.fromCodePoint(Math.floor(rnd() * 0x2000))).join("") + "é😀<&>";
    const want = fnv1Reference(new TextEncoder().encode(s)).toString(16).padStart(16, "0");
    assert.equal(hex(fnv1_64([s])), want);
  }
});

test("fnv1_64 hashes the concatenation of its chunks", () => {
  assert.deepEqual(fnv1_64(["ab", "", "c"]), fnv1_64(["abc"]));
});

test("base64UrlPadded uses the URL-safe alphabet and keeps padding", () => {
  assert.equal(base64UrlPadded(Uint8Array.from([0xfb, 0xff, 0xbf, 0, 0, 0, 0, 0])), "-_-_AAAAAAA=");
});

test("manifestHash of no manifests is the FNV offset basis", () => {
  assert.equal(manifestHash([]), base64UrlPadded(Uint8Array.from([0xcb, 0xf2, 0x9c, 0xe4, 0x84, 0x22, 0x23, 0x25])));
});

test("manifestHash depends on raw bytes and order only", () => {
  const a = manifestOf({ kind: "A", metadata: { name: "a" } });
  const b = manifestOf({ kind: "B", metadata: { name: "b" } });
  assert.equal(manifestHash([a, b]), manifestHash([{ ...a, originalFilename: "other" }, b]));
  assert.notEqual(manifestHash([a, b]), manifestHash([b, a]));
});

test("acceptance (§1.6): upstream's payloadtest hashes to DL-FFQ2Uem8=", async () => {
  const { dir, cleanup } = await tempPayload(PAYLOADTEST);
  try {
    const update = await loadUpdate(dir, "image/image:1", { exclude: "exclude-test", knownCapabilities: [], architecture: "amd64" }, nodePayloadFs);
    assert.deepEqual(
      update.manifests.map((m) => m.originalFilename),
      ["0000_10_a_file.json", "0000_10_a_file.yaml", "0000_10_a_file.yml"],
    );
    assert.equal(update.manifests[0]?.raw.includes("\n"), true, "JSON kept verbatim");
    assert.equal(
      update.manifests[1]?.raw,
      '{"apiVersion":"v1","kind":"Test","metadata":{"annotations":{"include.release.openshift.io/self-managed-high-availability":"true"},"name":"file-yaml"}}',
    );
    assert.equal(update.manifestHash, "DL-FFQ2Uem8=");
  } finally {
    await cleanup();
  }
});
