/**
 * The manifest inclusion filter (library-go `Manifest.Include`, spec §1.5). One function serves load time
 * (all checks), apply time and implicit-capability detection (capabilities only): an absent filter field
 * skips that check, exactly like upstream's nil pointers.
 */
import type { KubeObject, Manifest } from "./manifest.js";

/** Which checks to run; leave a field undefined to skip its check. */
export interface IncludeFilter {
  /** Excludes manifests annotated `exclude.release.openshift.io/{exclude}: "true"`. */
  exclude?: string;
  /** Whether `release.openshift.io/feature-gate: TechPreviewNoUpgrade` manifests are included. */
  includeTechPreview?: boolean;
  /** Cluster profile; requires `include.release.openshift.io/{profile}: "true"`. */
  profile?: string;
  /** Every capability a manifest names must be known, then enabled. */
  capabilities?: { known: readonly string[]; enabled: readonly string[] };
}

export const CAPABILITY_ANNOTATION = "capability.openshift.io/name";
export const FEATURE_GATE_ANNOTATION = "release.openshift.io/feature-gate";
export const TECH_PREVIEW_NO_UPGRADE = "TechPreviewNoUpgrade";

/**
 * Annotations as `Unstructured.GetAnnotations()` sees them: undefined unless `metadata.annotations` is a
 * map whose values are all strings (an empty map still counts as annotations).
 */
export function annotationsOf(obj: KubeObject): Readonly<Record<string, string>> | undefined {
  const a: unknown = obj.metadata?.annotations;
  if (typeof a !== "object" || a === null || Array.isArray(a)) return undefined;
  return Object.values(a).every((v) => typeof v === "string") ? (a as Record<string, string>) : undefined;
}

/** The capabilities a manifest belongs to: its annotation split on `+` (empty value: none). */
export function manifestCapabilities(manifest: Manifest): string[] {
  const v = annotationsOf(manifest.obj)?.[CAPABILITY_ANNOTATION];
  return v ? v.split("+") : [];
}

/**
 * Why `manifest` is excluded by `filter`, in upstream's check order and words, or undefined when it is
 * included. Pure; safe to call from any number of concurrent tasks.
 */
export function exclusionReason(manifest: Manifest, filter: IncludeFilter): string | undefined {
  const annotations = annotationsOf(manifest.obj);
  if (!annotations) return "no annotations";
  const get = (key: string): string | undefined => (Object.hasOwn(annotations, key) ? annotations[key] : undefined);

  if (filter.exclude !== undefined) {
    const key = `exclude.release.openshift.io/${filter.exclude}`;
    if (get(key) === "true") return `${key}=true`;
  }
  if (filter.includeTechPreview !== undefined) {
    const v = get(FEATURE_GATE_ANNOTATION);
    if (v === TECH_PREVIEW_NO_UPGRADE && !filter.includeTechPreview) return `tech-preview excluded, and ${FEATURE_GATE_ANNOTATION}=${v}`;
    // Only TechPreviewNoUpgrade is a valid value; anything else never applies.
    if (v !== undefined && v !== TECH_PREVIEW_NO_UPGRADE) return `unrecognized value ${FEATURE_GATE_ANNOTATION}=${v}`;
  }
  if (filter.profile !== undefined) {
    const key = `include.release.openshift.io/${filter.profile}`;
    const v = get(key);
    if (v === undefined) return `${key} unset`;
    if (v !== "true") return `unrecognized value ${key}=${v}`;
  }
  if (filter.capabilities !== undefined) {
    const caps = manifestCapabilities(manifest);
    const unknown = caps.filter((c) => !filter.capabilities?.known.includes(c));
    if (unknown.length > 0) return `unrecognized capability names: ${unknown.join(", ")}`;
    const disabled = caps.filter((c) => !filter.capabilities?.enabled.includes(c));
    if (disabled.length > 0) return `disabled capabilities: ${disabled.join(", ")}`;
  }
  return undefined;
}
