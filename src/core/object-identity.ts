/** Identifies a Kubernetes object in messages. */
export interface ObjectRef {
  readonly group: string;
  /** API version within the group; addressing a real API server needs it. */
  readonly version: string;
  readonly kind: string;
  readonly namespace: string;
  readonly name: string;
}

/** The key of an object among others: group, kind, namespace and name (the version does not tell objects apart). */
export function objectKey(ref: Pick<ObjectRef, "group" | "kind" | "namespace" | "name">): string {
  return `${ref.group}/${ref.kind}/${ref.namespace}/${ref.name}`;
}

export function formatRef(ref: Pick<ObjectRef, "kind" | "namespace" | "name">): string {
  return `${ref.kind}/${ref.namespace ? `${ref.namespace}/` : ""}${ref.name}`;
}

/**
 * Whether a group, version and kind name a ClusterOperator: `config.openshift.io/v1`, the one version the CVO
 * treats as a ClusterOperator (its builder is registered for that GVK only), so the version counts.
 */
export function isClusterOperator(gvk: Pick<ObjectRef, "group" | "version" | "kind">): boolean {
  return gvk.group === "config.openshift.io" && gvk.version === "v1" && gvk.kind === "ClusterOperator";
}
