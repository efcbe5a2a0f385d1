/** A Kubernetes object as decoded from a payload document. */
export interface KubeObject {
  apiVersion?: string;
  kind?: string;
  metadata?: {
    name?: string;
    namespace?: string;
    annotations?: Record<string, string>;
    labels?: Record<string, string>;
    [key: string]: unknown;
  };
  [key: string]: unknown;
}

export interface GroupVersionKind {
  readonly group: string;
  readonly version: string;
  readonly kind: string;
}

/** One document of a payload file, in load order. */
export interface Manifest {
  /** Base file name the document came from; drives graph grouping. */
  readonly originalFilename: string;
  /** Compact JSON (sorted keys for YAML input, verbatim for JSON input); feeds the manifest hash. */
  readonly raw: string;
  readonly gvk: GroupVersionKind;
  readonly obj: KubeObject;
}

/** A manifest the load-time filter dropped: its identity and the reason (profile, feature set, exclusion id…). */
export interface ExcludedManifest {
  readonly file: string;
  readonly gvk: GroupVersionKind;
  readonly namespace: string;
  readonly name: string;
  readonly reason: string;
}

export interface Release {
  readonly version: string;
  readonly image: string;
  readonly url: string;
  readonly channels: readonly string[];
}

/** A loaded release payload (the CVO's `payload.Update`). */
export interface PayloadUpdate {
  readonly release: Release;
  readonly architecture: string;
  readonly manifestHash: string;
  readonly manifests: readonly Manifest[];
  /** The payload's `image-references` ImageStream; its `creationTimestamp` is the release creation time. */
  readonly imageRef?: KubeObject;
  /**
   * The payload's own health rules (`release-manifests/health-rules`, the format of `--health-rules`), as text: the
   * payload is loaded in another thread and compiled rules do not cross it. The applier compiles them when the
   * payload is accepted (see ResourceApplier.forPayload).
   */
  readonly healthRules?: { readonly file: string; readonly text: string };
  /** Manifests the load-time filter dropped, in load order, with the filter's reason (a preview lists them as skipped). */
  readonly excluded?: readonly ExcludedManifest[];
  /** Set by the worker after retrieval. */
  verifiedImage: boolean;
  loadedAt?: Date;
}

/** Splits `apiVersion` into group and version ("v1" has the empty core group). */
export function gvkOf(obj: KubeObject): GroupVersionKind {
  const apiVersion = obj.apiVersion ?? "";
  const slash = apiVersion.indexOf("/");
  const group = slash < 0 ? "" : apiVersion.slice(0, slash);
  const version = slash < 0 ? apiVersion : apiVersion.slice(slash + 1);
  return { group, version, kind: obj.kind ?? "" };
}

export function nameOf(manifest: Manifest): string {
  return manifest.obj.metadata?.name ?? "";
}

export function namespaceOf(manifest: Manifest): string {
  return manifest.obj.metadata?.namespace ?? "";
}
