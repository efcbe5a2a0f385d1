/**
 * The release verifier: library-go `pkg/verify` `releaseVerifier.Verify` behind the retriever's
 * {@link ImageVerifier} seam. Every keyring must have signed a claim naming exactly the digest (an
 * intersection, as the CVO requires a signature from each `verifier-public-key-*`), with signatures read
 * from the sources in order until all have.
 */
import { deadline } from "../../core/index.js";
import type { ImageVerifier, VerificationResult } from "../registry/verifier.js";
import { checkClaim } from "./claim.js";
import { verifyWithKeyring, type Keyring } from "./pgp.js";
import type { SignatureSource } from "./store.js";

export interface ReleaseVerifierOptions {
  /** Every one must have signed; at least one. */
  readonly keyrings: readonly Keyring[];
  /** Read in order; signature stores before the registry, as the CVO reads its stores before the cluster's. */
  readonly sources: readonly SignatureSource[];
  /** Signature expiry is judged at this time, and it stamps each collected error as upstream does. */
  readonly now: () => Date;
  /**
   * Bound on one verification (default {@link VERIFY_TIMEOUT_MS}): a store still not answering then counts as a
   * failed lookup and the image is refused, as upstream's verify context expires.
   */
  readonly timeoutMs?: number;
}

/** Upstream gives verification half of the retrieval's four minutes. */
export const VERIFY_TIMEOUT_MS = 120_000;

/** Upstream's `validReleaseDigest`: filters clearly invalid digests before any request. */
const VALID_DIGEST = /^[a-z0-9]+(?:[.+_-][a-z0-9]+)*:[a-zA-Z0-9=_-]+$/;

/** Upstream keeps this many verified digests, so a retried update does not refetch its signatures. */
const MAX_CACHED = 64;

/**
 * An {@link ImageVerifier} that checks signatures with `keyrings`. It never throws for an unverifiable
 * image (it answers with `error`), only when `signal` aborts. Safe to call concurrently.
 */
export function releaseVerifier(options: ReleaseVerifierOptions): ImageVerifier {
  if (options.keyrings.length === 0) throw new Error("the release verifier needs at least one keyring");
  const verified = new Set<string>();
  return async (digest, reference, signal): Promise<VerificationResult> => {
    if (digest === "") return refused("release images that are not accessed via digest cannot be verified");
    if (!VALID_DIGEST.test(digest)) return refused(`the provided release image digest has an invalid format: ${JSON.stringify(digest)}`);
    if (options.sources.length === 0) return refused("the release verifier is incorrectly configured, unable to verify digests");
    if (verified.has(digest)) return { verified: true };

    const remaining = new Map(options.keyrings.map((keyring) => [keyring.name, keyring]));
    const errors: Error[] = [];
    const note = (err: Error): void => {
      errors.push(new Error(`${rfc3339(options.now())}: ${err.message}`, { cause: err }));
    };
    const timeoutMs = options.timeoutMs ?? VERIFY_TIMEOUT_MS;
    const bounded = deadline(timeoutMs, signal);
    try {
      sources: for (const source of options.sources) {
        for await (const signature of source.signatures(digest, reference, bounded.signal)) {
          if (signature instanceof Error) {
            note(signature);
            continue;
          }
          for (const [name, keyring] of remaining) {
            try {
              checkClaim(await verifyWithKeyring(signature, keyring, options.now()), digest);
              remaining.delete(name);
            } catch (err) {
              note(err instanceof Error ? err : new Error(String(err)));
            }
          }
          if (remaining.size === 0) break sources;
        }
      }
    } catch (err) {
      if (signal.aborted || !bounded.signal.aborted) throw err;
      note(new Error(`signature lookup timed out after ${timeoutMs / 1000}s`, { cause: err }));
    } finally {
      bounded.dispose();
    }
    signal.throwIfAborted();
    if (remaining.size > 0) {
      const names = [...remaining.keys()].join(", ");
      return { verified: false, error: new Error(`unable to verify ${digest} against keyrings: ${names}`, { cause: aggregate(errors) }) };
    }
    if (verified.size >= MAX_CACHED) verified.delete(verified.values().next().value as string);
    verified.add(digest);
    return { verified: true };
  };
}

function refused(message: string): VerificationResult {
  return { verified: false, error: new Error(message) };
}

/** k8s `errors.NewAggregate`'s text: one error as itself, several as `[a, b]`; none: no cause. */
function aggregate(errors: readonly Error[]): Error | undefined {
  if (errors.length === 0) return undefined;
  if (errors.length === 1) return errors[0];
  return new AggregateError(errors, `[${errors.map((e) => e.message).join(", ")}]`);
}

/** Go's `time.RFC3339` in UTC: seconds, no fraction. */
function rfc3339(at: Date): string {
  return at.toISOString().replace(/\.\d{3}Z$/, "Z");
}
