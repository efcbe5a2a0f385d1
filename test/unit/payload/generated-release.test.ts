// The generated releases the behaviour tests use in place of real payloads: deterministic, with the shapes those
// tests rely on, and b an update of a that a real API server can apply.
import assert from "node:assert/strict";
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { test } from "node:test";
import { payloadManifests } from "../../harness/cluster-play.js";
import { releaseManifests, writeReleases } from "../../harness/payload-gen.js";

const { a, b } = await writeReleases();

async function files(dir: string): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const sub of ["manifests", "release-manifests"]) {
    for (const name of await readdir(join(dir, sub))) out.set(`${sub}/${name}`, await readFile(join(dir, sub, name), "utf8"));
  }
  return out;
}

test("the same spec writes the same files", async () => {
  const again = await writeReleases();
  assert.deepEqual(await files(again.a), await files(a));
  assert.deepEqual(await files(again.b), await files(b));
});

test("a and b load with 304 and 315 manifests across run levels 00-90, every shape the tests wait on present", async () => {
  const [loadedA, loadedB] = await Promise.all([payloadManifests(a), payloadManifests(b)]);
  assert.equal(loadedA.version, "1.0.0");
  assert.equal(loadedA.manifests.length, 304);
  assert.equal(loadedB.version, "1.1.0");
  assert.equal(loadedB.manifests.length, 315);
  const levels = new Set(loadedA.manifests.map((m) => /^0000_(\d\d)_/.exec(m.originalFilename)?.[1]));
  assert.deepEqual([...levels].sort(), ["00", "03", "05", "10", "20", "25", "30", "40", "50", "70", "80", "90"]);
  const kinds = new Set(loadedA.manifests.map((m) => m.gvk.kind));
  for (const kind of ["CustomResourceDefinition", "Widget", "ClusterOperator", "Deployment", "DaemonSet", "Job", "ClusterRoleBinding", "Namespace"])
    assert.ok(kinds.has(kind), kind);
  assert.ok(
    loadedA.manifests.some((m) => m.gvk.kind === "CustomResourceDefinition" && m.obj.metadata?.name === "clusterversions.config.openshift.io"),
    "the ClusterVersion CRD, so an installer can create ClusterVersion version",
  );
});

test("the manifests carry capability, profile, feature-set, exclude and delete annotations", () => {
  const annotations = releaseManifests({ version: "1.0.0" }).flatMap((m) => Object.keys(m.obj.metadata.annotations ?? {}));
  for (const key of [
    "capability.openshift.io/name",
    "include.release.openshift.io/hypershift",
    "include.release.openshift.io/single-node-developer",
    "release.openshift.io/feature-set",
    "exclude.release.openshift.io/internal-openshift-hosted",
    "release.openshift.io/delete",
  ]) {
    assert.ok(annotations.includes(key), key);
  }
});

test("b changes versions and configuration but no Job's immutable pod template", () => {
  const byFile = (variant: "a" | "b") => new Map(releaseManifests({ version: variant === "a" ? "1.0.0" : "1.1.0", variant }).map((m) => [m.file, m.obj]));
  const [before, after] = [byFile("a"), byFile("b")];
  // Jobs of components both ship (b adds one).
  const jobs = [...after].filter(([file, obj]) => obj.kind === "Job" && before.has(file));
  assert.ok(jobs.length > 0);
  for (const [file, obj] of jobs) assert.deepEqual(obj["spec"], before.get(file)?.["spec"], file);
  const operator = [...after].find(([, obj]) => obj.kind === "ClusterOperator");
  assert.deepEqual((operator?.[1]["status"] as { versions: unknown }).versions, [{ name: "operator", version: "1.1.0" }]);
});

test("image-references names every component's image", async () => {
  const references = JSON.parse(await readFile(join(a, "release-manifests", "image-references"), "utf8")) as {
    spec: { tags: Array<{ name: string; from: { name: string } }> };
  };
  assert.equal(references.spec.tags.length, 30);
  assert.deepEqual(references.spec.tags[0], {
    name: "component-00",
    from: { kind: "DockerImage", name: `quay.io/example/component-00@sha256:${"1".padStart(64, "0")}` },
  });
});
