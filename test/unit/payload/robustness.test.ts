import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { stringify } from "yaml";
import { PayloadError } from "../../../src/payload/errors.js";
import { exclusionReason } from "../../../src/payload/include.js";
import { loadTimeFilter, loadUpdate, type LoadOptions } from "../../../src/payload/load.js";
import { ManifestParseError, parseManifests } from "../../../src/payload/parse.js";
import { releaseManifests } from "../../harness/payload-gen.js";
import { memoryFs, SKELETON, testObject } from "./helpers.js";
import { mutate, yamlDocument } from "./yaml-gen.js";

// Robustness of the loader against bad payload files: whatever the input, loadUpdate either returns the
// whole payload or rejects with a PayloadError of a known kind (never an "Internal" crash, never another
// type), and it never returns part of a payload whose files do not all parse.

const OPTS: LoadOptions = { knownCapabilities: ["baremetal"], architecture: "amd64" };
/** A realistic manifest to truncate: a generated release's Deployment, as YAML. */
const REAL_TEXT = stringify(releaseManifests({ version: "1.0.0" }).find((m) => m.obj.kind === "Deployment")?.obj);

const manifestYaml = (body: string): string => `${testObject("m")}${body}`;
const wrongTypes = fc.constantFrom(
  "kind: 5\nmetadata: {name: a}\n",
  "kind: [A]\nmetadata: {name: a}\n",
  "apiVersion: {x: 1}\nkind: A\nmetadata: {name: a}\n",
  "apiVersion: a/b/c\nkind: A\nmetadata: {name: a}\n",
  "kind: A\nmetadata: x\n",
  "kind: A\nmetadata: [1, 2]\n",
  "kind: A\nmetadata: {name: [1]}\n",
  "kind: A\nmetadata: {name: a, namespace: 5}\n",
  "kind: A\nmetadata: {name: a, annotations: {x: 1}}\n",
  "kind: A\nmetadata: {name: a, annotations: [x]}\n",
  "kind: A\nmetadata: {name: a, annotations: {capability.openshift.io/name: 7}}\n",
  "- a\n- b\n",
  "just a string\n",
  "42\n",
  '{"kind": 5}',
  "[1, 2]",
  '{"kind": "A", "metadata": {"name": "a"}}{"kind": "A", "metadata": {"name": "a"}}',
);
const missingKindOrName = fc.constantFrom(
  "metadata: {name: a}\n",
  "kind: A\n",
  "kind: A\nmetadata: {}\n",
  "kind: ''\nmetadata: {name: a}\n",
  "kind: A\nmetadata: {name: ''}\n",
  "kind: A\nmetadata: {name: n}\n", // YAML 1.1: `n` is false, so the name is missing
  "apiVersion: v1\nkind: A\nmetadata:\n  namespace: x\n",
  '{"metadata": {"name": "a"}}',
);
const truncated = fc
  .tuple(fc.oneof(fc.constant(REAL_TEXT), yamlDocument.map(manifestYaml)), fc.double({ min: 0, max: 1, noNaN: true }))
  .map(([t, f]) => t.slice(0, Math.floor(t.length * f)));
const junk = fc.uint8Array({ maxLength: 300 }).map((b) => Buffer.from(b).toString("utf8"));
// Nesting beyond the parsers' stack is covered by the fixed cases below; here depth stays cheap.
const deep = fc.tuple(fc.integer({ min: 1, max: 3000 }), fc.constantFrom("flow", "block", "json", "seq")).map(([n, kind]) => deepDocument(n, kind));

function deepDocument(n: number, kind: "flow" | "block" | "json" | "seq"): string {
  if (kind === "flow") return `kind: A\nmetadata: {name: a}\nx: ${"[".repeat(n)}${"]".repeat(n)}\n`;
  if (kind === "json") return `{"kind": "A", "metadata": {"name": "a"}, "x": ${'{"a":'.repeat(n)}1${"}".repeat(n)}}`;
  if (kind === "seq") return `kind: A\nmetadata: {name: a}\nx:\n${Array.from({ length: Math.min(n, 300) }, (_, i) => `${" ".repeat(i)}- `).join("\n")}x\n`;
  return `kind: A\nmetadata: {name: a}\n${Array.from({ length: Math.min(n, 300) }, (_, i) => `${" ".repeat(i)}k${i}:`).join("\n")} v\n`;
}
const templated = fc.constantFrom(
  "kind: A\nmetadata: {name: '{{ .ReleaseImage }}'}\n",
  "kind: A\nmetadata: {name: {{ .Nope }}}\n",
  '{{ printf "x" }}',
  "{{",
  "kind: A\n{{/* c */}}metadata: {name: a}\n",
);

const badFile = fc.oneof(
  truncated,
  wrongTypes,
  missingKindOrName,
  junk,
  deep,
  mutate(yamlDocument.map(manifestYaml)),
  yamlDocument.map(manifestYaml),
  fc.constant(manifestYaml("")),
  fc.array(fc.oneof(wrongTypes, missingKindOrName, fc.constant(testObject("x"))), { minLength: 1, maxLength: 3 }).map((docs) => docs.join("\n---\n")),
);

const payload = fc.record({
  release: fc.array(badFile, { minLength: 1, maxLength: 3 }),
  cvo: fc.option(fc.oneof(templated, badFile), { nil: undefined }),
});

/** What a correct loader must return: every file's manifests, filtered, or nothing at all. */
function expected(files: Record<string, string>): { count: number } | "fails" {
  let count = 0;
  const filter = loadTimeFilter(OPTS);
  for (const [path, text] of Object.entries(files).sort(([a], [b]) => (a < b ? -1 : 1))) {
    if (!path.startsWith("release-manifests/0")) continue;
    try {
      count += parseManifests(text, path).filter((m) => exclusionReason(m, filter) === undefined).length;
    } catch (e) {
      if (!(e instanceof ManifestParseError)) throw e;
      return "fails";
    }
  }
  return { count };
}

test("robustness: thousands of bad payloads load completely or fail with a typed PayloadError, never partly", async () => {
  let failures = 0;
  await fc.assert(
    fc.asyncProperty(payload, async ({ release, cvo }) => {
      const files: Record<string, string> = { ...SKELETON, "release-manifests/0000_10_a_ok.yaml": testObject("ok") };
      release.forEach((text, i) => (files[`release-manifests/0000_20_b_${i}.yaml`] = text));
      if (cvo !== undefined) files["manifests/0000_00_c_cvo.yaml"] = cvo;
      const want = cvo === undefined ? expected(files) : undefined;
      try {
        const update = await loadUpdate("/p", "quay.io/x@sha256:1", OPTS, memoryFs(files));
        if (want !== undefined) assert.notEqual(want, "fails", "a payload with an unparsable file must not load");
        if (want !== undefined && want !== "fails") assert.equal(update.manifests.length, want.count);
      } catch (err) {
        failures++;
        assert.ok(err instanceof PayloadError, `not a PayloadError: ${String(err)}`);
        assert.equal(err.kind, "Manifests", err.message);
        assert.equal(err.step, "LoadPayload");
        assert.equal(err.reason, "UpdatePayloadIntegrity");
        assert.ok(err.problems.length > 0 && err.problems.every((p) => /^(release-)?manifests\/0000_/.test(p.file)), JSON.stringify(err.problems));
        if (want !== undefined) assert.equal(want, "fails", `rejected a payload whose files all parse: ${err.message}`);
      }
    }),
    { numRuns: 1500, seed: 5 },
  );
  assert.ok(failures > 500, `only ${failures} of 1500 payloads failed; the generator is too kind`);
});

test("robustness: nesting deeper than any stack is a per-file error naming the document", async () => {
  for (const kind of ["flow", "json"] as const) {
    const files = { ...SKELETON, "release-manifests/0000_a.yaml": testObject("ok"), "release-manifests/0000_b.yaml": deepDocument(100_000, kind) };
    await assert.rejects(loadUpdate("/p", "img", OPTS, memoryFs(files)), (err: unknown) => {
      assert.ok(err instanceof PayloadError && err.kind === "Manifests", String(err));
      assert.deepEqual([err.file, err.document], ["release-manifests/0000_b.yaml", 1]);
      return true;
    });
  }
});

test("robustness: 10 MB documents load or fail cleanly", async () => {
  const big = `${testObject("big")}data:\n${Array.from({ length: 230_000 }, (_, i) => `  key${i}: "${"v".repeat(30)}"`).join("\n")}\n`;
  assert.ok(big.length > 10_000_000);
  const ok = await loadUpdate("/p", "img", OPTS, memoryFs({ ...SKELETON, "release-manifests/0000_a.yaml": big }));
  assert.equal(Object.keys(ok.manifests[0]?.obj["data"] as object).length, 230_000);
  const bigJson = JSON.stringify({
    kind: "A",
    metadata: { name: "a", annotations: { "include.release.openshift.io/self-managed-high-availability": "true" } },
    x: "y".repeat(10_000_000),
  });
  assert.equal((await loadUpdate("/p", "img", OPTS, memoryFs({ ...SKELETON, "release-manifests/0000_a.json": bigJson }))).manifests.length, 1);
  // Broken ones (a YAML syntax error in 10 MB takes the slow full path; it is covered at smaller sizes).
  const broken: [text: string, document: number, line: number][] = [
    [bigJson.slice(0, -1), 1, 1],
    [`${big}--- x\n`, 1, 230_008], // the bad separator fails the document it would close
    [big.replace("kind: Test", "kind: 5"), 1, 1],
  ];
  for (const [text, document, line] of broken) {
    await assert.rejects(loadUpdate("/p", "img", OPTS, memoryFs({ ...SKELETON, "release-manifests/0000_a.yaml": text })), (err: unknown) => {
      assert.ok(err instanceof PayloadError && err.kind === "Manifests", String(err));
      assert.deepEqual([err.file, err.document, err.line], ["release-manifests/0000_a.yaml", document, line], err.message.slice(0, 300));
      return true;
    });
  }
});
