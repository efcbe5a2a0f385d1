import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import type { PayloadFs } from "../../../src/payload/load.js";
import type { Manifest } from "../../../src/payload/manifest.js";
import { gvkOf, type KubeObject } from "../../../src/payload/manifest.js";
import { realPayload } from "../../harness/tiers.js";

/** The real OpenShift payloads, read in place where SYNCWORKER_REAL_PAYLOADS names them (test/harness/tiers.ts). */
export { REAL_PAYLOADS, skipRealPayloads } from "../../harness/tiers.js";
export const REAL_A = realPayload("real-a");
export const REAL_B = realPayload("real-b");

/** The release image the Go reference hashes below were computed with (it is rendered into manifests/). */
export const ORACLE_IMAGE = "quay.io/test/release@sha256:abc";
/** Known capabilities of the spec's CVO revision (§6.1). */
export const REVISION_CAPS = ["baremetal", "marketplace", "openshift-samples"] as const;
/** A 4.16-era capability list (Appendix A), under which the real payloads' capability manifests are known. */
export const CAPS_4_16 = [
  ...REVISION_CAPS,
  "Console",
  "Insights",
  "Storage",
  "CSISnapshot",
  "NodeTuning",
  "MachineAPI",
  "Build",
  "DeploymentConfig",
  "ImageRegistry",
  "OperatorLifecycleManager",
  "OperatorLifecycleManagerV1",
  "CloudCredential",
  "Ingress",
  "CloudControllerManager",
] as const;

export const METADATA_1_0_0_ABC = `{
  "kind": "cincinnati-metadata-v0",
  "version": "1.0.0-abc",
  "previous": [
    "1.1.1",
    "1.2.2"
  ],
  "metadata": {
    "url": "https://example.com/v1.0.0-abc",
    "io.openshift.upgrades.graph.release.channels": "channel-c,channel-a,channel-b"
  }
}
`;
export const IMAGE_REFS_1_0_0_ABC = "kind: ImageStream\napiVersion: image.openshift.io/v1\nmetadata:\n  name: 1.0.0-abc";

const testObject = (name: string, extra = "") =>
  `kind: Test\napiVersion: v1\nmetadata:\n  name: ${name}\n  annotations:\n    include.release.openshift.io/self-managed-high-availability: "true"\n${extra}`;
const testJson = (name: string) =>
  `{\n  "kind": "Test",\n  "apiVersion": "v1",\n  "metadata": {\n    "name": "${name}",\n    "annotations": {\n      "include.release.openshift.io/self-managed-high-availability": "true"\n    }\n  }\n}`;

/**
 * Upstream's `pkg/cvo/testdata/payloadtest` at the spec's revision, byte for byte: with exclude id
 * `exclude-test` it loads three manifests (one JSON kept verbatim, two YAML) hashing to `DL-FFQ2Uem8=`.
 */
export const PAYLOADTEST: Record<string, string> = {
  "manifests/.gitkeep": "",
  "release-manifests/0000_10_a_file": testJson("file"),
  "release-manifests/0000_10_a_file.json": testJson("file-json"),
  "release-manifests/0000_10_a_file.yaml": testObject("file-yaml"),
  "release-manifests/0000_10_a_file.yml": testObject("file-yml"),
  "release-manifests/0000_20_a_exclude.yml": testObject("file-20-yml").replace('"true"\n', '"true"\n    exclude.release.openshift.io/exclude-test: "true"\n'),
  "release-manifests/image-references": IMAGE_REFS_1_0_0_ABC,
  "release-manifests/release-metadata": METADATA_1_0_0_ABC,
};

/** A minimal valid payload skeleton to add files to. */
export const SKELETON: Record<string, string> = {
  "manifests/.gitkeep": "",
  "release-manifests/image-references": IMAGE_REFS_1_0_0_ABC,
  "release-manifests/release-metadata": METADATA_1_0_0_ABC,
};

/** Writes `files` (relative path → content) under a fresh temp dir; returns it and a cleanup. */
export async function tempPayload(files: Record<string, string>): Promise<{ dir: string; cleanup: () => Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), "syncworker-payload-"));
  for (const [rel, content] of Object.entries(files)) {
    await mkdir(dirname(join(dir, rel)), { recursive: true });
    await writeFile(join(dir, rel), content);
  }
  return { dir, cleanup: () => rm(dir, { recursive: true, force: true }) };
}

/** A manifest built from an object, for filter tests. */
export function manifestOf(obj: KubeObject, originalFilename = "test.yaml"): Manifest {
  return { originalFilename, raw: JSON.stringify(obj), gvk: gvkOf(obj), obj };
}

export { testObject };

/** A PayloadFs over a map of paths relative to /p (directories implied); readdir order is scrambled. */
export function memoryFs(files: Record<string, string>): PayloadFs {
  const abs = new Map(Object.entries(files).map(([k, v]) => [join("/p", k), v]));
  const isDir = (p: string) => [...abs.keys()].some((k) => k.startsWith(`${p}/`));
  const enoent = (p: string) => Object.assign(new Error(`ENOENT: no such file or directory, '${p}'`), { code: "ENOENT" });
  return {
    async readdir(dir) {
      const names = new Set([...abs.keys()].filter((k) => k.startsWith(`${dir}/`)).map((k) => k.slice(dir.length + 1).split("/")[0] ?? ""));
      return [...names].reverse().map((name) => ({ name, type: isDir(join(dir, name)) ? "directory" : "file" }));
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
    async realpath(p) {
      if (abs.has(p) || isDir(p)) return p;
      throw enoent(p);
    },
  };
}
