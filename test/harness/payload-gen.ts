import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";

/** A manifest of a generated payload: its file name under release-manifests/ and its object. */
export interface GeneratedManifest {
  readonly file: string;
  readonly obj: { apiVersion: string; kind: string; metadata: { name: string; namespace?: string; annotations?: Record<string, string> }; [k: string]: unknown };
}

/** Writes a release payload directory: metadata, image references, and one JSON manifest per file. */
export async function writePayload(dir: string, version: string, manifests: readonly GeneratedManifest[]): Promise<void> {
  const release = join(dir, "release-manifests");
  await mkdir(release, { recursive: true });
  await mkdir(join(dir, "manifests"), { recursive: true });
  await writeFile(join(release, "release-metadata"), JSON.stringify({ kind: "cincinnati-metadata-v0", version, previous: [], metadata: {} }));
  await writeFile(join(release, "image-references"), JSON.stringify({ kind: "ImageStream", apiVersion: "image.openshift.io/v1", metadata: { name: version }, spec: { tags: [] } }));
  for (const { file, obj } of manifests) await writeFile(join(release, file), JSON.stringify(obj));
}
