/**
 * Signatures kept in the registry beside the image. The CVO itself reads none there (its stores are HTTP
 * lookasides and ConfigMaps), and containers/image keeps only cosign-format signatures in registries, so
 * the layout is cosign's tag convention carrying simple signing: the tag `sha256-<hex>.sig` in the image's
 * repository is an OCI image manifest whose every layer is one OpenPGP-signed claim, byte for byte what a
 * signature store's `signature-N` file holds. Layers are read whatever their media type (at most
 * {@link MAX_SIGNATURES}), so a cosign `.sig` image there only adds signatures that fail to verify.
 */
import type { RegistryClient } from "../registry/client.js";
import { messageOf } from "../../payload/errors.js";
import { parseManifest, sha256Digest, type Descriptor } from "../registry/image-manifest.js";
import { parseReference, type ImageReference } from "../registry/reference.js";
import { MAX_SIGNATURE_BYTES, MAX_SIGNATURES, readBounded, type SignatureSource } from "./store.js";

/** The media type `sign-payload --push` gives each signature layer. */
export const SIGNATURE_LAYER_TYPE = "application/vnd.syncworker.simple-signing.v1+pgp";
const OCI_MANIFEST = "application/vnd.oci.image.manifest.v1+json";
/** OCI 1.1's empty config for artifacts: `{}`. */
const EMPTY_CONFIG = { mediaType: "application/vnd.oci.empty.v1+json", digest: sha256Digest(Buffer.from("{}")), size: 2 } as const;

/** cosign's signature tag for a digest: `sha256:abc` → `sha256-abc.sig`. */
export function signatureTag(digest: string): string {
  return `${digest.replace(":", "-")}.sig`;
}

/** Reads the signatures in the `.sig` tag of the image's repository through `client` (its auth, CA, plain HTTP). */
export function registrySignatures(client: RegistryClient): SignatureSource {
  return {
    description: "signatures in the registry (the image repository's sha256-<hex>.sig tag)",
    async *signatures(digest, reference, signal) {
      const where = (ref: ImageReference): string => `${ref.registry}/${ref.repository}:${signatureTag(digest)}`;
      let ref: ImageReference;
      let layers: readonly Descriptor[];
      try {
        ref = parseReference(reference);
        layers = await signatureLayers(client, ref, digest, signal);
      } catch (err) {
        signal.throwIfAborted();
        yield new Error(`unable to retrieve signatures from the registry for ${reference}: ${messageOf(err)}`, { cause: err });
        return;
      }
      if (layers.length === 0) yield new Error(`unable to retrieve signatures from ${where(ref)}: it has no layers`);
      for (const layer of layers.slice(0, MAX_SIGNATURES)) {
        try {
          yield await readSignatureBlob(client, ref, layer, signal);
        } catch (err) {
          signal.throwIfAborted();
          yield new Error(`unable to retrieve signature ${layer.digest} from ${where(ref)}: ${messageOf(err)}`, { cause: err });
        }
      }
    },
  };
}

/**
 * Adds `signature` to the image's `.sig` tag (keeping the signatures already there, as `cosign attach`
 * does), pushing the layer, the empty config and the new manifest.
 */
export async function pushSignature(client: RegistryClient, ref: ImageReference, digest: string, signature: Uint8Array, signal: AbortSignal): Promise<void> {
  let layers: Descriptor[] = [];
  try {
    layers = [...(await signatureLayers(client, ref, digest, signal))];
  } catch (err) {
    // Only a missing tag starts a new manifest; anything else (auth, network) must not drop existing signatures.
    if (!/: 404 /.test(messageOf(err))) throw err;
  }
  const bytes = Buffer.from(signature);
  const layer: Descriptor = { mediaType: SIGNATURE_LAYER_TYPE, digest: sha256Digest(bytes), size: bytes.length };
  if (layers.some((l) => l.digest === layer.digest)) return;
  if (layers.length >= MAX_SIGNATURES)
    throw new Error(`${ref.registry}/${ref.repository}:${signatureTag(digest)} already holds ${MAX_SIGNATURES} signatures, as many as a verifier reads`);
  await client.pushBlob(ref, layer.digest, bytes, signal);
  await client.pushBlob(ref, EMPTY_CONFIG.digest, Buffer.from("{}"), signal);
  const manifest = {
    schemaVersion: 2,
    mediaType: OCI_MANIFEST,
    artifactType: SIGNATURE_LAYER_TYPE,
    config: EMPTY_CONFIG,
    layers: [...layers, layer].map(({ mediaType, digest: d, size }) => ({ mediaType, digest: d, size })),
  };
  await client.pushManifest(ref, signatureTag(digest), OCI_MANIFEST, Buffer.from(JSON.stringify(manifest)), signal);
}

async function signatureLayers(client: RegistryClient, ref: ImageReference, digest: string, signal: AbortSignal): Promise<readonly Descriptor[]> {
  const fetched = await client.manifest(ref, signatureTag(digest), signal);
  const parsed = parseManifest(fetched.bytes, fetched.mediaType);
  if (parsed.kind !== "image") throw new Error("the signature tag is an image index, not a manifest");
  return parsed.layers;
}

/** One layer's bytes, bounded and checked against its digest: the registry is not trusted to serve them intact. */
async function readSignatureBlob(client: RegistryClient, ref: ImageReference, layer: Descriptor, signal: AbortSignal): Promise<Uint8Array> {
  if (layer.size > MAX_SIGNATURE_BYTES) throw new Error(`its size ${layer.size} is over ${MAX_SIGNATURE_BYTES} bytes`);
  const bytes = await readBounded((await client.blob(ref, layer.digest, signal)).body);
  const actual = sha256Digest(bytes);
  if (actual !== layer.digest) throw new Error(`the blob served has digest ${actual}`);
  return bytes;
}
