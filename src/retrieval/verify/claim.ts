/**
 * The claim a release-image signature signs: containers/image's "atomic container signature" (simple
 * signing) JSON, checked as library-go's `verifyAtomicContainerSignature` checks it.
 */
import { z } from "zod";
import { messageOf } from "../../payload/errors.js";

/** The only claim type the CVO accepts. */
export const ATOMIC_SIGNATURE_TYPE = "atomic container signature";

// Strict objects: Go's decoder runs with DisallowUnknownFields, so an unknown field anywhere the
// CVO's structs reach invalidates the claim. Every field may be absent (Go leaves the zero value).
const claimSchema = z.strictObject({
  critical: z
    .strictObject({
      type: z.string().optional(),
      image: z.strictObject({ "docker-manifest-digest": z.string().optional() }).optional(),
      identity: z.strictObject({ "docker-reference": z.string().optional() }).optional(),
    })
    .optional(),
  optional: z
    .strictObject({
      creator: z.string().optional(),
      // Go decodes it into an int64: a fraction or a string is a type error.
      timestamp: z.number().int().optional(),
    })
    .optional(),
});

/** A claim that names the release digest it vouches for. */
export interface AtomicClaim {
  readonly digest: string;
  /** The pull spec the signer named (`identity.docker-reference`); the CVO requires one but does not match it. */
  readonly reference: string;
  readonly creator?: string;
  /** Seconds since the epoch. */
  readonly timestamp?: number;
}

/**
 * Checks that the signed `content` is an atomic container signature for `digest`; returns the claim, or
 * throws an Error saying why the signature must be ignored (upstream's wording).
 */
export function checkClaim(content: Uint8Array, digest: string): AtomicClaim {
  let parsed: unknown;
  try {
    parsed = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(content));
  } catch (err) {
    throw new Error(`the signature is not valid JSON: ${messageOf(err)}`, { cause: err });
  }
  const result = claimSchema.safeParse(parsed);
  if (!result.success) {
    const issue = result.error.issues[0];
    const where = issue && issue.path.length > 0 ? ` at ${issue.path.join(".")}` : "";
    throw new Error(`the signature is not valid JSON: ${issue?.message ?? "invalid claim"}${where}`);
  }
  const { critical, optional } = result.data;
  if (critical?.type !== ATOMIC_SIGNATURE_TYPE) throw new Error("signature is not the correct type");
  const reference = critical.identity?.["docker-reference"] ?? "";
  if (reference === "") throw new Error("signature must have an identity");
  const signed = critical.image?.["docker-manifest-digest"] ?? "";
  if (signed !== digest) throw new Error("signature digest does not match");
  return {
    digest,
    reference,
    ...(optional?.creator !== undefined && { creator: optional.creator }),
    ...(optional?.timestamp !== undefined && { timestamp: optional.timestamp }),
  };
}

/** The claim JSON a signer signs for `digest` pulled as `reference` (containers/image's field order). */
export function claimFor(digest: string, reference: string, creator: string, timestamp: number): Uint8Array {
  const claim = {
    critical: { type: ATOMIC_SIGNATURE_TYPE, image: { "docker-manifest-digest": digest }, identity: { "docker-reference": reference } },
    optional: { creator, timestamp },
  };
  return new TextEncoder().encode(JSON.stringify(claim));
}
