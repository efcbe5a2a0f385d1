// Hostile payload contents: alias amplification, deep nesting, bad encodings and control characters are refused
// in the loading thread naming the file (and line), with a reason; what real payloads use still loads.
import assert from "node:assert/strict";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { test } from "node:test";
import { PayloadError } from "../../../src/payload/errors.js";
import { loadUpdate, type LoadOptions } from "../../../src/payload/load.js";
import { nodePayloadFs } from "../../../src/retrieval/node-fs.js";
import { MemoryPayloadFs } from "../../../src/payload/memory-fs.js";
import { ThreadedPayloadLoader } from "../../../src/retrieval/threaded-loader.js";
import { decodeUtf8, InvalidUtf8Error } from "../../../src/payload/utf8.js";
import { REVISION_CAPS, SKELETON, tempPayload, testObject } from "./helpers.js";

const OPTS: LoadOptions = { knownCapabilities: REVISION_CAPS, architecture: "amd64" };
const never = new AbortController().signal;

/** `uses` aliases of one anchored value of `bytes` bytes, in a manifest: the issue's amplification. */
function aliasBomb(bytes: number, uses: number): string {
  const refs = Array.from({ length: uses }, (_, i) => `  k${i}: *big`).join("\n");
  return `${testObject("bomb")}data:\n  big: &big ${"x".repeat(bytes)}\n${refs}\n`;
}

/** The load's failure, which must be a PayloadError. */
async function failure(load: Promise<unknown>): Promise<PayloadError> {
  try {
    await load;
  } catch (err) {
    assert.ok(err instanceof PayloadError, String(err));
    return err;
  }
  assert.fail("expected the load to fail");
}

/** Loads `files` (over the skeleton) from a temporary directory. */
async function loadFiles(files: Record<string, string>, opts: LoadOptions = OPTS): Promise<unknown> {
  const { dir, cleanup } = await tempPayload({ ...SKELETON, ...files });
  try {
    return await loadUpdate(dir, "img", opts, nodePayloadFs);
  } finally {
    await cleanup();
  }
}

test("a 1 MiB anchored value used 300 times is refused at the alias byte limit, naming the file and line", async () => {
  const err = await failure(loadFiles({ "release-manifests/0000_10_bomb.yaml": aliasBomb(1 << 20, 300) }));
  assert.equal(err.kind, "Manifests");
  assert.equal(err.reason, "UpdatePayloadIntegrity");
  assert.equal(err.file, "release-manifests/0000_10_bomb.yaml");
  // Lines 9 on are the aliases: the 17th 1 MiB copy crosses 16 MiB.
  assert.equal(err.line, 24);
  assert.match(
    err.message,
    /parse 0000_10_bomb\.yaml: error parsing: yaml: aliases expand to more than 16777216 bytes \(the payload's limit\) \(document 1, line 24\)$/,
  );
});

test("the alias budget is one per payload: files each under it together exceed it", async () => {
  const limits = { maxAliasBytes: 64 * 1024, maxDepth: 512 };
  const one = aliasBomb(1000, 40); // about 40 kB of expansion
  assert.equal(((await loadFiles({ "release-manifests/0000_10_a.yaml": one }, { ...OPTS, limits })) as { manifests: unknown[] }).manifests.length, 1);
  const err = await failure(
    loadFiles({ "release-manifests/0000_10_a.yaml": one, "release-manifests/0000_20_b.yaml": one.replace("name: bomb", "name: bomb2") }, { ...OPTS, limits }),
  );
  assert.equal(err.file, "release-manifests/0000_20_b.yaml");
  assert.match(err.message, /aliases expand to more than 65536 bytes/);
});

test("merge keys copying an aliased map count as alias expansion", async () => {
  const merges = Array.from({ length: 100 }, (_, i) => `  m${i}:\n    <<: *base`).join("\n");
  const text = `${testObject("merge")}data:\n  base: &base\n    big: ${"y".repeat(10_000)}\n${merges}\n`;
  const err = await failure(loadFiles({ "release-manifests/0000_10_merge.yaml": text }, { ...OPTS, limits: { maxAliasBytes: 100_000, maxDepth: 512 } }));
  assert.match(err.message, /parse 0000_10_merge\.yaml: error parsing: yaml: aliases expand to more than 100000 bytes/);
});

test("aliases within the limit still expand as yaml.v2 does", async () => {
  const update = (await loadFiles({ "release-manifests/0000_10_ok.yaml": `${testObject("ok")}data:\n  a: &v hello\n  b: *v\n` })) as {
    manifests: { obj: Record<string, unknown> }[];
  };
  assert.deepEqual(update.manifests[0]?.obj["data"], { a: "hello", b: "hello" });
});

test("image-references share the alias budget", async () => {
  const refs = `kind: ImageStream\napiVersion: image.openshift.io/v1\nmetadata:\n  name: 1.0.0-abc\n  annotations:\n    big: &big ${"z".repeat(10_000)}\n${Array.from({ length: 20 }, (_, i) => `    a${i}: *big`).join("\n")}\n`;
  const err = await failure(loadFiles({ "release-manifests/image-references": refs }, { ...OPTS, limits: { maxAliasBytes: 100_000, maxDepth: 512 } }));
  assert.deepEqual([err.kind, err.reason, err.file], ["ImageReferences", "ImageReferencesInvalid", "release-manifests/image-references"]);
  assert.match(err.message, /^release-manifests\/image-references: unmarshal image-references: yaml: aliases expand to more than 100000 bytes/);
});

test("a large image name substituted many times by a manifests/ template is refused, not skipped, naming the file and line", async () => {
  const refs = `kind: ImageStream\napiVersion: image.openshift.io/v1\nmetadata:\n  name: 1.0.0-abc\nspec:\n  tags:\n  - name: big\n    from:\n      kind: DockerImage\n      name: quay.io/x@sha256:${"a".repeat(100_000)}\n`;
  const uses = Array.from({ length: 200 }, (_, i) => `  k${i}: "{{ index .Images "big" }}"`).join("\n");
  const err = await failure(loadFiles({ "release-manifests/image-references": refs, "manifests/0000_00_cvo.yaml": `${testObject("cvo")}data:\n${uses}\n` }));
  assert.deepEqual([err.kind, err.reason, err.file, err.line], ["Manifests", "UpdatePayloadIntegrity", "manifests/0000_00_cvo.yaml", 175]);
  assert.match(err.message, /render 0000_00_cvo\.yaml: template: manifest:175:\d+: substitutions expand to more than 16777216 bytes \(the payload's limit\)$/);
});

const DEEP = 5000;
const flow = (levels: number): string => `${testObject("deep")}data:\n  x: ${"[".repeat(levels)}${"]".repeat(levels)}\n`;
const block = (levels: number): string => `${testObject("deep")}data:\n${Array.from({ length: levels }, (_, i) => `${" ".repeat(i + 2)}k:`).join("\n")} v\n`;
const deepJson = `{"kind":"Test","apiVersion":"v1","metadata":{"name":"deep","annotations":{"include.release.openshift.io/self-managed-high-availability":"true"}},"x":${"[".repeat(DEEP)}${"]".repeat(DEEP)}}`;
// An anchor makes the YAML take the full path (the yaml package), whose decoding checks depth as it goes.
const anchored = (text: string): string => text.replace("data:\n", "data:\n  anchor: &a 1\n");

for (const [name, file, text, pattern] of [
  [
    `flow YAML ${DEEP} levels deep`,
    "0000_10_deep.yaml",
    flow(DEEP),
    /parse 0000_10_deep\.yaml: error parsing: yaml: exceeded max depth of 512 \(document 1, line 1\)$/,
  ],
  // Here, on the test's main thread, the parsers run out of stack first (the loader thread's is larger: see below).
  [
    `block YAML ${DEEP} levels deep`,
    "0000_10_deep.yaml",
    block(DEEP),
    /parse 0000_10_deep\.yaml: error parsing: (yaml: exceeded max depth of 512 \(document 1, line 1\)|error converting YAML to JSON: yaml: line \d+: Maximum call stack size exceeded \(document 1, column \d+\))$/,
  ],
  [
    "block YAML 600 levels deep with an anchor",
    "0000_10_deep.yaml",
    anchored(block(600)),
    /parse 0000_10_deep\.yaml: error parsing: yaml: exceeded max depth of 512 \(document 1, line 520\)$/,
  ],
  [
    `JSON ${DEEP} levels deep`,
    "0000_10_deep.json",
    deepJson,
    /parse 0000_10_deep\.json: error parsing: json: offset 661: invalid character '\[' exceeded max depth \(document 1, line 1, column 661\)$/,
  ],
] as const) {
  test(`${name} is refused beyond the depth limit, naming the file`, async () => {
    const err = await failure(loadFiles({ [`release-manifests/${file}`]: text }));
    assert.equal(err.kind, "Manifests");
    assert.equal(err.file, `release-manifests/${file}`);
    assert.match(err.message, pattern);
  });
}

test("the loader thread refuses a deep document itself, naming the file", async () => {
  const { dir, cleanup } = await tempPayload({ ...SKELETON, "release-manifests/0000_10_deep.yaml": block(DEEP) });
  const loader = new ThreadedPayloadLoader(OPTS, 600_000);
  try {
    const err = await failure(loader.load({ directory: dir }, "img", never));
    assert.equal(err.file, "release-manifests/0000_10_deep.yaml");
    assert.match(err.message, /parse 0000_10_deep\.yaml: error parsing: yaml: exceeded max depth of 512 \(document 1, line 1\)$/);
  } finally {
    await loader.close();
    await cleanup();
  }
});

test("a reply the service's thread cannot receive fails the load at once with a reason, not at its deadline", { timeout: 120_000 }, async () => {
  // Allowed this deep, the payload loads in the thread but cannot be structured-cloned back.
  const { dir, cleanup } = await tempPayload({ ...SKELETON, "release-manifests/0000_10_deep.json": deepJson });
  const loader = new ThreadedPayloadLoader({ ...OPTS, limits: { maxAliasBytes: 1 << 20, maxDepth: 10_000 } }, 600_000);
  try {
    const err = await failure(loader.load({ directory: dir }, "img", never));
    assert.equal(err.kind, "Internal");
    assert.equal(err.reason, "UpdatePayloadLoadFailed");
    assert.match(err.message, new RegExp(`^the payload ${dir} was loaded but could not be passed back from the loader thread: .*call stack`));
    const ok = await loader.load({ directory: dir.replace(/$/, "") }, "img", never).catch((e: unknown) => e);
    assert.ok(ok instanceof PayloadError, "the loader still answers afterwards");
  } finally {
    await loader.close();
    await cleanup();
  }
});

test("a Latin-1 byte is refused as invalid UTF-8 naming the file, offset and line, not applied as U+FFFD", async () => {
  const { dir, cleanup } = await tempPayload({ ...SKELETON, "release-manifests/0000_10_latin1.yaml": "" });
  try {
    await writeFile(
      join(dir, "release-manifests/0000_10_latin1.yaml"),
      Buffer.concat([Buffer.from(`${testObject("latin1")}data:\n  city: M`), Buffer.from([0xfc]), Buffer.from("nchen\n")]),
    );
    const err = await failure(loadUpdate(dir, "img", OPTS, nodePayloadFs));
    assert.deepEqual([err.kind, err.file, err.line], ["Manifests", "release-manifests/0000_10_latin1.yaml", 8]);
    assert.match(err.message, /parse 0000_10_latin1\.yaml: error parsing: invalid UTF-8 at byte offset 153 \(line 8\)$/);
  } finally {
    await cleanup();
  }
});

test("invalid UTF-8 in release-metadata is refused naming the file, with a reason", async () => {
  const { dir, cleanup } = await tempPayload(SKELETON);
  try {
    await writeFile(join(dir, "release-manifests/release-metadata"), Buffer.from('{"kind": "cincinnati-metadata-v0", "version": "1.0.0-\xe9"}', "latin1"));
    const err = await failure(loadUpdate(dir, "img", OPTS, nodePayloadFs));
    assert.deepEqual([err.kind, err.reason, err.file, err.line], ["ReleaseMetadata", "ReleaseMetadataInvalid", "release-manifests/release-metadata", 1]);
    assert.equal(err.message, "release-manifests/release-metadata:1: invalid UTF-8 at byte offset 53 (line 1)");
  } finally {
    await cleanup();
  }
});

test("pulled payloads (read from memory) refuse invalid UTF-8 too", async () => {
  const fs = new MemoryPayloadFs(new Map([["a.yaml", { kind: "file", data: Buffer.from([0x61, 0x0a, 0xc3, 0x28]) }]]), "/p");
  await assert.rejects(fs.readFile("/p/a.yaml"), (err: unknown) => err instanceof InvalidUtf8Error && err.offset === 2 && err.line === 2);
});

test("decodeUtf8 finds the first invalid byte after valid multi-byte text and a literal U+FFFD", () => {
  assert.equal(decodeUtf8(Buffer.from("é\uFFFD𝄞 ok")), "é\uFFFD𝄞 ok");
  const bytes = Buffer.concat([Buffer.from("é\uFFFD𝄞\n"), Buffer.from([0xe2, 0x82]), Buffer.from("x")]);
  assert.throws(() => decodeUtf8(bytes), { message: "invalid UTF-8 at byte offset 10 (line 2)" });
  assert.throws(() => decodeUtf8(Buffer.from([0xed, 0xa0, 0x80])), { message: "invalid UTF-8 at byte offset 0 (line 1)" }, "an encoded surrogate");
});

for (const [name, char] of [
  ["NUL", "\x00"],
  ["BEL", "\x07"],
  ["ESC", "\x1b"],
  ["DEL", "\x7f"],
  ["a C1 control", "\x9b"],
] as const) {
  test(`${name} in a YAML value is refused like yaml.v2 does, naming the file and line`, async () => {
    const err = await failure(loadFiles({ "release-manifests/0000_10_ctl.yaml": `${testObject("ctl")}data:\n  v: "a${char}b"\n` }));
    assert.deepEqual([err.kind, err.file, err.line], ["Manifests", "release-manifests/0000_10_ctl.yaml", 8]);
    const code = char.charCodeAt(0).toString(16).toUpperCase().padStart(4, "0");
    assert.match(
      err.message,
      new RegExp(
        `parse 0000_10_ctl\\.yaml: error parsing: error converting YAML to JSON: yaml: control characters are not allowed \\(U\\+${code}\\) \\(document 1, line 8\\)`,
      ),
    );
  });
}

test("tab, CR, NEL and non-ASCII text stay allowed in YAML", async () => {
  const update = (await loadFiles({ "release-manifests/0000_10_ok.yaml": `${testObject("ok")}data:\r\n  v: "a\tb\u0085c é ✓"\r\n` })) as {
    manifests: { obj: Record<string, unknown> }[];
  };
  assert.deepEqual(update.manifests[0]?.obj["data"], { v: "a\tb\u0085c é ✓" });
});

test("a control character in image-references is refused naming the file and line", async () => {
  const err = await failure(
    loadFiles({ "release-manifests/image-references": "kind: ImageStream\napiVersion: image.openshift.io/v1\nmetadata:\n  name: 1.0.0-abc\x1b[31m\n" }),
  );
  assert.deepEqual([err.kind, err.reason, err.file, err.line], ["ImageReferences", "ImageReferencesInvalid", "release-manifests/image-references", 4]);
  assert.equal(err.message, "release-manifests/image-references:4: unmarshal image-references: yaml: control characters are not allowed (U+001B)");
});
