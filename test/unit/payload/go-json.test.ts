import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { compareGoStrings, goJsonMarshal, type GoValue } from "../../../src/payload/go-json.js";
import { fnv1_64 } from "../../../src/payload/hash.js";

const key = fc.oneof(
  fc.string({ unit: "grapheme", maxLength: 6 }),
  fc.constantFrom("__proto__", "constructor", "1", "01", "<&>", "\u2028", "é", "😀", "\ue000"),
);
const goValue = fc.letrec<{ value: GoValue }>((tie) => ({
  value: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    fc.constant(null),
    fc.boolean(),
    fc.bigInt({ min: -(2n ** 64n), max: 2n ** 64n }),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.string({ unit: "grapheme", maxLength: 8 }),
    key,
    fc.array(tie("value"), { maxLength: 4 }),
    fc.uniqueArray(fc.tuple(key, tie("value")), { selector: ([k]) => k, maxLength: 4 }).map((entries) => new Map(entries)),
  ),
})).value;

/** What Go's json.Marshal means, decoded: maps as objects, integers as the nearest double. */
function reference(v: GoValue): unknown {
  if (typeof v === "bigint") return Number(v);
  if (Array.isArray(v)) return v.map(reference);
  if (v instanceof Map) {
    const out: Record<string, unknown> = {};
    for (const [k, x] of v) Object.defineProperty(out, k, { value: reference(x), enumerable: true, writable: true, configurable: true });
    return out;
  }
  return v;
}

test("goJsonMarshal: valid JSON with the value's meaning, map keys in Go's byte order, HTML characters escaped", () => {
  fc.assert(
    fc.property(goValue, (v) => {
      const raw = goJsonMarshal(v);
      assert.deepStrictEqual(JSON.parse(raw), reference(v));
      assert.doesNotMatch(raw, /[<>&\u2028\u2029]/);
      const walk = (x: unknown): void => {
        if (typeof x !== "object" || x === null) return;
        const keys = Object.keys(x).filter((k) => !/^(0|[1-9]\d*)$/.test(k)); // JS lists integer keys first
        assert.deepEqual(keys, [...keys].sort(compareGoStrings));
        Object.values(x).forEach(walk);
      };
      walk(JSON.parse(raw));
    }),
    { numRuns: 2000, seed: 3 },
  );
});

/** FNV-1 64 by the book, over TextEncoder's bytes. */
function referenceFnv(s: string): string {
  let h = 14695981039346656037n;
  for (const b of new TextEncoder().encode(s)) h = ((h * 1099511628211n) & 0xffffffffffffffffn) ^ BigInt(b);
  return h.toString(16).padStart(16, "0");
}

test("fnv1_64 hashes the UTF-8 bytes of any string (lone surrogates as U+FFFD), like the textbook FNV-1", () => {
  fc.assert(
    fc.property(fc.string({ unit: "binary", maxLength: 40 }), (s) => {
      assert.equal(Buffer.from(fnv1_64([s])).toString("hex"), referenceFnv(s));
    }),
    { numRuns: 2000, seed: 4 },
  );
  assert.equal(Buffer.from(fnv1_64(["ab", "c"])).toString("hex"), referenceFnv("abc"));
});
