import type { KubeObject } from "../payload/manifest.js";
import type { ObjectRef } from "../core/index.js";

/**
 * The few object operations the applier needs, implemented by the embedded cluster and by the
 * Kubernetes client. Failures are `ApiError`s carrying the API Status reason.
 */
export interface ObjectClient {
  /** The live object, or undefined when it does not exist. */
  get(ref: ObjectRef, signal: AbortSignal): Promise<KubeObject | undefined>;
  /** Server-side apply with our field manager; returns the object as stored. */
  apply(obj: KubeObject, signal: AbortSignal): Promise<KubeObject>;
  /** The same apply as a dry run (`dryRun=All`): the object as it would be stored, with nothing written. */
  dryRunApply(obj: KubeObject, signal: AbortSignal): Promise<KubeObject>;
  /** Creates the object; "exists" when it already did. */
  create(obj: KubeObject, signal: AbortSignal): Promise<"created" | "exists">;
  delete(ref: ObjectRef, signal: AbortSignal): Promise<void>;
  /** Merges `status` into the status subresource. */
  patchStatus(ref: ObjectRef, status: Record<string, unknown>, signal: AbortSignal): Promise<void>;
}
