import { brandError, formatRef, type ObjectRef } from "../core/index.js";
import { gvkOf, type KubeObject } from "../payload/manifest.js";

/** The identity of an object as the API addresses it. */
export function refOf(obj: KubeObject): ObjectRef {
  const { group, version, kind } = gvkOf(obj);
  return { group, version, kind, namespace: obj.metadata?.namespace ?? "", name: obj.metadata?.name ?? "" };
}

/**
 * A Kubernetes API failure naming the object involved. `statusReason` is the API Status reason
 * (`NotFound`, `Conflict`, …) that the worker classifies; `code` is the HTTP status.
 */
export class ApiError extends Error {
  constructor(
    readonly object: ObjectRef,
    readonly statusReason: string,
    readonly code: number,
    detail: string,
    cause?: unknown,
  ) {
    super(`${formatRef(object)}: ${statusReason}: ${detail}`, cause === undefined ? undefined : { cause });
    this.name = "ApiError";
  }
  static {
    brandError(this, "ApiError");
  }
}
