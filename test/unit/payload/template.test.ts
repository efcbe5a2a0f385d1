import { test } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { renderTemplate, TemplateError, unquoteGo } from "../../../src/payload/template.js";
import { REAL_PAYLOADS, skipRealPayloads } from "./helpers.js";

const FIXTURES = REAL_PAYLOADS ?? "";

const DATA = { ReleaseImage: "quay.io/r@sha256:1", ClusterProfile: "self-managed-high-availability", Images: { cli: "quay.io/cli@sha256:2", "a-b": "x" } };

// Expected outputs were produced by Go text/template (template.New("manifest").Parse(in).Execute).
const RENDER_CASES: { name: string; input: string; want: string }[] = [
  { name: "field without spaces", input: "a: {{.ReleaseImage}}\n", want: "a: quay.io/r@sha256:1\n" },
  { name: "field with spaces", input: "a: {{ .ClusterProfile }}\n", want: "a: self-managed-high-availability\n" },
  { name: "trim both sides", input: "x {{- .ReleaseImage -}} y", want: "xquay.io/r@sha256:1y" },
  { name: "left trim eats newlines and tabs", input: "x  \n\t {{- .ReleaseImage }}  \n y", want: "xquay.io/r@sha256:1  \n y" },
  { name: "right trim eats blank lines", input: "x {{ .ReleaseImage -}}  \n\n y", want: "x quay.io/r@sha256:1y" },
  { name: "Go string literal (Prometheus template escape)", input: 'q: {{ "{{ $labels.name }}" }}', want: "q: {{ $labels.name }}" },
  {
    name: 'Go string escapes: \\t \\" \\\\ \\n \\x41 \\101 \\u00e9 \\U0001F600',
    input: 'q: {{ "tab\\there \\"quoted\\" back\\\\slash \\n nl \\x41\\101\\u00e9\\U0001F600" }}',
    want: 'q: tab\there "quoted" back\\slash \n nl AAé😀',
  },
  { name: "raw string keeps backslashes and braces", input: 'q: {{ `raw {{ "x" }} \\n` }}', want: 'q: raw {{ "x" }} \\n' },
  { name: "}} inside a string literal", input: 'q: {{ "a}}b" }}', want: "q: a}}b" },
  { name: "comment", input: "a {{/* comment */}} b", want: "a  b" },
  { name: "comment with trim markers", input: "a {{- /* comment */ -}} b", want: "ab" },
  { name: "raw string across lines", input: "{{ `multi\nline` }}", want: "multi\nline" },
  { name: "newlines inside the action", input: "{{\n.ReleaseImage\n}}", want: "quay.io/r@sha256:1" },
  { name: "text without actions", input: "plain {text} } { no actions", want: "plain {text} } { no actions" },
  { name: "empty string literal", input: 'a{{""}}b', want: "ab" },
  { name: "index of a map", input: 'i: {{ index .Images "cli" }} {{index .Images `a-b`}}', want: "i: quay.io/cli@sha256:2 x" },
  { name: "index of a missing key is empty", input: 'i: "{{ index .Images "nope" }}"', want: 'i: ""' },
  { name: "a map printed", input: "{{ .Images }}", want: "map[a-b:x cli:quay.io/cli@sha256:2]" },
];

for (const tc of RENDER_CASES) {
  test(`renderTemplate: ${tc.name}`, () => {
    assert.equal(renderTemplate(tc.input, DATA), tc.want);
  });
}

const ERROR_CASES: { name: string; input: string; phase: "parse" | "execute"; line: number; message: RegExp }[] = [
  {
    name: "function call",
    input: 'a\n\n  {{ printf "x" }}',
    phase: "parse",
    line: 3,
    message: /^template: manifest:3: unsupported action \{\{ printf "x" \}\}/,
  },
  {
    name: "index of a string",
    input: '{{ index .ReleaseImage "x" }}',
    phase: "execute",
    line: 1,
    message: /at <\.ReleaseImage>: error calling index: can't index item of type string/,
  },
  { name: "index with a number", input: "{{ index .Images 1 }}", phase: "parse", line: 1, message: /unsupported action/ },
  {
    name: "unknown field",
    input: "x\n  name: {{ .Nope }}",
    phase: "execute",
    line: 2,
    message: /^template: manifest:2:11: executing "manifest" at <\.Nope>: can't evaluate field Nope/,
  },
  {
    name: "unknown field on a later line of the action",
    input: "a\n{{\n  .Nope\n}}",
    phase: "execute",
    line: 3,
    message: /^template: manifest:3:2: executing "manifest" at <\.Nope>/,
  },
  { name: "unclosed action", input: "line1\nline2 {{ .ReleaseImage", phase: "parse", line: 2, message: /^template: manifest:2: unclosed action$/ },
  { name: "unterminated string", input: '{{ "abc }}', phase: "parse", line: 1, message: /unterminated quoted string/ },
  { name: "unterminated raw string", input: "{{ `abc }}", phase: "parse", line: 1, message: /unterminated raw quoted string/ },
  { name: "invalid escape", input: '{{ "\\q" }}', phase: "parse", line: 1, message: /invalid syntax/ },
  { name: "escaped single quote is not valid in a double-quoted string", input: '{{ "\\\'" }}', phase: "parse", line: 1, message: /invalid syntax/ },
  { name: "octal escape above 255", input: '{{ "\\400" }}', phase: "parse", line: 1, message: /invalid syntax/ },
  { name: "surrogate escape", input: '{{ "\\ud800" }}', phase: "parse", line: 1, message: /invalid syntax/ },
  { name: "empty action", input: "{{ }}", phase: "parse", line: 1, message: /unsupported action \{\{ \}\}/ },
  { name: "dot", input: "{{ . }}", phase: "parse", line: 1, message: /unsupported action \{\{ \. \}\}/ },
  { name: "two literals", input: '{{ "a" "b" }}', phase: "parse", line: 1, message: /unsupported action/ },
  { name: "comment not adjacent to delimiter", input: "{{ /* c */ }}", phase: "parse", line: 1, message: /unsupported action/ },
  { name: "comment not closed before delimiter", input: "{{/* c */ x}}", phase: "parse", line: 1, message: /comment ends before closing delimiter/ },
  { name: "unclosed comment", input: "{{/* c", phase: "parse", line: 1, message: /unclosed comment/ },
  { name: "trim marker needs a space", input: "x {{-.ReleaseImage}} y", phase: "parse", line: 1, message: /unsupported action/ },
  { name: "character constant", input: "{{ 'a' }}", phase: "parse", line: 1, message: /unsupported action \{\{ 'a' \}\}/ },
  { name: "parse errors win over execute errors", input: "{{ .Nope }}\n{{ if }}", phase: "parse", line: 2, message: /unsupported action \{\{ if \}\}/ },
];

for (const tc of ERROR_CASES) {
  test(`renderTemplate rejects: ${tc.name}`, () => {
    assert.throws(
      () => renderTemplate(tc.input, DATA),
      (err: unknown) => {
        assert.ok(err instanceof TemplateError);
        assert.equal(err.phase, tc.phase);
        assert.equal(err.line, tc.line);
        assert.match(err.message, tc.message);
        return true;
      },
    );
  });
}

test("unquoteGo: byte escapes form UTF-8 together", () => {
  assert.equal(unquoteGo('"\\xc3\\xa9"'), "é");
  assert.equal(unquoteGo('"\\303\\251"'), "é");
  assert.equal(unquoteGo('"\\a\\b\\f\\v"'), "\x07\b\f\v");
  assert.equal(unquoteGo('"\\x4"'), undefined);
});

// SHA-256 of Go's rendering of every manifests/ file of the real payloads with DATA.
const GO_RENDERED: [payload: string, file: string, sha256: string][] = [
  ["real-a", "0000_00_cluster-version-operator_00_namespace.yaml", "79ac3427aecada57d2f5dd8d86b3fd53eb3462287b81e8ec6648afe70dca41f9"],
  ["real-a", "0000_00_cluster-version-operator_01_adminack_configmap.yaml", "7adf801130e1aad92ff02b1b3409c8becb60dca70d3d73556ffd059c9245bdb4"],
  ["real-a", "0000_00_cluster-version-operator_01_admingate_configmap.yaml", "e37970fdd297fd17b257d0d037643ade7681a3d3a1a065b44e651f178a43784e"],
  ["real-a", "0000_00_cluster-version-operator_01_clusteroperator.crd.yaml", "fcae02a9c20a1356ffe7d581a334edbfe6818043951123131fa52796dab3eb3c"],
  ["real-a", "0000_00_cluster-version-operator_01_clusterversion-CustomNoUpgrade.crd.yaml", "a307c22a01e030ddd2e24cf53e73bc432b6dc879fc9f938449a50242cb690af1"],
  ["real-a", "0000_00_cluster-version-operator_01_clusterversion-Default.crd.yaml", "b2ba4e10d858837a9ca552dd69e956cb989b18397ee8a4f6dbca0d62c0113f95"],
  [
    "real-a",
    "0000_00_cluster-version-operator_01_clusterversion-TechPreviewNoUpgrade.crd.yaml",
    "53614ca2bb508530d06f6e82518a836f07ef0e3cacb0b050d08a1447264929a9",
  ],
  ["real-a", "0000_00_cluster-version-operator_02_roles.yaml", "604f1a0c19b5aaa2d1a5a630642ce1321be1ef71f6d04b586ff86cb58e0df808"],
  ["real-a", "0000_00_cluster-version-operator_03_deployment.yaml", "2e550756f2a0586921b794deb3652b3ff00d1e80e6a1d4b313f63f5f749814a6"],
  ["real-a", "0000_00_cluster-version-operator_04_service.yaml", "97a4f12df8c700b5fb3c759cf38fe7c6e2892aebb0bed0eccc20b35899f0a760"],
  ["real-a", "0000_90_cluster-version-operator_00_prometheusrole.yaml", "19f94328d70b5cfeee8e67b2dc900816845689ad0e13871b7f02f32a86b553d7"],
  ["real-a", "0000_90_cluster-version-operator_01_prometheusrolebinding.yaml", "2de3748833023e7e5dc188e0ce2710314044d9920884fc4f1cef1c8256e1fe1e"],
  ["real-a", "0000_90_cluster-version-operator_02_servicemonitor.yaml", "094c8faaeee9f38aa23fdeb556a7c87f70948d64cb84ae1d60ebcf0e5172a6e1"],
  ["real-b", "0000_00_cluster-version-operator_00_namespace.yaml", "79ac3427aecada57d2f5dd8d86b3fd53eb3462287b81e8ec6648afe70dca41f9"],
  ["real-b", "0000_00_cluster-version-operator_01_adminack_configmap.yaml", "7adf801130e1aad92ff02b1b3409c8becb60dca70d3d73556ffd059c9245bdb4"],
  ["real-b", "0000_00_cluster-version-operator_01_admingate_configmap.yaml", "e37970fdd297fd17b257d0d037643ade7681a3d3a1a065b44e651f178a43784e"],
  ["real-b", "0000_00_cluster-version-operator_01_clusteroperators.crd.yaml", "34035350042556abe1360ec36371908192bed0d1fb9b4ca3bf99a5438281de9c"],
  [
    "real-b",
    "0000_00_cluster-version-operator_01_clusterversions-CustomNoUpgrade.crd.yaml",
    "5475a76dbde974b1b918f906d4da6f2f4fe4067010382dfb95ac0c783789756c",
  ],
  ["real-b", "0000_00_cluster-version-operator_01_clusterversions-Default.crd.yaml", "5f42682369ce32576aea0be842ea81cb7a63e8cb78829f8e60abf3c4d5e41254"],
  [
    "real-b",
    "0000_00_cluster-version-operator_01_clusterversions-DevPreviewNoUpgrade.crd.yaml",
    "af57ac20f6eef7a8082761028488b597c5ce7a68d215c84d7e0b69b8aa0ec556",
  ],
  [
    "real-b",
    "0000_00_cluster-version-operator_01_clusterversions-TechPreviewNoUpgrade.crd.yaml",
    "31f1e26d589cb5ad7a9f9fef40fe1e27aca68cf265209630d36267aebf87f6b0",
  ],
  ["real-b", "0000_00_cluster-version-operator_02_roles.yaml", "604f1a0c19b5aaa2d1a5a630642ce1321be1ef71f6d04b586ff86cb58e0df808"],
  ["real-b", "0000_00_cluster-version-operator_03_deployment.yaml", "2e550756f2a0586921b794deb3652b3ff00d1e80e6a1d4b313f63f5f749814a6"],
  ["real-b", "0000_00_cluster-version-operator_04_service.yaml", "97a4f12df8c700b5fb3c759cf38fe7c6e2892aebb0bed0eccc20b35899f0a760"],
  ["real-b", "0000_90_cluster-version-operator_00_prometheusrole.yaml", "19f94328d70b5cfeee8e67b2dc900816845689ad0e13871b7f02f32a86b553d7"],
  ["real-b", "0000_90_cluster-version-operator_01_prometheusrolebinding.yaml", "2de3748833023e7e5dc188e0ce2710314044d9920884fc4f1cef1c8256e1fe1e"],
  ["real-b", "0000_90_cluster-version-operator_02_servicemonitor.yaml", "094c8faaeee9f38aa23fdeb556a7c87f70948d64cb84ae1d60ebcf0e5172a6e1"],
];

test("renders every real manifests/ file exactly like Go text/template", { skip: skipRealPayloads }, async () => {
  for (const payload of ["real-a", "real-b"]) {
    const dir = join(FIXTURES, payload, "manifests");
    const files = (await readdir(dir)).sort();
    const expected = GO_RENDERED.filter(([p]) => p === payload).map(([, f]) => f);
    assert.deepEqual(files, expected, `${payload} manifests/ listing`);
  }
  for (const [payload, file, sha] of GO_RENDERED) {
    const text = await readFile(join(FIXTURES, payload, "manifests", file), "utf8");
    const got = createHash("sha256").update(renderTemplate(text, DATA)).digest("hex");
    assert.equal(got, sha, `${payload}/manifests/${file}`);
  }
});

test("servicemonitor: Prometheus templates come out unescaped", { skip: skipRealPayloads }, async () => {
  const text = await readFile(join(FIXTURES, "real-a/manifests/0000_90_cluster-version-operator_02_servicemonitor.yaml"), "utf8");
  const out = renderTemplate(text, DATA);
  assert.match(out, /description: The \{\{ \$labels\.name \}\} operator may be down or disabled because \{\{ \$labels\.reason \}\}/);
  assert.match(out, /\{\{ with \$console_url := "console_url" \| query \}\}/);
  assert.doesNotMatch(out, /\{\{ "/);
});

test("deployment: release image and cluster profile are substituted", { skip: skipRealPayloads }, async () => {
  const text = await readFile(join(FIXTURES, "real-a/manifests/0000_00_cluster-version-operator_03_deployment.yaml"), "utf8");
  const out = renderTemplate(text, DATA);
  assert.match(out, /image: quay\.io\/r@sha256:1\n/);
  assert.match(out, /- "--release-image=quay\.io\/r@sha256:1"/);
  assert.match(out, /value: self-managed-high-availability\n/);
});
