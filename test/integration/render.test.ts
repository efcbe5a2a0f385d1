import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtemp, rm, writeFile, mkdir } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { test } from "node:test";
import { promisify } from "node:util";
import { parseAllDocuments } from "yaml";
import { REPO_ROOT, SYNCWORKER } from "../harness/server.js";
import { writeReleases } from "../harness/payload-gen.js";
import { realPayload, skipRealPayloads } from "../harness/tiers.js";

const run = promisify(execFile);
/** Relative to the checkout, as a user in the repository would type it. */
const REAL_A = relative(REPO_ROOT, realPayload("real-a"));
const REAL_B = relative(REPO_ROOT, realPayload("real-b"));
const { a: RELEASE_A, b: RELEASE_B } = await writeReleases();

async function render(...args: string[]): Promise<{ code: number; lines: string[]; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [...SYNCWORKER, "render", ...args], { cwd: REPO_ROOT, maxBuffer: 16 << 20 });
    return { code: 0, lines: stdout.trimEnd().split("\n"), stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, lines: e.stdout.trimEnd().split("\n"), stderr: e.stderr };
  }
}

/** Renders `image`: exit 0, `count` as the last line, `expected` lines (by 0-based index) as given, every other line well-formed. */
async function assertTaskOrder(image: string, count: string, expected: Record<number, string>): Promise<void> {
  const { code, lines, stderr } = await render("--image", image);
  assert.equal(code, 0, stderr);
  assert.equal(lines.at(-1), count);
  assert.equal(lines.length, Number(/^included (\d+) /.exec(count)?.[1]) + 1, "one line per included manifest");
  for (const [i, line] of Object.entries(expected)) assert.equal(lines[Number(i)], line);
  for (const [i, line] of lines.slice(0, -1).entries()) assert.match(line, new RegExp(`^${i + 1} \\d+ [A-Za-z0-9-]+ \\S+/\\S+ \\S+/\\S+$`));
}

/** Renders with each flag set: exit 0 and the count line given. */
async function assertCounts(flags: ReadonlyArray<[args: string[], last: string]>): Promise<void> {
  const results = await Promise.all(flags.map(([args]) => render(...args)));
  for (const [i, [args, last]] of flags.entries()) {
    const r = results[i];
    assert.equal(r?.code, 0, r?.stderr);
    assert.equal(r?.lines.at(-1), last, args.join(" "));
  }
}

test("render a generated release: every included manifest in task order, then the count", async () => {
  // 5 of 309 are left out by default: the TechPreviewNoUpgrade variants of the feature-set manifests. The operator's
  // own templates (manifests/) come first, then the release's by run level and component.
  await assertTaskOrder(RELEASE_A, "included 304 of 309 manifests", {
    0: "1 00 cluster-version-operator core/Namespace -/openshift-cluster-version",
    1: "2 00 cluster-version-operator apiextensions.k8s.io/CustomResourceDefinition -/clusterversions.config.openshift.io",
    2: "3 00 cluster-version-operator apps/Deployment openshift-cluster-version/cluster-version-operator",
    3: "4 00 component-00 core/Namespace -/openshift-component-00",
    99: "100 10 component-03 apps/Deployment openshift-component-03/component-03",
    199: "200 30 component-18 core/Service openshift-component-18/component-18",
    303: "304 90 component-23 config.openshift.io/ClusterOperator -/component-23",
  });
});

// Each flag against what the generator puts in: profiles on every third (hypershift) component, hosted exclusions
// on the Services of every sixth, capabilities on every fourth, feature-set variants on every sixth.
const GENERATED_FLAGS: [args: string[], last: string][] = [
  [["--image", RELEASE_B], "included 315 of 320 manifests"],
  [["--image", RELEASE_A, "--profile", "hypershift"], "included 99 of 309 manifests"],
  [["--image", RELEASE_B, "--exclude", "internal-openshift-hosted"], "included 310 of 320 manifests"],
  [["--image", RELEASE_A, "--capabilities", "Console,Ingress"], "included 244 of 309 manifests"],
];

test("render of a generated release honors --profile, --exclude, --capabilities and --feature-set", async () => {
  await assertCounts(GENERATED_FLAGS);
  // A feature set swaps one variant of each feature-set manifest for the other: same count, other files.
  const [byDefault, preview] = await Promise.all([
    render("--image", RELEASE_A, "--show-excluded"),
    render("--image", RELEASE_A, "--feature-set", "TechPreviewNoUpgrade", "--show-excluded"),
  ]);
  assert.equal(preview.lines.at(-1), "included 304 of 309 manifests");
  const excludedVariants = (stderr: string): string[] => [...stderr.matchAll(/^excluded \S+_09_flags-(\w+)\.json /gm)].map((m) => m[1] ?? "");
  assert.deepEqual(excludedVariants(byDefault.stderr), Array(5).fill("TechPreviewNoUpgrade"));
  assert.deepEqual(excludedVariants(preview.stderr), Array(5).fill("Default"));
});

test("render real-a: every included manifest in task order, then the count", { skip: skipRealPayloads }, async () => {
  await assertTaskOrder(REAL_A, "included 267 of 300 manifests", {
    0: "1 00 cluster-version-operator core/Namespace -/openshift-cluster-version",
    1: "2 00 cluster-version-operator core/ConfigMap openshift-config/admin-acks",
    99: "100 50 cluster-authentication-operator operator.openshift.io/Authentication -/cluster",
    199: "200 70 dns-operator rbac.authorization.k8s.io/ClusterRoleBinding -/openshift-dns-operator",
    266: "267 90 kube-apiserver-operator core/ConfigMap openshift-config-managed/grafana-dashboard-api-performance",
  });
});

// Real-payload tier: counts per inclusion flag agree with the Go oracle figures in test/unit/payload/real-payloads.test.ts.
const FLAGS: [args: string[], last: string][] = [
  [["--image", REAL_B], "included 267 of 301 manifests"],
  [["--image", REAL_A, "--feature-set", "TechPreviewNoUpgrade"], "included 268 of 300 manifests"],
  [["--image", REAL_A, "--profile", "hypershift"], "included 91 of 300 manifests"],
  [["--image", REAL_B, "--exclude", "internal-openshift-hosted"], "included 248 of 301 manifests"],
  [["--image", REAL_A, "--capabilities", "Console,Ingress"], "included 228 of 300 manifests"],
];

test("render of the real payloads honors --feature-set, --profile, --exclude and --capabilities", { skip: skipRealPayloads }, async () => {
  await assertCounts(FLAGS);
});

test("render marks file names without a run level with '-', and explains exclusions on request", async () => {
  const dir = await mkdtemp(join(tmpdir(), "syncworker-render-"));
  try {
    await mkdir(join(dir, "manifests"));
    await mkdir(join(dir, "release-manifests"));
    await writeFile(join(dir, "release-manifests/release-metadata"), '{"kind": "cincinnati-metadata-v0", "version": "1.0.0"}');
    await writeFile(join(dir, "release-manifests/image-references"), "kind: ImageStream\napiVersion: image.openshift.io/v1\nmetadata:\n  name: 1.0.0\n");
    const annotations = '  annotations:\n    include.release.openshift.io/self-managed-high-availability: "true"\n';
    await writeFile(
      join(dir, "release-manifests/0000_10_a_x.yaml"),
      `apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: d\n  namespace: ns\n${annotations}`,
    );
    await writeFile(
      join(dir, "release-manifests/extra.yaml"),
      `apiVersion: v1\nkind: Namespace\nmetadata:\n  name: ns\n${annotations}---\nkind: ConfigMap\napiVersion: v1\nmetadata:\n  name: skipped\n`,
    );
    const { code, lines, stderr } = await render("--image", dir, "--show-excluded");
    assert.equal(code, 0, stderr);
    assert.deepEqual(lines, ["1 10 a apps/Deployment ns/d", "2 - - core/Namespace -/ns", "included 2 of 3 manifests"]);
    assert.equal(stderr, "excluded extra.yaml core/ConfigMap -/skipped: no annotations\n");

    await writeFile(join(dir, "release-manifests/0000_20_b_bad.yaml"), "kind: A\nmetadata: {name: a}\n---\nkind: B\nmetadata:\n  name: [\n");
    const bad = await render("--image", dir);
    assert.equal(bad.code, 1);
    assert.deepEqual(bad.lines, [""], "nothing partial on stdout");
    assert.match(
      bad.stderr,
      /^syncworker: Error loading manifests from .*: parse 0000_20_b_bad\.yaml: error parsing: .*yaml: line 7: .*\(document 2, column \d+\)\n$/,
    );
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test("render -o yaml|json prints the manifests themselves, in the order of the index, with the count on stderr", async () => {
  const demo = "examples/payloads/demo-1.1.0";
  const index = await render("--image", demo);
  assert.equal(index.code, 0, index.stderr);
  const listed = index.lines.slice(0, -1).map((line) => line.split(" ").slice(-2).join(" "));
  const named = (o: { apiVersion: string; kind: string; metadata: { namespace?: string; name: string } }): string =>
    `${o.apiVersion.includes("/") ? o.apiVersion.split("/")[0] : "core"}/${o.kind} ${o.metadata.namespace ?? "-"}/${o.metadata.name}`;

  const yaml = await render("--image", demo, "-o", "yaml");
  assert.equal(yaml.code, 0, yaml.stderr);
  assert.equal(yaml.stderr, `${index.lines.at(-1)}\n`, "stdout carries only manifests");
  const docs = parseAllDocuments(yaml.lines.join("\n"));
  const objects = (Array.isArray(docs) ? docs : []).map((d) => d.toJS() as Parameters<typeof named>[0]);
  assert.deepEqual(objects.map(named), listed);
  const config = objects.find((o) => o.kind === "ConfigMap" && o.metadata.name === "config-config") as unknown as { data: Record<string, string> } | undefined;
  assert.equal(config?.data["release"], "1.1.0", "the manifest as the payload has it");

  const json = await render("--image", demo, "--output", "json");
  assert.equal(json.code, 0, json.stderr);
  const list = JSON.parse(json.lines.join("\n")) as { apiVersion: string; kind: string; items: Array<Parameters<typeof named>[0]> };
  assert.deepEqual([list.apiVersion, list.kind], ["v1", "List"]);
  assert.deepEqual(list.items, objects, "the same manifests as -o yaml");

  const unknown = await render("--image", demo, "-o", "wide");
  assert.equal(unknown.code, 2, "a flag refused: a usage error");
  assert.match(unknown.stderr, /argument 'wide' is invalid\. Allowed choices are index, yaml, json/);
});

test("render fails with a message for a missing payload or an unknown feature set", async () => {
  const [missing, unknown] = await Promise.all([render("--image", "/nonexistent/payload"), render("--image", RELEASE_A, "--feature-set", "Bogus")]);
  assert.equal(missing.code, 1);
  assert.equal(missing.stderr, "syncworker: stat /nonexistent/payload/manifests: no such file or directory\n");
  assert.equal(unknown.code, 2, "a flag refused: a usage error");
  assert.match(
    unknown.stderr,
    /^syncworker: --feature-set: "Bogus" is not a feature set; use one of CustomNoUpgrade, Default, DevPreviewNoUpgrade, TechPreviewNoUpgrade\n$/,
  );
});
