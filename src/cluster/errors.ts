import { brandError } from "../core/index.js";
import { gvkOf, type KubeObject } from "../payload/manifest.js";

/** Identifies a Kubernetes object in messages. */
export interface ObjectRef {
  readonly group: string;
  /** API version within the group; addressing a real API server needs it. */
  readonly version: string;
  readonly kind: string;
  readonly namespace: string;
  readonly name: string;
}

/** The identity of an object as the API addresses it. */
export function refOf(obj: KubeObject): ObjectRef {
  const { group, version, kind } = gvkOf(obj);
  return { group, version, kind, namespace: obj.metadata?.namespace ?? "", name: obj.metadata?.name ?? "" };
}

/** The key of an object among others: group, kind, namespace and name (the version does not tell objects apart). */
export function objectKey(ref: ObjectRef): string {
  return `${ref.group}/${ref.kind}/${ref.namespace}/${ref.name}`;
}

export function formatRef(ref: ObjectRef): string {
  return `${ref.kind}/${ref.namespace ? `${ref.namespace}/` : ""}${ref.name}`;
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
