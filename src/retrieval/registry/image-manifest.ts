/**
 * Reading release image manifests: an OCI image manifest or Docker v2 schema 2 lists the layers; an OCI
 * index or Docker manifest list names one manifest per platform, of which the node's architecture is pulled.
 */
import { createHash } from "node:crypto";
import { isDigest } from "./reference.js";
import { listText } from "../../status/text.js";

/** A content descriptor (OCI image spec): what a manifest says about one blob. */
export interface Descriptor {
  readonly mediaType: string;
  readonly digest: string;
  readonly size: number;
  readonly platform?: { readonly os?: string; readonly architecture?: string; readonly variant?: string };
}

/** A parsed manifest: either layers to pull, or the platforms to choose from. */
export type ParsedManifest =
  { readonly kind: "image"; readonly layers: readonly Descriptor[] } | { readonly kind: "index"; readonly manifests: readonly Descriptor[] };

const INDEX_TYPES = new Set(["application/vnd.oci.image.index.v1+json", "application/vnd.docker.distribution.manifest.list.v2+json"]);
const IMAGE_TYPES = new Set(["application/vnd.oci.image.manifest.v1+json", "application/vnd.docker.distribution.manifest.v2+json"]);

/** `sha256:<hex>` of bytes, the digest a manifest or blob is addressed by. */
export function sha256Digest(bytes: Uint8Array): string {
  return `sha256:${createHash("sha256").update(bytes).digest("hex")}`;
}

function descriptors(value: unknown, field: string): Descriptor[] {
  if (!Array.isArray(value)) throw new Error(`manifest has no ${field} list`);
  return value.map((d: Partial<Descriptor>, i) => {
    if (typeof d?.digest !== "string" || !isDigest(d.digest)) throw new Error(`manifest ${field}[${i}] has no sha256 digest`);
    if (typeof d.size !== "number" || !Number.isSafeInteger(d.size) || d.size < 0) throw new Error(`manifest ${field}[${i}] has no valid size`);
    return { mediaType: String(d.mediaType ?? ""), digest: d.digest, size: d.size, ...(d.platform ? { platform: d.platform } : {}) };
  });
}

/**
 * Parses manifest bytes served as `servedType`. The media type inside the document wins over the header's
 * (registries serve what was pushed, and some omit the header), then the document's shape decides.
 */
export function parseManifest(bytes: Buffer, servedType: string): ParsedManifest {
  let doc: { mediaType?: unknown; schemaVersion?: unknown; layers?: unknown; manifests?: unknown };
  try {
    doc = JSON.parse(bytes.toString("utf8")) as typeof doc;
  } catch (err) {
    throw new Error(`manifest is not JSON: ${(err as Error).message}`, { cause: err });
  }
  const mediaType = typeof doc.mediaType === "string" && doc.mediaType ? doc.mediaType : servedType;
  if (doc.schemaVersion !== 2)
    throw new Error(`manifest schemaVersion ${String(doc.schemaVersion)} is not supported (only schema 2: OCI or Docker v2 schema 2)`);
  if (INDEX_TYPES.has(mediaType) || (!IMAGE_TYPES.has(mediaType) && doc.manifests !== undefined)) {
    return { kind: "index", manifests: descriptors(doc.manifests, "manifests") };
  }
  if (IMAGE_TYPES.has(mediaType) || doc.layers !== undefined) return { kind: "image", layers: descriptors(doc.layers, "layers") };
  throw new Error(`manifest media type ${JSON.stringify(mediaType)} is not an image manifest or index`);
}

/** The index entry for linux/`architecture`, or an Error listing the platforms there are. */
export function selectPlatform(manifests: readonly Descriptor[], architecture: string): Descriptor {
  const match = manifests.find((m) => (m.platform?.os ?? "linux") === "linux" && m.platform?.architecture === architecture);
  if (match) return match;
  const offered = listText(manifests.map((m) => `${m.platform?.os ?? "?"}/${m.platform?.architecture ?? "?"}`));
  throw new Error(`the image index has no manifest for linux/${architecture} (it has ${offered || "none"})`);
}

/** How a layer's bytes are compressed, from its media type; zstd and foreign layers are refused by name. */
export function layerCompression(mediaType: string): "gzip" | "none" {
  if (mediaType.endsWith("+gzip") || mediaType.endsWith(".tar.gzip") || mediaType === "application/vnd.docker.image.rootfs.diff.tar.gzip") return "gzip";
  if (mediaType === "application/vnd.oci.image.layer.v1.tar" || mediaType.endsWith(".tar") || mediaType === "") return "none";
  throw new Error(`layer media type ${JSON.stringify(mediaType)} is not supported (gzip or uncompressed tar layers only)`);
}
