/**
 * The one error type the payload room throws (style: one typed error per boundary). It is an
 * {@link UpdateError}, so the worker and the status derivation treat it exactly as upstream treats the
 * error it stands for: manifest failures keep reason `UpdatePayloadIntegrity`, retrieval failures
 * `UpdatePayloadRetrievalFailed`. The failures upstream returns as plain errors (metadata, missing files) get a
 * reason of their own, so a load failure never shows an empty one; a version mismatch and a missing image keep
 * the empty reason and effect, which every consumer reads as "plain".
 */
import { UpdateError, brandError } from "../core/index.js";

/** The seed's load steps (`LoadPayloadStatus.step`) a payload failure can belong to. */
export type PayloadStep = "RetrievePayload" | "LoadPayload" | "VerifyPayloadVersion";

/** What went wrong, as a closed set; {@link PAYLOAD_ERROR_POLICY} maps each to its step and reason. */
export type PayloadErrorKind =
  /** The desired release names no image, so there is nothing to retrieve. */
  | "NoImage"
  /** The payload could not be made available locally (bad location, not a directory, download failed). */
  | "Retrieval"
  /** A payload directory outside every payload root the service was given (`--payload-root`). */
  | "OutsideRoot"
  /** The release image's signatures could not be verified and the update was not forced. */
  | "Verification"
  /** `ValidateDirectory`: a required directory or file is missing or unreadable. */
  | "MissingFile"
  /** `release-metadata` is not valid Cincinnati metadata. */
  | "ReleaseMetadata"
  /** `image-references` is not a v1 ImageStream named like the release. */
  | "ImageReferences"
  /** One or more manifest files could not be read, rendered or parsed. */
  | "Manifests"
  /** The payload's version is not the requested one. */
  | "VersionMismatch"
  /** `release-manifests/health-rules` is unreadable, or its rules do not compile. */
  | "HealthRules"
  /** Loading took longer than its deadline. */
  | "Timeout"
  /** An unexpected failure while loading (normalised by {@link PayloadError.from}). */
  | "Internal";

/** Error policy as data: which step reports a kind, and the UpdateError reason upstream gives it. */
export const PAYLOAD_ERROR_POLICY: Readonly<Record<PayloadErrorKind, { readonly step: PayloadStep; readonly reason: string }>> = {
  NoImage: { step: "RetrievePayload", reason: "" },
  Retrieval: { step: "RetrievePayload", reason: "UpdatePayloadRetrievalFailed" },
  OutsideRoot: { step: "RetrievePayload", reason: "UpdatePayloadRetrievalFailed" },
  Verification: { step: "RetrievePayload", reason: "ImageVerificationFailed" },
  MissingFile: { step: "LoadPayload", reason: "UpdatePayloadIncomplete" },
  ReleaseMetadata: { step: "LoadPayload", reason: "ReleaseMetadataInvalid" },
  ImageReferences: { step: "LoadPayload", reason: "ImageReferencesInvalid" },
  Manifests: { step: "LoadPayload", reason: "UpdatePayloadIntegrity" },
  VersionMismatch: { step: "VerifyPayloadVersion", reason: "" },
  HealthRules: { step: "LoadPayload", reason: "HealthRulesInvalid" },
  Timeout: { step: "LoadPayload", reason: "UpdatePayloadLoadTimeout" },
  Internal: { step: "LoadPayload", reason: "UpdatePayloadLoadFailed" },
};

/** One failing place in a payload. */
export interface PayloadProblem {
  /** Path relative to the payload root, e.g. `release-manifests/0000_50_x.yaml`; "" when no file is involved. */
  readonly file: string;
  /** 1-based position of the failing document within the file (YAML `---` sections or JSON values). */
  readonly document?: number;
  /** 1-based line within the file (of the document, or of the syntax error when known). */
  readonly line?: number;
  /** What is wrong there, in upstream's words. */
  readonly message: string;
}

/** Constructor argument of {@link PayloadError}. */
export interface PayloadErrorInit {
  readonly kind: PayloadErrorKind;
  /** The whole message (upstream's text for the failure, e.g. `Error loading manifests from D: [...]`). */
  readonly message: string;
  /** Every failing place; the first one is also exposed as `file`, `document` and `line`. */
  readonly problems?: readonly PayloadProblem[];
  readonly cause?: unknown;
}

/**
 * A payload that cannot be retrieved, loaded or accepted. Immutable and safe to share; `instanceof`
 * works across duplicate module copies and after crossing the loader thread (see `threaded-loader.ts`).
 */
export class PayloadError extends UpdateError {
  readonly kind: PayloadErrorKind;
  readonly step: PayloadStep;
  readonly problems: readonly PayloadProblem[];

  constructor(init: PayloadErrorInit) {
    const policy = PAYLOAD_ERROR_POLICY[init.kind];
    super({ reason: policy.reason, message: init.message, cause: init.cause });
    this.name = "PayloadError";
    this.kind = init.kind;
    this.step = policy.step;
    this.problems = Object.freeze([...(init.problems ?? [])]);
  }

  /** The first failing file ("" when none). */
  get file(): string {
    return this.problems[0]?.file ?? "";
  }

  /** The first failing document's 1-based index, when one document is to blame. */
  get document(): number | undefined {
    return this.problems[0]?.document;
  }

  /** The first failing line, when known. */
  get line(): number | undefined {
    return this.problems[0]?.line;
  }

  static {
    brandError(this, "PayloadError");
  }

  /**
   * Normalises anything thrown while handling a payload: a PayloadError passes through, anything else
   * becomes `kind` (default `Internal`) with the original as `cause`, so callers only ever see this type.
   */
  static from(err: unknown, kind: PayloadErrorKind = "Internal", file = ""): PayloadError {
    if (err instanceof PayloadError) return err;
    const message = err instanceof Error ? err.message : String(err);
    return new PayloadError({ kind, message, problems: [{ file, message }], cause: err });
  }
}

/** The message of anything thrown: an Error's own, else its text. */
export function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
