import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { goArch, isNotExist, loadUpdate, nodePayloadFs, validateDirectory, type LoadOptions, type PayloadFs } from "../../../src/payload/load.js";
import type { PayloadUpdate } from "../../../src/payload/manifest.js";
import { UpdateError } from "../../../src/payload/update-error.js";
import { CAPS_4_16, ORACLE_IMAGE, PAYLOADTEST, REAL_A, REAL_B, REVISION_CAPS, SKELETON, tempPayload, testObject } from "./helpers.js";

const OPTS: LoadOptions = { knownCapabilities: REVISION_CAPS, architecture: "amd64" };
const MANIFEST_EXT = /\.(yaml|yml|json)$/;

// Counts and hashes computed by the Go CVO at the spec's revision (payload.LoadUpdate with profile
// self-managed-high-availability, empty exclude, no tech preview) for release image ORACLE_IMAGE.
const REAL: { name: string; dir: string; version: string; caps: readonly string[]; count: number; total: number; hash: string }[] = [
  { name: "real-a, revision capabilities", dir: REAL_A, version: "4.16.0", caps: REVISION_CAPS, count: 213, total: 300, hash: "AeLavC0TYPk=" },
  { name: "real-b, revision capabilities", dir: REAL_B, version: "4.16.1", caps: REVISION_CAPS, count: 214, total: 301, hash: "E1VnKadTc0E=" },
  { name: "real-a, 4.16 capabilities", dir: REAL_A, version: "4.16.0", caps: CAPS_4_16, count: 284, total: 300, hash: "zJt-UGg-WB0=" },
  { name: "real-b, 4.16 capabilities", dir: REAL_B, version: "4.16.1", caps: CAPS_4_16, count: 285, total: 301, hash: "0qBoaQYhbsk=" },
];

/** First load of each REAL case, reused by the stability check below. */
const firstLoads = new Map<string, Promise<PayloadUpdate>>();

for (const tc of REAL) {
  test(`loads ${tc.name} like the Go CVO`, async () => {
    const reasons: string[] = [];
    const load = loadUpdate(tc.dir, ORACLE_IMAGE, { ...OPTS, knownCapabilities: tc.caps, onExcluded: (_m, r) => reasons.push(r) });
    firstLoads.set(tc.name, load);
    const u = await load;
    assert.equal(u.release.version, tc.version);
    assert.equal(u.release.image, ORACLE_IMAGE);
    assert.equal(u.release.url, "https://access.redhat.com/errata/RHSA-placeholder");
    assert.deepEqual(u.release.channels, ["candidate-4.16", "fast-4.16", "stable-4.16"]);
    assert.equal(u.architecture, "amd64");
    assert.equal(u.manifests.length, tc.count);
    assert.equal(u.manifests.length + reasons.length, tc.total);
    assert.equal(u.manifestHash, tc.hash);
    assert.equal(u.verifiedImage, false);
    assert.equal(u.imageRef?.metadata?.name, tc.version);
    assert.ok(u.manifests.every((m) => MANIFEST_EXT.test(m.originalFilename)));
    // manifests/ first (CVO's own, rendered), then release-manifests/, each in file-name order.
    assert.equal(u.manifests[0]?.originalFilename, "0000_00_cluster-version-operator_00_namespace.yaml");
    const deployment = u.manifests.find((m) => m.obj.kind === "Deployment" && m.obj.metadata?.name === "cluster-version-operator");
    assert.match(deployment?.raw ?? "", /"image":"quay.io\/test\/release@sha256:abc"/);
    // Every exclusion is reported with its reason: 16 by profile, the rest by unknown capabilities.
    assert.equal(reasons.filter((r) => r === "include.release.openshift.io/self-managed-high-availability unset").length, 12);
    assert.equal(reasons.filter((r) => r.startsWith("unrecognized value include.release.openshift.io/")).length, 4);
    assert.equal(reasons.filter((r) => r.startsWith("unrecognized capability names: ")).length, tc.total - tc.count - 16);
  });
}

test("the hash is stable across loads and depends on the release image", async () => {
  const first = await (firstLoads.get(REAL[0]?.name ?? "") ?? loadUpdate(REAL_A, ORACLE_IMAGE, OPTS));
  const again = await loadUpdate(REAL_A, ORACLE_IMAGE, OPTS);
  assert.equal(again.manifestHash, first.manifestHash);
  assert.deepEqual(again.manifests.map((m) => m.raw), first.manifests.map((m) => m.raw));
  const other = await loadUpdate(REAL_A, "quay.io/other@sha256:def", OPTS);
  assert.notEqual(other.manifestHash, first.manifestHash);
});

test("payloadtest: files without a manifest extension and excluded manifests are skipped", async () => {
  const { dir, cleanup } = await tempPayload({ ...PAYLOADTEST, "release-manifests/notes.txt": testObject("txt"), "release-manifests/sub/0000_a.yaml": testObject("sub") });
  try {
    const excluded: string[] = [];
    const u = await loadUpdate(dir, "image/image:1", { ...OPTS, exclude: "exclude-test", onExcluded: (m, r) => excluded.push(`${m.originalFilename}: ${r}`) });
    assert.deepEqual(u.manifests.map((m) => m.obj.metadata?.name), ["file-json", "file-yaml", "file-yml"]);
    assert.deepEqual(excluded, ["0000_20_a_exclude.yml: exclude.release.openshift.io/exclude-test=true"]);
    assert.equal(u.manifestHash, "DL-FFQ2Uem8=");
    assert.deepEqual(u.release, { version: "1.0.0-abc", image: "image/image:1", url: "https://example.com/v1.0.0-abc", channels: ["channel-a", "channel-b", "channel-c"] });
  } finally {
    await cleanup();
  }
});

test("manifests/ is templated and release-manifests/ is not", async () => {
  const tmpl = (name: string) => testObject(name, "data:\n  image: {{ .ReleaseImage }}\n  profile: '{{ .ClusterProfile }}'\n");
  const { dir, cleanup } = await tempPayload({ ...SKELETON, "manifests/a.yaml": tmpl("cvo"), "release-manifests/b.yaml": tmpl("other").replace(": {{", ": x{{") });
  try {
    const u = await loadUpdate(dir, "quay.io/x@sha256:1", { ...OPTS, clusterProfile: "single-node-developer" });
    assert.equal(u.manifests.length, 0, "profile single-node-developer excludes both");
    const v = await loadUpdate(dir, "quay.io/x@sha256:1", OPTS);
    assert.deepEqual(v.manifests.map((m) => m.obj["data"]), [
      { image: "quay.io/x@sha256:1", profile: "self-managed-high-availability" },
      { image: "x{{ .ReleaseImage }}", profile: "{{ .ClusterProfile }}" },
    ]);
  } finally {
    await cleanup();
  }
});

test("malformed files: every file's error is collected into one UpdatePayloadIntegrity naming file and line", async () => {
  const { dir, cleanup } = await tempPayload({
    ...SKELETON,
    "manifests/0000_a.yaml": "kind: Foo\nmetadata:\n  name: {{ printf \"x\" }}\n",
    "release-manifests/0000_b.yaml": testObject("ok"),
    "release-manifests/0000_c.yaml": "apiVersion: v1\nkind: Foo\nmetadata:\n  name: x\n   bad: [\n",
    "release-manifests/0000_d.json": '{"kind": "Foo",\n "metadata": }',
  });
  try {
    await assert.rejects(loadUpdate(dir, "img", OPTS), (err: unknown) => {
      assert.ok(err instanceof UpdateError);
      assert.equal(err.reason, "UpdatePayloadIntegrity");
      const parts = [
        `preprocess 0000_a.yaml: failed to parse manifest: template: manifest:3: unsupported action {{ printf "x" }}`,
        "parse 0000_c.yaml: error parsing: error converting YAML to JSON: yaml: line 4: ",
        "parse 0000_d.json: error parsing: json: offset 30: invalid character '}' looking for beginning of value (line 2, column 14)]",
      ];
      assert.ok(err.message.startsWith(`Error loading manifests from ${dir}: [preprocess 0000_a.yaml: `), err.message);
      for (const p of parts) assert.ok(err.message.includes(p), `${p}\nin\n${err.message}`);
      return true;
    });
  } finally {
    await cleanup();
  }
});

test("a single malformed file gives an unbracketed message; identical messages collapse", async () => {
  const { dir, cleanup } = await tempPayload({ ...SKELETON, "release-manifests/0000_c.yaml": "a: [\n" });
  try {
    await assert.rejects(loadUpdate(dir, "img", OPTS), {
      reason: "UpdatePayloadIntegrity",
      message: new RegExp(`^Error loading manifests from ${dir}: parse 0000_c\\.yaml: error parsing: error converting YAML to JSON: yaml: line \\d+: `),
    });
  } finally {
    await cleanup();
  }
  const fs: PayloadFs = {
    ...memoryFs({ ...SKELETON, "release-manifests/a.yaml": "", "release-manifests/b.yaml": "" }),
    readFile: async (p) => (p.endsWith(".yaml") ? Promise.reject(new Error("EIO: i/o error")) : memoryFs(SKELETON).readFile(p)),
  };
  await assert.rejects(loadUpdate("/p", "img", OPTS, fs), { message: "Error loading manifests from /p: EIO: i/o error" });
});

test("missing directory: the first stat failure, Go-worded, as a not-exist error", async () => {
  await assert.rejects(loadUpdate("/nonexistent-payload", "img", OPTS), (err: unknown) => {
    assert.ok(!(err instanceof UpdateError));
    assert.equal((err as Error).message, "stat /nonexistent-payload/manifests: no such file or directory");
    assert.ok(isNotExist(err));
    return true;
  });
});

const MISSING: [name: string, remove: string, missing: string][] = [
  ["manifests/", "manifests/.gitkeep", "manifests"],
  ["release-metadata", "release-manifests/release-metadata", "release-manifests/release-metadata"],
  ["image-references", "release-manifests/image-references", "release-manifests/image-references"],
];
for (const [name, remove, missing] of MISSING) {
  test(`missing ${name} fails validation`, async () => {
    const files: Record<string, string> = { ...SKELETON, "release-manifests/x.yaml": "" };
    delete files[remove];
    const { dir, cleanup } = await tempPayload(files);
    try {
      await assert.rejects(validateDirectory(dir), { message: `stat ${join(dir, missing)}: no such file or directory` });
      await assert.rejects(loadUpdate(dir, "img", OPTS), { message: `stat ${join(dir, missing)}: no such file or directory` });
    } finally {
      await cleanup();
    }
  });
}

test("metadata errors abort the load as plain errors", async () => {
  const { dir, cleanup } = await tempPayload({ ...SKELETON, "release-manifests/release-metadata": '{"kind": "cincinnati-metadata-v0", "version": "4.11"}' });
  try {
    await assert.rejects(loadUpdate(dir, "img", OPTS), (err: unknown) => {
      assert.ok(!(err instanceof UpdateError));
      assert.equal((err as Error).message, 'Cincinnati metadata version "4.11" is not a valid semantic version: No Major.Minor.Patch elements found');
      return true;
    });
  } finally {
    await cleanup();
  }
});

test("an empty manifests/ directory and a subdirectory are fine", async () => {
  const { dir, cleanup } = await tempPayload({ ...SKELETON, "release-manifests/0000_a.yml": testObject("a") });
  try {
    await mkdir(join(dir, "release-manifests", "nested.yaml"));
    await writeFile(join(dir, "release-manifests", "nested.yaml", "x.yaml"), testObject("nested"));
    const u = await loadUpdate(dir, "img", OPTS);
    assert.deepEqual(u.manifests.map((m) => m.obj.metadata?.name), ["a"]);
  } finally {
    await cleanup();
  }
});

test("an aborted signal stops the load", async () => {
  const ac = new AbortController();
  ac.abort(new Error("superseded"));
  await assert.rejects(loadUpdate(REAL_A, "img", { ...OPTS, signal: ac.signal }), { message: "superseded" });
});

test("loads through an in-memory PayloadFs in byte order of file names", async () => {
  const fs = memoryFs({ ...SKELETON, "release-manifests/b.yaml": testObject("b"), "release-manifests/B.yaml": testObject("B"), "release-manifests/a.json": testObject("a") });
  const u = await loadUpdate("/p", "img", OPTS, fs);
  assert.deepEqual(u.manifests.map((m) => m.originalFilename), ["B.yaml", "a.json", "b.yaml"]);
});

test("goArch maps Node's names to GOARCH", () => {
  assert.deepEqual(["x64", "arm64", "ppc64", "s390x", "ia32"].map(goArch), ["amd64", "arm64", "ppc64le", "s390x", "386"]);
});

test("nodePayloadFs lists directories as non-files", async () => {
  const { dir, cleanup } = await tempPayload({ "d/f.yaml": "" });
  try {
    assert.deepEqual(await nodePayloadFs.readdir(dir), [{ name: "d", isFile: false }]);
    assert.deepEqual(await nodePayloadFs.stat(join(dir, "d")), { isDirectory: true });
  } finally {
    await cleanup();
  }
});

/** A PayloadFs over a map of paths relative to /p (directories implied). */
function memoryFs(files: Record<string, string>): PayloadFs {
  const abs = new Map(Object.entries(files).map(([k, v]) => [join("/p", k), v]));
  const isDir = (p: string) => [...abs.keys()].some((k) => k.startsWith(`${p}/`));
  const enoent = (p: string) => Object.assign(new Error(`ENOENT: no such file or directory, '${p}'`), { code: "ENOENT" });
  return {
    async readdir(dir) {
      const names = new Set([...abs.keys()].filter((k) => k.startsWith(`${dir}/`)).map((k) => k.slice(dir.length + 1).split("/")[0] ?? ""));
      return [...names].reverse().map((name) => ({ name, isFile: !isDir(join(dir, name)) }));
    },
    async readFile(p) {
      const v = abs.get(p);
      if (v === undefined) throw enoent(p);
      return v;
    },
    async stat(p) {
      if (abs.has(p)) return { isDirectory: false };
      if (isDir(p)) return { isDirectory: true };
      throw enoent(p);
    },
  };
}
