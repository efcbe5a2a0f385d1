import { test } from "node:test";
import assert from "node:assert/strict";
import { isJsonStream, ManifestParseError, parseManifests } from "../../../src/payload/parse.js";
import { decodeBudget, DEFAULT_PAYLOAD_LIMITS } from "../../../src/payload/yaml-decode.js";

// A YAML file full of YAML 1.1 / Go-decoder corner cases, and the Raw that library-go's
// manifest.ParseManifests (yaml.v2 + sigs.k8s.io/yaml + encoding/json) produced for it.
const CORNER_CASES_YAML =
  'apiVersion: v1\nkind: Test\nmetadata:\n  name: scalars\n  annotations: {a: "b"}\ndata:\n  yes1: yes\n  y1: y\n  on1: on\n  Off1: Off\n  no1: NO\n  tilde: ~\n  empty:\n  octal: 0755\n  octal2: 0o17\n  hex: 0x1F\n  bin: 0b101\n  nbin: -0b101\n  under: 1_000\n  bad8: 09\n  big: 9223372036854775808\n  bigger: 18446744073709551616\n  neg: -9223372036854775808\n  float1: 1.5\n  float2: 1e3\n  float3: .5\n  float4: 1.\n  float5: -0.0\n  float6: 1e400\n  float7: 1.0e-7\n  float8: 123456789012345678901234\n  float9: +12.5e+2\n  ts: 2001-12-14t21:59:43.10-05:00\n  date: 2024-01-01\n  ver: 4.16.0\n  colon: 1:20\n  str1: "yes"\n  str2: \'0755\'\n  tagged: !!str 123\n  tint: !!int "42"\n  tfloat: !!float 3\n  custom: !foo bar\n  html: "<a href=\'x\'>&</a>"\n  uni: "\\u2028 é 😀 \\x01 \\t"\n  dotstr: .foo\n  plus: +\n  multi: |\n    line1\n    line2\n  folded: >\n    a\n    b\n  anchors: &anc\n    k1: v1\n    k2: 2\n  merged:\n    <<: *anc\n    k2: override\n  merged2:\n    k1: first\n    <<: [*anc, {k3: c}]\n  seq: [1, "2", three, null, ~, true]\n  1: intkey\n  true: boolkey\n  1.5: floatkey\n  "zz": z\n  "Z": Z\n  "é": acc\n  nested: {deep: {deeper: [a, {b: c}]}}\n---\n---\n# only a comment\n---\napiVersion: v1\nkind: Test\nmetadata: {name: second}\n';
const GO_RAW = [
  '{"apiVersion":"v1","data":{"1":"intkey","1.5":"floatkey","Off1":false,"Z":"Z","anchors":{"k1":"v1","k2":2},"bad8":9,"big":9223372036854775808,"bigger":18446744073709552000,"bin":5,"colon":"1:20","custom":"bar","date":"2024-01-01","dotstr":".foo","empty":null,"float1":1.5,"float2":1000,"float3":0.5,"float4":1,"float5":-0,"float6":"1e400","float7":1e-7,"float8":1.2345678901234569e+23,"float9":1250,"folded":"a b\\n","hex":31,"html":"\\u003ca href=\'x\'\\u003e\\u0026\\u003c/a\\u003e","merged":{"k1":"v1","k2":"override"},"merged2":{"k1":"v1","k2":2,"k3":"c"},"multi":"line1\\nline2\\n","nbin":-5,"neg":-9223372036854775808,"nested":{"deep":{"deeper":["a",{"b":"c"}]}},"no1":false,"octal":493,"octal2":15,"on1":true,"plus":"+","seq":[1,"2","three",null,null,true],"str1":"yes","str2":"0755","tagged":"123","tfloat":3,"tilde":null,"tint":42,"true":"boolkey","ts":"2001-12-14t21:59:43.10-05:00","under":1000,"uni":"\\u2028 é 😀 \\u0001 \\t","ver":"4.16.0","y1":true,"yes1":true,"zz":"z","é":"acc"},"kind":"Test","metadata":{"annotations":{"a":"b"},"name":"scalars"}}',
  '{"apiVersion":"v1","kind":"Test","metadata":{"name":"second"}}',
];

test("YAML documents become the same compact sorted JSON as the Go CVO produces", () => {
  const ms = parseManifests(CORNER_CASES_YAML, "corner.yaml");
  assert.deepEqual(
    ms.map((m) => m.raw),
    GO_RAW,
  );
  assert.equal(ms[0]?.originalFilename, "corner.yaml");
  assert.deepEqual(ms[1]?.gvk, { group: "", version: "v1", kind: "Test" });
});

test("obj is the decoded document (numbers as JSON numbers)", () => {
  const [m] = parseManifests("apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: d\n  namespace: ns\nspec:\n  replicas: 0x3\n", "d.yaml");
  assert.equal(m?.obj.kind, "Deployment");
  assert.deepEqual(m?.obj["spec"], { replicas: 3 });
  assert.deepEqual(m?.gvk, { group: "apps", version: "v1", kind: "Deployment" });
});

test("JSON streams keep each value's bytes verbatim", () => {
  const text = '\n  {"kind": "A",  "metadata": {"name": "a"}}\n{"kind":"B","metadata":{"name":"b"}}null{"kind": "C", "metadata": {"name": "c", "x": "<&>"}}\n';
  const ms = parseManifests(text, "s.json");
  assert.deepEqual(
    ms.map((m) => m.raw),
    ['{"kind": "A",  "metadata": {"name": "a"}}', '{"kind":"B","metadata":{"name":"b"}}', '{"kind": "C", "metadata": {"name": "c", "x": "<&>"}}'],
  );
});

test("JSON vs YAML is decided by content, not extension", () => {
  assert.equal(isJsonStream(' \n\t{"a": 1}'), true);
  assert.equal(isJsonStream("[1]"), false);
  assert.equal(isJsonStream("# c\n{}"), false);
  assert.equal(parseManifests('{"kind": "A", "metadata": {"name": "a"}}', "x.yaml")[0]?.raw, '{"kind": "A", "metadata": {"name": "a"}}');
  assert.equal(parseManifests("kind: A\nmetadata: {name: a}\n", "x.json")[0]?.raw, '{"kind":"A","metadata":{"name":"a"}}');
});

test("empty and null documents are dropped", () => {
  assert.deepEqual(parseManifests("", "e.yaml"), []);
  assert.deepEqual(parseManifests("---\n---\n# comment\n---\nnull\n---\n~\n", "e.yaml"), []);
  assert.deepEqual(parseManifests("null", "e.json"), []);
});

test("the same resource in two files is not a duplicate", () => {
  const doc = "kind: A\nmetadata: {name: a}\n";
  assert.equal(parseManifests(doc, "1.yaml").length + parseManifests(doc, "2.yaml").length, 2);
});

test("same name in different namespaces or groups is not a duplicate", () => {
  const text =
    "kind: A\nmetadata: {name: a, namespace: x}\n---\nkind: A\nmetadata: {name: a, namespace: y}\n---\napiVersion: g/v1\nkind: A\nmetadata: {name: a, namespace: y}\n";
  assert.equal(parseManifests(text, "f.yaml").length, 3);
});

// Messages keep upstream's text (Go's, where shown in the comment) and name the document and line.
const ERRORS: { name: string; text: string; message: string | RegExp; line: number; document: number }[] = [
  {
    name: "YAML syntax error", // Go: yaml: line 5: mapping values are not allowed in this context
    text: "apiVersion: v1\nkind: Foo\nmetadata:\n  name: x\n   bad: [\n",
    message: /^error parsing: error converting YAML to JSON: yaml: line 4: .* \(document 1, column \d+\)$/,
    line: 4,
    document: 1,
  },
  {
    name: "YAML syntax error in a later document",
    text: "kind: A\nmetadata: {name: a}\n---\nkind: B\nmetadata:\n\tname: b\n",
    message: /^error parsing: error converting YAML to JSON: yaml: line 6: .* \(document 2, column \d+\)$/,
    line: 6,
    document: 2,
  },
  {
    name: "JSON syntax error",
    text: '{"apiVersion": "v1",\n "kind": }',
    message: "error parsing: json: offset 31: invalid character '}' looking for beginning of value (document 1, line 2, column 10)",
    line: 2,
    document: 1,
  },
  {
    name: "truncated JSON",
    text: '{"kind":"A","metadata":{"name":"a"}}\n{"kind": "B", "metadata',
    message: "error parsing: unexpected EOF (document 2, line 2, column 24)",
    line: 2,
    document: 2,
  },
  {
    name: "kind missing",
    text: "kind: A\nmetadata: {name: a}\n---\na: 1\n",
    message: "error parsing: unable to decode manifest: Object 'Kind' is missing in '{\"a\":1}' (document 2, line 4)",
    line: 4,
    document: 2,
  },
  {
    name: "name missing",
    text: '\n\nkind: Foo\nmetadata: {name: ""}\n',
    message: 'error parsing: Resource with fields Group: "" Kind: "Foo" Name: "" must contain kubernetes required fields kind and name (document 1, line 3)',
    line: 3,
    document: 1,
  },
  {
    name: "name missing, namespaced",
    text: "apiVersion: g.io/v1\nkind: K\nmetadata: {namespace: ns}\n",
    message:
      'error parsing: Resource with fields Group: "g.io" Kind: "K" Namespace: "ns" Name: "" must contain kubernetes required fields kind and name (document 1, line 1)',
    line: 1,
    document: 1,
  },
  {
    name: "duplicate within a file",
    text: "kind: Foo\nmetadata:\n  name: x\n---\nkind: Foo\nmetadata:\n  name: x\n",
    message: 'duplicate resource: (Group: "" Kind: "Foo" Name: "x") (document 2, line 5)',
    line: 5,
    document: 2,
  },
  {
    name: "bad document separator", // Go: error parsing: invalid Yaml document separator: x
    text: "kind: Foo\nmetadata: {name: a}\n--- x\n",
    message: "error parsing: invalid Yaml document separator: x (document 1, line 3)",
    line: 3,
    document: 1,
  },
  {
    name: "top-level sequence",
    text: "- a\n- b\n",
    message: /^error parsing: unable to decode manifest: couldn't get version\/kind; json parse error: cannot unmarshal array/,
    line: 1,
    document: 1,
  },
  {
    name: "kind not a string",
    text: "kind: 5\nmetadata: {name: a}\n",
    message: /^error parsing: unable to decode manifest: couldn't get version\/kind; json parse error: cannot unmarshal number into kind/,
    line: 1,
    document: 1,
  },
  {
    name: "malformed apiVersion", // Go: unable to decode manifest: unexpected GroupVersion string: a/b/c
    text: "apiVersion: a/b/c\nkind: Foo\nmetadata: {name: a}\n",
    message: "error parsing: unable to decode manifest: unexpected GroupVersion string: a/b/c (document 1, line 1)",
    line: 1,
    document: 1,
  },
  {
    name: ".inf has no JSON form",
    text: "kind: Foo\nmetadata: {name: a}\nx: .inf\n",
    message: "error parsing: error converting YAML to JSON: json: unsupported value: +Inf (document 1, line 1)",
    line: 1,
    document: 1,
  },
  {
    name: "explicit tag that does not fit",
    text: "kind: Foo\nmetadata: {name: a}\nx: !!int abc\n",
    message: "error parsing: yaml: cannot decode !!str `abc` as a !!int (document 1, line 3)",
    line: 3,
    document: 1,
  },
  {
    name: "recursive alias",
    text: "kind: Foo\nmetadata: {name: a}\nx: &a [*a]\n",
    message: /^error parsing: yaml: /,
    line: 3,
    document: 1,
  },
];

for (const tc of ERRORS) {
  test(`parseManifests rejects: ${tc.name}`, () => {
    assert.throws(
      () => parseManifests(tc.text, "f.yaml"),
      (err: unknown) => {
        assert.ok(err instanceof ManifestParseError);
        assert.match(err.message, typeof tc.message === "string" ? new RegExp(`^${tc.message.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}$`) : tc.message);
        assert.equal(err.line, tc.line);
        assert.equal(err.document, tc.document);
        return true;
      },
    );
  });
}

test("an alias bomb is refused instead of expanded", () => {
  const lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"];
  for (let i = 1; i < 12; i++)
    lines.push(
      `a${i}: &a${i} [${Array(10)
        .fill(`*a${i - 1}`)
        .join(", ")}]`,
    );
  assert.throws(() => parseManifests(`kind: K\nmetadata: {name: n}\n${lines.join("\n")}\n`, "bomb.yaml"), /excessive aliasing/);
});

// Go's json scanner messages for malformed JSON manifests (produced by library-go ParseManifests).
const GO_JSON_ERRORS: [input: string, goMessage: string][] = [
  ['{"kind": "A", "metadata": {"name": "a",}}', "json: offset 40: invalid character '}' looking for beginning of object key string"],
  ['{"kind": "A", "metadata": {"name" "a"}}', "json: offset 35: invalid character '\"' after object key"],
  ['{"kind": "A", "metadata": {"name": "a"} "x": 1}', "json: offset 41: invalid character '\"' after object key:value pair"],
  ['{"kind": "A", "x": [1 2]}', "json: offset 23: invalid character '2' after array element"],
  ['{"kind": "A", "x": tru}', "json: offset 23: invalid character '}' in literal true (expecting 'e')"],
  ['{"kind": "A", "x": -}', "json: offset 21: invalid character '}' in numeric literal"],
  ['{"kind": "A", "x": 1.}', "json: offset 22: invalid character '}' after decimal point in numeric literal"],
  ['{"kind": "A", "x": 1e}', "json: offset 22: invalid character '}' in exponent of numeric literal"],
  ['{"kind": "A", "x": "\\q"}', "json: offset 22: invalid character 'q' in string escape code"],
  ['{"kind": "A", "x": "\\u12G4"}', "json: offset 25: invalid character 'G' in \\u hexadecimal character escape"],
  ['{"kind": "A", "x": 01}', "json: offset 21: invalid character '1' after object key:value pair"],
  ['{"kind": "A", "metadata": {"name": "a"}} x', "json: offset 42: invalid character 'x' looking for beginning of value"],
];

for (const [input, goMessage] of GO_JSON_ERRORS) {
  test(`JSON syntax error reads like Go: ${goMessage}`, () => {
    // Trailing junk after a complete value is the start of the stream's second document.
    const document = goMessage.startsWith("json: offset 42:") ? 2 : 1;
    assert.throws(() => parseManifests(input, "f.json"), {
      message: `error parsing: ${goMessage} (document ${document}, line 1, column ${/offset (\d+)/.exec(goMessage)?.[1]})`,
    });
  });
}

test("JSON nesting: Go's limit of 10000 levels when allowed, without exhausting the JS stack", () => {
  const nested = (n: number) => `{"kind":"A","metadata":{"name":"a"},"x":${"[".repeat(n)}${"]".repeat(n)}}`;
  const goLimits = decodeBudget({ ...DEFAULT_PAYLOAD_LIMITS, maxDepth: 10000 });
  assert.equal(parseManifests(nested(9998), "deep.json", goLimits).length, 1);
  assert.throws(() => parseManifests(nested(10001), "deep.json", goLimits), {
    message: /^error parsing: json: offset 10040: invalid character '\[' exceeded max depth/,
  });
});

test("deeply nested YAML is a per-file parse error, not a crash", () => {
  const text = `kind: A\nmetadata: {name: a}\nx: ${"[".repeat(100000)}${"]".repeat(100000)}\n`;
  assert.throws(() => parseManifests(text, "deep.yaml"), ManifestParseError);
});

test("non-string map keys are spelled like sigs.k8s.io/yaml (float keys as Go %g of a float32)", () => {
  const text =
    "kind: K\nmetadata: {name: nm}\nk:\n  1.5: a\n  0.1: b\n  1234567.0: c\n  1e-5: d\n  100000.0: e\n  3.0: f\n  -2.25: g\n  16777217.0: h\n  0.00012: i\n  .5: j\n  1e20: k\n";
  // Output of library-go ParseManifests for the same text.
  const go =
    '{"k":{"-2.25":"g","0.00012":"i","0.1":"b","0.5":"j","1.234567e+06":"c","1.5":"a","1.6777216e+07":"h","100000":"e","1e+20":"k","1e-05":"d","3":"f"},"kind":"K","metadata":{"name":"nm"}}';
  assert.equal(parseManifests(text, "k.yaml")[0]?.raw, go);
});

test("YAML 1.1 makes `name: n` a boolean, so the name is missing (as in Go)", () => {
  assert.throws(() => parseManifests("kind: K\nmetadata: {name: n}\n", "n.yaml"), /Name: "" must contain kubernetes required fields/);
});

test("documents split like Go's YAMLReader: `...` ends a document and the rest of that chunk is ignored", () => {
  const text = "kind: A\nmetadata: {name: a}\n...\nkind: B\nmetadata: {name: b}\n---\nkind: C\nmetadata: {name: c}\n";
  assert.deepEqual(
    parseManifests(text, "d.yaml").map((m) => m.obj.kind),
    ["A", "C"],
  );
});

test("a bad separator is reported before the document it would close is decoded", () => {
  const text = "kind: A\nmetadata: {name: a}\n---\nkind: B\nmetadata: [\n--- x\n";
  assert.throws(() => parseManifests(text, "d.yaml"), { message: "error parsing: invalid Yaml document separator: x (document 2, line 6)" });
});

test("CRLF line endings", () => {
  const text = "kind: A\r\nmetadata: {name: a}\r\n---\r\nkind: B\r\nmetadata: {name: b}\r\n";
  assert.deepEqual(
    parseManifests(text, "d.yaml").map((m) => m.raw),
    ['{"kind":"A","metadata":{"name":"a"}}', '{"kind":"B","metadata":{"name":"b"}}'],
  );
});
