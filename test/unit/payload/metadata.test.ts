import { test } from "node:test";
import assert from "node:assert/strict";
import { parseImageReferences, parseReleaseMetadata, semverError } from "../../../src/payload/metadata.js";

const md = (fields: string): string => `{"kind": "cincinnati-metadata-v0", "version": "1.0.0-abc"${fields}}`;
const V = "1.0.0-abc";

// Every expected message below was produced by the Go CVO at the spec's revision (payload.LoadUpdate).
const ERRORS: { name: string; text: string; message: string }[] = [
  {
    name: "syntax error",
    text: '{"kind": "cincinnati-metadata-v0", "version": "1.0.0"} x',
    message: "unmarshal Cincinnati metadata: invalid character 'x' after top-level value",
  },
  { name: "truncated", text: '{"kind": ', message: "unmarshal Cincinnati metadata: unexpected end of JSON input" },
  { name: "empty file", text: "", message: "unmarshal Cincinnati metadata: unexpected end of JSON input" },
  { name: "not an object", text: "[]", message: "unmarshal Cincinnati metadata: json: cannot unmarshal array into Go value of type payload.metadata" },
  {
    name: "kind not a string",
    text: '{"kind": 5, "version": "1.0.0"}',
    message: "unmarshal Cincinnati metadata: json: cannot unmarshal number into Go struct field metadata.kind of type string",
  },
  {
    name: "previous not strings",
    text: md(', "previous": [1]'),
    message: "unmarshal Cincinnati metadata: json: cannot unmarshal number into Go struct field metadata.previous of type string",
  },
  {
    name: "wrong kind",
    text: '{"kind": "cincinnati-metadata-v1", "version": "1.0.0-abc"}',
    message: 'unrecognized Cincinnati metadata kind "cincinnati-metadata-v1"',
  },
  { name: "null document", text: "null", message: 'unrecognized Cincinnati metadata kind ""' },
  { name: "missing version", text: '{"kind": "cincinnati-metadata-v0"}', message: "missing required Cincinnati metadata version" },
  {
    name: "two-part version",
    text: '{"kind": "cincinnati-metadata-v0", "version": "4.11"}',
    message: 'Cincinnati metadata version "4.11" is not a valid semantic version: No Major.Minor.Patch elements found',
  },
  {
    name: "leading zero",
    text: '{"kind": "cincinnati-metadata-v0", "version": "4.11.01"}',
    message: 'Cincinnati metadata version "4.11.01" is not a valid semantic version: Patch number must not contain leading zeroes "01"',
  },
  {
    name: "empty prerelease part",
    text: '{"kind": "cincinnati-metadata-v0", "version": "4.11.0-rc..1"}',
    message: 'Cincinnati metadata version "4.11.0-rc..1" is not a valid semantic version: Prerelease is empty',
  },
  {
    name: "empty minor",
    text: '{"kind": "cincinnati-metadata-v0", "version": "4..1"}',
    message: 'Cincinnati metadata version "4..1" is not a valid semantic version: strconv.ParseUint: parsing "": invalid syntax',
  },
  {
    name: "empty build",
    text: '{"kind": "cincinnati-metadata-v0", "version": "1.0.0+"}',
    message: 'Cincinnati metadata version "1.0.0+" is not a valid semantic version: Build meta data is empty',
  },
];

for (const tc of ERRORS) {
  test(`parseReleaseMetadata rejects: ${tc.name}`, () => {
    assert.throws(() => parseReleaseMetadata(tc.text, "amd64"), { message: tc.message });
  });
}

test("parseReleaseMetadata: url, sorted channels, process architecture", () => {
  const m = parseReleaseMetadata(md(', "metadata": {"url": "u", "io.openshift.upgrades.graph.release.channels": "b,a,B"}'), "arm64");
  assert.deepEqual(m, { version: V, url: "u", channels: ["B", "a", "b"], architecture: "arm64", warnings: [] });
});

// Upstream's cincinnati.ParseMetadata: only "multi" names the architecture (reported as openshift/api's "Multi");
// any other value is a warning, and the process's own architecture stands.
const ARCHITECTURES: { name: string; value?: string; architecture: string; warning?: string }[] = [
  { name: "absent: the process's architecture", architecture: "arm64" },
  { name: "multi: reported as Multi", value: '"multi"', architecture: "Multi" },
  {
    name: "a single architecture is not a valid value",
    value: '"amd64"',
    architecture: "arm64",
    warning: `unrecognized release.openshift.io/architecture value "amd64"`,
  },
  {
    name: "Multi spelled as reported is not a valid value",
    value: '"Multi"',
    architecture: "arm64",
    warning: `unrecognized release.openshift.io/architecture value "Multi"`,
  },
  { name: "a number", value: "5", architecture: "arm64", warning: "release.openshift.io/architecture is not a string: 5" },
  { name: "a structure", value: '["a", {"b": 1.5}]', architecture: "arm64", warning: "release.openshift.io/architecture is not a string: [a map[b:1.5]]" },
  { name: "null", value: "null", architecture: "arm64", warning: "release.openshift.io/architecture is not a string: <nil>" },
];
for (const tc of ARCHITECTURES) {
  test(`parseReleaseMetadata architecture: ${tc.name}`, () => {
    const m = parseReleaseMetadata(md(tc.value === undefined ? "" : `, "metadata": {"release.openshift.io/architecture": ${tc.value}}`), "arm64");
    assert.equal(m.architecture, tc.architecture);
    assert.deepEqual(m.warnings, tc.warning === undefined ? [] : [`Architecture from release-metadata (${V}) ignored: ${tc.warning}`]);
  });
}

test("parseReleaseMetadata: multi architecture; non-string url and channels are ignored with a warning", () => {
  const m = parseReleaseMetadata(
    md(', "metadata": {"release.openshift.io/architecture": "multi", "url": 5, "io.openshift.upgrades.graph.release.channels": ["a"]}'),
    "amd64",
  );
  assert.equal(m.architecture, "Multi");
  assert.equal(m.url, "");
  assert.deepEqual(m.channels, []);
  assert.deepEqual(m.warnings, [
    "URL from release-metadata (1.0.0-abc) is not a string: 5",
    "channel list from release-metadata (1.0.0-abc) is not a string: [a]",
  ]);
});

test("parseReleaseMetadata: field names match case-insensitively, like Go's encoding/json", () => {
  assert.equal(parseReleaseMetadata('{"KIND": "cincinnati-metadata-v0", "Version": "1.0.0-abc"}', "amd64").version, V);
});

const SEMVER: [version: string, error: string | undefined][] = [
  ["1.0.0-abc", undefined],
  ["4.16.0", undefined],
  ["1.2.3-rc.1+build.5-x", undefined],
  ["0.0.0", undefined],
  ["4.11", "No Major.Minor.Patch elements found"],
  ["", "Version string empty"],
  ["v1.0.0", 'Invalid character(s) found in major number "v1"'],
  ["01.0.0", 'Major number must not contain leading zeroes "01"'],
  ["1.x.0", 'Invalid character(s) found in minor number "x"'],
  ["1.0.0-01", 'Numeric PreRelease version must not contain leading zeroes "01"'],
  ["1.0.0-a_b", 'Invalid character(s) found in prerelease "a_b"'],
  ["1.0.0+a_b", 'Invalid character(s) found in build meta data "a_b"'],
  ["1.0.99999999999999999999", 'strconv.ParseUint: parsing "99999999999999999999": value out of range'],
];
for (const [version, error] of SEMVER) {
  test(`semverError(${JSON.stringify(version)})`, () => {
    assert.equal(semverError(version), error);
  });
}

const IMAGE_STREAM = "kind: ImageStream\napiVersion: image.openshift.io/v1\nmetadata:\n  name: 1.0.0-abc\n";

test("parseImageReferences accepts YAML and JSON ImageStreams named like the version", () => {
  assert.equal(parseImageReferences(IMAGE_STREAM, V).kind, "ImageStream");
  const json = '{"kind": "ImageStream", "apiVersion": "image.openshift.io/v1", "metadata": {"name": "1.0.0-abc", "creationTimestamp": "2024-06-20T00:00:00Z"}}';
  assert.equal(parseImageReferences(json, V).metadata?.["creationTimestamp"], "2024-06-20T00:00:00Z");
});

const IMAGE_ERRORS: { name: string; text: string; message: string | RegExp }[] = [
  {
    name: "name differs from version",
    text: IMAGE_STREAM.replace("1.0.0-abc", "1.0.0"),
    message: "Version from image-references (1.0.0) differs from release-metadata (1.0.0-abc)",
  },
  {
    name: "another kind",
    text: "kind: ConfigMap\napiVersion: v1\nmetadata:\n  name: 1.0.0-abc\n",
    message: "image-references is a ConfigMap (v1), not a v1 ImageStream",
  },
  { name: "kind missing", text: "apiVersion: v1\nmetadata:\n  name: 1.0.0-abc\n", message: "unmarshal image-references: Object 'Kind' is missing" },
  { name: "YAML syntax", text: "kind: ImageStream\nmetadata:\n  name: [\n", message: /^unmarshal image-references: yaml: line \d+: / },
  { name: "empty", text: "", message: /^unmarshal image-references: / },
];
for (const tc of IMAGE_ERRORS) {
  test(`parseImageReferences rejects: ${tc.name}`, () => {
    assert.throws(() => parseImageReferences(tc.text, V), { message: tc.message });
  });
}
