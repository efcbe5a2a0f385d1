/**
 * Builds the service's {@link ImageVerifier} from its options, as the CVO builds its verifier from the
 * release's verifier ConfigMap: keys from `--verification-keys`, then the `--signature-store`s in order,
 * then the registry's `.sig` tag. Without keys there is no verification at all, as upstream without one.
 */
import { rootCertificates } from "node:tls";
import { Agent } from "undici";
import type { RegistryClient } from "../registry/client.js";
import { UNVERIFIED, type ImageVerifier } from "../registry/verifier.js";
import type { Keyring } from "./pgp.js";
import { registrySignatures } from "./registry.js";
import { signatureStore } from "./store.js";
import { releaseVerifier } from "./verifier.js";

export interface VerificationOptions {
  /** From `loadKeyrings(--verification-keys)`, read at start-up; none turns verification off. */
  readonly keyrings: readonly Keyring[];
  /** Signature stores (`http(s)://` or `file://`), read before the registry. */
  readonly signatureStores: readonly URL[];
  /** Extra CA (PEM) trusted for HTTPS stores, the one `--registry-ca` names. */
  readonly caPem?: string;
}

/**
 * The verifier with its sources; `registry`, when given, adds the registry's signatures. `close` releases
 * the stores' connections.
 */
export function configureVerifier(
  options: VerificationOptions,
  registry: RegistryClient | undefined,
  now: () => Date,
): { verify: ImageVerifier; close(): Promise<void> } {
  if (options.keyrings.length === 0) return { verify: UNVERIFIED, close: async () => {} };
  const agent = new Agent({ connect: options.caPem ? { ca: [...rootCertificates, options.caPem] } : {} });
  const sources = [...options.signatureStores.map((url) => signatureStore(url, agent)), ...(registry ? [registrySignatures(registry)] : [])];
  return { verify: releaseVerifier({ keyrings: options.keyrings, sources, now }), close: () => agent.close() };
}
