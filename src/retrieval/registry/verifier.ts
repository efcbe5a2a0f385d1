/**
 * The seam between pulling a release image and verifying its signatures (issue 12 parts 1 and 2). The
 * registry retriever knows the manifest digest of what it pulled and asks an injected {@link ImageVerifier}
 * about it; `src/payload/verify/` supplies the real one (simple-signing signatures checked against
 * `--verification-keys`). The retriever, not the verifier, turns a failed verification into the CVO's
 * `ImageVerificationFailed` error or, with `force`, into `verified: false` plus `verificationError`
 * (upstream `pkg/cvo/updatepayload.go`), so a verifier only answers the question.
 */

/** A verifier's answer about one image. */
export interface VerificationResult {
  /** True only when a trusted signature names exactly this digest. */
  readonly verified: boolean;
  /**
   * Why the image is not verified. Absent with `verified: false` means verification was not configured
   * (no keys: upstream skips it and the image proceeds unverified); present means it was refused.
   */
  readonly error?: Error;
}

/**
 * Checks the signatures of the release image whose manifest digest is `digest` (`sha256:<hex>`).
 * `reference` is the pull spec by digest (`host/repo@sha256:…`), so a verifier that reads signatures
 * from the registry (`sha256-<hex>.sig`) knows where. Must honour `signal`; should answer with
 * `error` rather than throw (a throw is treated as a refusal naming the thrown error).
 */
export type ImageVerifier = (digest: string, reference: string, signal: AbortSignal) => Promise<VerificationResult>;

/** No keys configured: every image is unverified and none is refused, as upstream without a verifier. */
export const UNVERIFIED: ImageVerifier = async () => ({ verified: false });
