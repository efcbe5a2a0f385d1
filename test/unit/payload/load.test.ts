import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdir, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { PayloadError } from "../../../src/payload/errors.js";
import { goArch, loadUpdate, validateDirectory, verifyPayloadVersion, type LoadOptions, type PayloadFs } from "../../../src/payload/load.js";
import { isNotExist, nodePayloadFs } from "../../../src/retrieval/node-fs.js";
import { UpdateError } from "../../../src/core/index.js";
import { memoryFs, METADATA_1_0_0_ABC, PAYLOADTEST, REVISION_CAPS, SKELETON, tempPayload, testObject } from "./helpers.js";
import { tempRelease } from "../../harness/payload-gen.js";

const OPTS: LoadOptions = { knownCapabilities: REVISION_CAPS, architecture: "amd64" };

test("payloadtest: files without a manifest extension and excluded manifests are skipped", async () => {
  const { dir, cleanup } = await tempPayload({
    ...PAYLOADTEST,
    "release-manifests/notes.txt": testObject("txt"),
    "release-manifests/sub/0000_a.yaml": testObject("sub"),
  });
  try {
    const excluded: string[] = [];
    const u = await loadUpdate(
      dir,
      "image/image:1",
      { ...OPTS, exclude: "exclude-test", onExcluded: (m, r) => excluded.push(`${m.originalFilename}: ${r}`) },
      nodePayloadFs,
    );
    assert.deepEqual(
      u.manifests.map((m) => m.obj.metadata?.name),
      ["file-json", "file-yaml", "file-yml"],
    );
    assert.deepEqual(excluded, ["0000_20_a_exclude.yml: exclude.release.openshift.io/exclude-test=true"]);
    assert.equal(u.manifestHash, "DL-FFQ2Uem8=");
    assert.deepEqual(u.release, {
      version: "1.0.0-abc",
      image: "image/image:1",
      url: "https://example.com/v1.0.0-abc",
      channels: ["channel-a", "channel-b", "channel-c"],
    });
  } finally {
    await cleanup();
  }
});

// Upstream's payloadtestarch: the same payload marked multi-architecture in its release-metadata.
test("payloadtestarch: a payload whose release-metadata says multi loads as architecture Multi", async () => {
  const metadata = METADATA_1_0_0_ABC.replace('"metadata": {', '"metadata": {\n    "release.openshift.io/architecture": "multi",');
  const fs = memoryFs({ ...PAYLOADTEST, "release-manifests/release-metadata": metadata });
  const multi = await loadUpdate("/p", "image:1", { ...OPTS, exclude: "exclude-test" }, fs);
  assert.equal(multi.architecture, "Multi");
  const single = await loadUpdate("/p", "image:1", { ...OPTS, exclude: "exclude-test" }, memoryFs(PAYLOADTEST));
  assert.equal(single.architecture, "amd64", "without the key: the process's architecture");
  assert.deepEqual([multi.manifestHash, multi.release], [single.manifestHash, single.release]);
  const warnings: string[] = [];
  const fs2 = memoryFs({ ...PAYLOADTEST, "release-manifests/release-metadata": metadata.replace('"multi"', '"s390x"') });
  const other = await loadUpdate("/p", "image:1", { ...OPTS, onWarning: (w) => warnings.push(w) }, fs2);
  assert.equal(other.architecture, "amd64");
  assert.deepEqual(warnings, ['Architecture from release-metadata (1.0.0-abc) ignored: unrecognized release.openshift.io/architecture value "s390x"']);
});

test("manifests/ is templated and release-manifests/ is not", async () => {
  const tmpl = (name: string) => testObject(name, "data:\n  image: {{ .ReleaseImage }}\n  profile: '{{ .ClusterProfile }}'\n");
  const { dir, cleanup } = await tempPayload({
    ...SKELETON,
    "manifests/a.yaml": tmpl("cvo"),
    "release-manifests/b.yaml": tmpl("other").replace(": {{", ": x{{"),
  });
  try {
    const u = await loadUpdate(dir, "quay.io/x@sha256:1", { ...OPTS, clusterProfile: "single-node-developer" }, nodePayloadFs);
    assert.equal(u.manifests.length, 0, "profile single-node-developer excludes both");
    const v = await loadUpdate(dir, "quay.io/x@sha256:1", OPTS, nodePayloadFs);
    assert.deepEqual(
      v.manifests.map((m) => m.obj["data"]),
      [
        { image: "quay.io/x@sha256:1", profile: "self-managed-high-availability" },
        { image: "x{{ .ReleaseImage }}", profile: "{{ .ClusterProfile }}" },
      ],
    );
  } finally {
    await cleanup();
  }
});

test("malformed files: every file's error is collected into one UpdatePayloadIntegrity naming file and line", async () => {
  const { dir, cleanup } = await tempPayload({
    ...SKELETON,
    "release-manifests/0000_b.yaml": testObject("ok"),
    "release-manifests/0000_c.yaml": "apiVersion: v1\nkind: Foo\nmetadata:\n  name: x\n   bad: [\n",
    "release-manifests/0000_d.json": '{"kind": "Foo",\n "metadata": }',
  });
  try {
    await assert.rejects(loadUpdate(dir, "img", OPTS, nodePayloadFs), (err: unknown) => {
      assert.ok(err instanceof UpdateError);
      assert.equal(err.reason, "UpdatePayloadIntegrity");
      const parts = [
        "parse 0000_c.yaml: error parsing: error converting YAML to JSON: yaml: line 4: ",
        "parse 0000_d.json: error parsing: json: offset 30: invalid character '}' looking for beginning of value (document 1, line 2, column 14)]",
      ];
      assert.ok(err.message.startsWith(`Error loading manifests from ${dir}: [parse 0000_c.yaml: `), err.message);
      for (const p of parts) assert.ok(err.message.includes(p), `${p}\nin\n${err.message}`);
      // The same failures, structured: file relative to the payload, document and line.
      assert.ok(err instanceof PayloadError);
      assert.equal(err.kind, "Manifests");
      assert.equal(err.step, "LoadPayload");
      assert.deepEqual(
        err.problems.map((p) => [p.file, p.document, p.line]),
        [
          ["release-manifests/0000_c.yaml", 1, 4],
          ["release-manifests/0000_d.json", 1, 2],
        ],
      );
      assert.deepEqual([err.file, err.document, err.line], ["release-manifests/0000_c.yaml", 1, 4]);
      return true;
    });
  } finally {
    await cleanup();
  }
});

// Upstream's payload-unknown-template case: an older CVO loading a newer payload skips what it cannot render.
const TEMPLATE_FAILURES: [name: string, template: string, warning: string][] = [
  [
    "an unknown field",
    "{{ .FutureField }}",
    'failed to execute template: template: manifest:8:13: executing "manifest" at <.FutureField>: can\'t evaluate field FutureField',
  ],
  [
    "an unknown field through index",
    '{{index .FutureField "some-key"}}',
    'failed to execute template: template: manifest:8:18: executing "manifest" at <.FutureField>: can\'t evaluate field FutureField',
  ],
  [
    "an unsupported action",
    '{{printf "%s" .ReleaseImage}}',
    'failed to parse manifest: template: manifest:8: unsupported action {{printf "%s" .ReleaseImage}}',
  ],
];
for (const [name, template, warning] of TEMPLATE_FAILURES) {
  test(`a manifests/ file whose template uses ${name} is skipped with a warning naming it; the rest loads`, async () => {
    const fs = memoryFs({
      ...SKELETON,
      "manifests/0000_00_valid.yaml": testObject("valid-manifest", "data:\n  release-image: '{{.ReleaseImage}}'\n"),
      "manifests/0000_50_unknown-field.yaml": testObject("future-manifest", `data:\n  image: '${template}'\n`),
    });
    const warnings: string[] = [];
    const u = await loadUpdate("/p", "image:test", { ...OPTS, onWarning: (w) => warnings.push(w) }, fs);
    assert.deepEqual(
      u.manifests.map((m) => m.originalFilename),
      ["0000_00_valid.yaml"],
    );
    assert.equal(warnings.length, 1);
    const prefix = "Skipping manifest manifests/0000_50_unknown-field.yaml: template rendering failed (may require newer CVO): ";
    assert.ok(warnings[0]?.startsWith(prefix + warning), warnings[0]);
  });
}

test("manifests/ templates read the release's images by image-references tag, as upstream's .Images", async () => {
  const imageReferences = [
    "kind: ImageStream",
    "apiVersion: image.openshift.io/v1",
    "metadata:",
    "  name: 1.0.0-abc",
    "spec:",
    "  tags:",
    "  - name: cluster-version-operator",
    "    from:",
    "      kind: DockerImage",
    "      name: quay.io/openshift/cvo@sha256:0123",
    "  - name: not-an-image",
    "    from:",
    "      kind: ImageStreamTag",
    "      name: other:latest",
    "",
  ].join("\n");
  const fs = memoryFs({
    ...SKELETON,
    "release-manifests/image-references": imageReferences,
    "manifests/0000_00_images.yaml": testObject(
      "images",
      "data:\n  cvo: '{{ index .Images \"cluster-version-operator\" }}'\n  tag: '{{index .Images \"not-an-image\"}}'\n",
    ),
  });
  const u = await loadUpdate("/p", "image:test", OPTS, fs);
  const data = u.manifests.find((m) => m.obj.metadata?.["name"] === "images")?.obj["data"];
  assert.deepEqual(data, { cvo: "quay.io/openshift/cvo@sha256:0123", tag: "" }, "a missing key is the empty string, as Go's index of a map");
});

test("a single malformed file gives an unbracketed message; identical messages collapse", async () => {
  const { dir, cleanup } = await tempPayload({ ...SKELETON, "release-manifests/0000_c.yaml": "a: [\n" });
  try {
    await assert.rejects(loadUpdate(dir, "img", OPTS, nodePayloadFs), {
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
  await assert.rejects(loadUpdate("/nonexistent-payload", "img", OPTS, nodePayloadFs), (err: unknown) => {
    assert.ok(err instanceof PayloadError);
    assert.equal(err.reason, "UpdatePayloadIncomplete", "a plain error upstream, with a reason of its own here");
    assert.deepEqual([err.kind, err.step, err.file], ["MissingFile", "LoadPayload", "manifests"]);
    assert.equal(err.message, "stat /nonexistent-payload/manifests: no such file or directory");
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
      await assert.rejects(validateDirectory(dir, nodePayloadFs), { message: `stat ${join(dir, missing)}: no such file or directory` });
      await assert.rejects(loadUpdate(dir, "img", OPTS, nodePayloadFs), { message: `stat ${join(dir, missing)}: no such file or directory` });
    } finally {
      await cleanup();
    }
  });
}

test("metadata errors abort the load with upstream's message after the file's name", async () => {
  const { dir, cleanup } = await tempPayload({ ...SKELETON, "release-manifests/release-metadata": '{"kind": "cincinnati-metadata-v0", "version": "4.11"}' });
  try {
    await assert.rejects(loadUpdate(dir, "img", OPTS, nodePayloadFs), (err: unknown) => {
      assert.ok(err instanceof PayloadError);
      assert.deepEqual(
        [err.kind, err.step, err.reason, err.file],
        ["ReleaseMetadata", "LoadPayload", "ReleaseMetadataInvalid", "release-manifests/release-metadata"],
      );
      assert.equal(
        err.message,
        'release-manifests/release-metadata: Cincinnati metadata version "4.11" is not a valid semantic version: No Major.Minor.Patch elements found',
      );
      return true;
    });
  } finally {
    await cleanup();
  }
});

test("metadata syntax errors name the line", async () => {
  const { dir, cleanup } = await tempPayload({ ...SKELETON, "release-manifests/release-metadata": '{\n  "kind": "cincinnati-metadata-v0",\n  "version": }\n' });
  try {
    await assert.rejects(loadUpdate(dir, "img", OPTS, nodePayloadFs), {
      kind: "ReleaseMetadata",
      line: 3,
      message: "release-manifests/release-metadata:3: unmarshal Cincinnati metadata: invalid character '}' looking for beginning of value",
    });
  } finally {
    await cleanup();
  }
});

test("image-references errors name the file", async () => {
  const { dir, cleanup } = await tempPayload({
    ...SKELETON,
    "release-manifests/image-references": "kind: ImageStream\napiVersion: image.openshift.io/v1\nmetadata:\n  name: 9.9.9\n",
  });
  try {
    await assert.rejects(loadUpdate(dir, "img", OPTS, nodePayloadFs), {
      kind: "ImageReferences",
      file: "release-manifests/image-references",
      message: "release-manifests/image-references: Version from image-references (9.9.9) differs from release-metadata (1.0.0-abc)",
    });
  } finally {
    await cleanup();
  }
});

test("VerifyPayloadVersion: an empty request adopts the payload's version; a different one fails that step", () => {
  const update = { release: { version: "4.16.0", image: "i", url: "", channels: [] } };
  assert.equal(verifyPayloadVersion(update, ""), "4.16.0");
  assert.equal(verifyPayloadVersion(update, "4.16.0"), "4.16.0");
  assert.throws(
    () => verifyPayloadVersion(update, "4.16.1"),
    (err: unknown) => {
      assert.ok(err instanceof PayloadError);
      assert.deepEqual([err.kind, err.step, err.reason], ["VersionMismatch", "VerifyPayloadVersion", ""]);
      assert.equal(err.message, "release image version 4.16.0 does not match the expected upstream version 4.16.1");
      return true;
    },
  );
});

test("an empty manifests/ directory and a subdirectory are fine", async () => {
  const { dir, cleanup } = await tempPayload({ ...SKELETON, "release-manifests/0000_a.yml": testObject("a") });
  try {
    await mkdir(join(dir, "release-manifests", "nested.yaml"));
    await writeFile(join(dir, "release-manifests", "nested.yaml", "x.yaml"), testObject("nested"));
    const u = await loadUpdate(dir, "img", OPTS, nodePayloadFs);
    assert.deepEqual(
      u.manifests.map((m) => m.obj.metadata?.name),
      ["a"],
    );
  } finally {
    await cleanup();
  }
});

test("an aborted signal stops the load", async () => {
  const ac = new AbortController();
  ac.abort(new Error("superseded"));
  await assert.rejects(loadUpdate(await tempRelease(), "img", { ...OPTS, signal: ac.signal }, nodePayloadFs), { message: "superseded" });
});

test("loads through an in-memory PayloadFs in byte order of file names", async () => {
  const fs = memoryFs({
    ...SKELETON,
    "release-manifests/b.yaml": testObject("b"),
    "release-manifests/B.yaml": testObject("B"),
    "release-manifests/a.json": testObject("a"),
  });
  const u = await loadUpdate("/p", "img", OPTS, fs);
  assert.deepEqual(
    u.manifests.map((m) => m.originalFilename),
    ["B.yaml", "a.json", "b.yaml"],
  );
});

test("goArch maps Node's names to GOARCH", () => {
  assert.deepEqual(["x64", "arm64", "ppc64", "s390x", "ia32"].map(goArch), ["amd64", "arm64", "ppc64le", "s390x", "386"]);
});

test("nodePayloadFs lists entries with their lstat type", async () => {
  const { dir, cleanup } = await tempPayload({ "d/f.yaml": "" });
  try {
    await symlink("d/f.yaml", join(dir, "l"));
    assert.deepEqual(
      (await nodePayloadFs.readdir(dir)).sort((a, b) => a.name.localeCompare(b.name)),
      [
        { name: "d", type: "directory" },
        { name: "l", type: "symlink" },
      ],
    );
    assert.deepEqual(await nodePayloadFs.stat(join(dir, "d")), { isDirectory: true });
  } finally {
    await cleanup();
  }
});
