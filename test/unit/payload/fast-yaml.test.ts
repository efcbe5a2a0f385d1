import { test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { LineCounter, parseAllDocuments } from "yaml";
import { fastYamlToGo } from "../../../src/payload/fast-yaml.js";
import { isJsonStream, splitYamlDocuments } from "../../../src/payload/parse.js";
import { renderTemplate } from "../../../src/payload/template.js";
import { YAML_PARSE_OPTIONS, yamlDocumentToGo } from "../../../src/payload/yaml-decode.js";
import { REAL_A, REAL_B, skipRealPayloads } from "./helpers.js";
import { mutate, yamlDocument } from "./yaml-gen.js";

/** The full path's verdict on one document: its Go value and first content line, or "error". */
function fullPath(text: string): { value: unknown; line: number } | "error" {
  const lc = new LineCounter();
  const doc = parseAllDocuments(text, { ...YAML_PARSE_OPTIONS, lineCounter: lc })[0];
  if (!doc) return { value: null, line: 1 };
  if (doc.errors.length > 0) return "error";
  try {
    return { value: yamlDocumentToGo(doc, text.length), line: lc.linePos(doc.contents?.range[0] ?? doc.range[0]).line };
  } catch {
    return "error";
  }
}

/** The fast path may give up; when it answers, it must answer exactly what the full path does. */
function agrees(text: string): { fast: boolean } {
  const fast = fastYamlToGo(text);
  if (fast === undefined) return { fast: false };
  const full = fullPath(text);
  assert.notEqual(full, "error", `the fast path accepted what the full path rejects:\n${JSON.stringify(text)}`);
  if (full === "error") return { fast: true };
  assert.deepEqual(fast.value, full.value, JSON.stringify(text));
  if (fast.value !== null) assert.equal(fast.line, full.line, JSON.stringify(text));
  return { fast: true };
}

// Every real document must take the fast path. Its results are checked against Go by the payload hashes
// (real-payloads.test.ts); here a sample is also compared with the full path, which is slow.
test("fast YAML path: every document of the real payloads takes the fast path, and a sample decodes as the full path does", { skip: skipRealPayloads }, () => {
  let docs = 0;
  let fast = 0;
  for (const payload of [REAL_A, REAL_B]) {
    for (const sub of ["manifests", "release-manifests"]) {
      const dir = join(payload, sub);
      for (const name of readdirSync(dir).filter((n) => /\.(ya?ml|json)$/.test(n))) {
        let text = readFileSync(join(dir, name), "utf8");
        if (sub === "manifests") text = renderTemplate(text, { ReleaseImage: "quay.io/x@sha256:1", ClusterProfile: "self-managed-high-availability" });
        if (isJsonStream(text)) continue;
        for (const chunk of splitYamlDocuments(text).docs) {
          docs++;
          if (docs % 8 === 0 ? agrees(chunk.text).fast : fastYamlToGo(chunk.text) !== undefined) fast++;
        }
      }
    }
  }
  assert.ok(docs > 550, `${docs} documents`);
  assert.equal(fast, docs, "real payload YAML stays on the fast path");
});

// Named corner cases: each either takes the fast path with the full path's result, or gives up.
const CASES: [name: string, text: string, fast: boolean][] = [
  ["sequence at the key's indentation", "a:\n- x\n- y\nb: 1\n", true],
  ["compact mapping in a sequence", "- name: a\n  value: 1\n- name: b\n", true],
  ["nested sequences", "- - a\n  - b\n- c\n", true],
  ["dash-prefixed plain scalars", "args:\n- -v=2\n- --flag\nx: -1\n", true],
  ["comments everywhere", "# c\na: 1 # c\n# c\nb:   # c\n  c: 2\n", true],
  ["empty values", "a:\nb:\n  c:\nd: ''\n", true],
  ["plain multi-line with a blank line", "a: one\n  two\n\n  three\nb: x\n", true],
  ["double-quoted folding and escapes", 'a: "x  \n  y\\n\\t\\u00e9\\"\n\n  z"\n', true],
  ["single-quoted with doubled quotes", "a: 'it''s\n  folded'\n", true],
  ["literal block scalars and chomping", "a: |\n  x\n\n  y\n\nb: |-\n  z\nc: |+\n  w\n\nd: x\n", true],
  ["folded block scalar", "a: >-\n  one\n  two\n\n  three\n", true],
  ["flow collections", "a: [1, 'b', \"c\", {d: e}, []]\nb: {x: 1, 'y': [z]}\n", true],
  ["multi-line flow collection", "a: [\n    1,\n    2\n  ]\n", true],
  ["JSON-style flow map", 'a: {"k":1, "l": "m"}\n', true],
  ["keys that resolve (ints, bools, floats)", "1: a\ntrue: b\n1.5: c\nyes: d\n", true],
  ["quoted keys", "\"a b\": 1\n'c': 2\n", true],
  ["a top-level scalar", "just text\n", true],
  ["an empty document", "# nothing\n\n", true],
  ["anchors and aliases", "a: &x 1\nb: *x\n", false],
  ["tags", "a: !!str 1\n", false],
  ["merge keys", "a: {x: 1}\nb:\n  <<: {y: 2}\n", false],
  ["tabs", "a:\n\tb: 1\n", false],
  ["CRLF", "a: 1\r\nb: 2\r\n", false],
  ["complex keys", "? a\n: b\n", false],
  ["explicit indentation indicator", "a: |2\n   x\n", false],
  ["more-indented folded lines", "a: >\n  x\n    y\n  z\n", false],
  ["bad indentation", "a: 1\n   b: 2\n", false],
  ["nested mapping on one line", "a: b: c\n", false],
  ["unterminated quote", 'a: "x\n', false],
  ["document end marker", "a: 1\n...\nb: 2\n", false],
  ["trailing comma in flow", "a: [1, 2,]\n", false],
  ["null key", "~: a\n", false],
  ["long implicit key", `${"k".repeat(1100)}: v\n`, false],
  ["block scalar at end of file without a newline", "a: |\n  x", false],
];

for (const [name, text, fast] of CASES) {
  test(`fast YAML path: ${name}`, () => {
    assert.equal(agrees(text).fast, fast);
  });
}

test("fast YAML path: thousands of generated documents decode exactly as the full path does", () => {
  let fast = 0;
  fc.assert(
    fc.property(yamlDocument, (text) => {
      if (agrees(text).fast) fast++;
    }),
    { numRuns: 1500, seed: 1 },
  );
  assert.ok(fast > 450, `only ${fast} of 1500 generated documents took the fast path`);
});

test("fast YAML path: mutated documents are decoded as the full path does, or left to it", () => {
  fc.assert(
    fc.property(mutate(yamlDocument), (text) => {
      agrees(text);
    }),
    { numRuns: 1500, seed: 2 },
  );
});
