/**
 * Builds the service's {@link ImageVerifier} from its options, as the CVO builds its verifier from the
 * release's verifier ConfigMap: keys from `--verification-keys`, then the `--signature-store`s in order,
 * then the registry's `.sig` tag. Without keys there is no verification at all, as upstream without one.
 */
import { rootCertificates } from "node:tls";
import { Agent } from "undici";
import type { RegistryClient } from "../registry/client.js";
import { UNVERIFIED, type ImageVerifier } from "../registry/verifier.js";
import { loadKeyrings } from "./keys.js";
import { registrySignatures } from "./registry.js";
import { signatureStore } from "./store.js";
import { releaseVerifier } from "./verifier.js";

export interface VerificationOptions {
  /** Directory of public keyrings; "" turns verification off. */
  readonly verificationKeys: string;
  /** Signature stores (`http(s)://` or `file://`), read before the registry. */
  readonly signatureStores: readonly URL[];
  /** Extra CA (PEM) trusted for HTTPS stores, the one `--registry-ca` names. */
  readonly caPem?: string;
}

/**
 * Reads the keyrings (throwing an Error that names a bad or empty key file) and returns the verifier with
 * its sources; `registry`, when given, adds the registry's signatures. `close` releases the stores' connections.
 */
export async function configureVerifier(options: VerificationOptions, registry: RegistryClient | undefined, now: () => Date): Promise<{ verify: ImageVerifier; close(): Promise<void> }> {
  if (options.verificationKeys === "") return { verify: UNVERIFIED, close: async () => {} };
  const keyrings = await loadKeyrings(options.verificationKeys);
  const agent = new Agent({ connect: options.caPem ? { ca: [...rootCertificates, options.caPem] } : {} });
  const sources = [...options.signatureStores.map((url) => signatureStore(url, agent)), ...(registry ? [registrySignatures(registry)] : [])];
  return { verify: releaseVerifier({ keyrings, sources, now }), close: () => agent.close() };
}
