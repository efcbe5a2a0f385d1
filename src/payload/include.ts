/**
 * The manifest inclusion filter (library-go `Manifest.Include`, spec §1.5 plus Appendix A). One function
 * serves load time (all checks), apply time and implicit-capability detection (capabilities only): an
 * absent filter field skips that check, exactly like upstream's nil pointers.
 *
 * Rules, in upstream's order (the first failure excludes):
 * 0. no annotations; 1. exclusion id; 2. feature set and feature gate (both on one manifest is an error;
 * `release.openshift.io/feature-set` must list the cluster's set; the seed's `feature-gate:
 * TechPreviewNoUpgrade` needs the TechPreviewNoUpgrade set); 3. cluster profile; 4. capabilities.
 */
import { compareGoStrings, goQuote } from "./go-json.js";
import type { KubeObject, Manifest } from "./manifest.js";

/** Which checks to run; leave a field undefined to skip its check. */
export interface IncludeFilter {
  /** Excludes manifests annotated `exclude.release.openshift.io/{exclude}: "true"`. */
  exclude?: string;
  /**
   * The cluster's feature set (`FeatureGate.spec.featureSet`; "" and `Default` are the default set).
   * Drives the `feature-set` annotation and the seed's `feature-gate: TechPreviewNoUpgrade` rule.
   */
  featureSet?: string;
  /** Cluster profile; requires `include.release.openshift.io/{profile}: "true"`. */
  profile?: string;
  /** Every capability a manifest names must be known, then enabled. */
  capabilities?: { known: readonly string[]; enabled: readonly string[] };
  /**
   * Upstream `IncludeAllowUnknownCapabilities`: unknown capability names are not an exclusion reason by
   * themselves (they are then checked like any other against `enabled`), so a payload of a newer release
   * that introduces capability names can be compared with the current one.
   */
  allowUnknownCapabilities?: boolean;
}

/** The capabilities a manifest belongs to, joined with `+`. */
export const CAPABILITY_ANNOTATION = "capability.openshift.io/name";
/** The seed's tech-preview marker: only the value `TechPreviewNoUpgrade` is valid. */
export const FEATURE_GATE_ANNOTATION = "release.openshift.io/feature-gate";
/** Appendix A: the feature sets (comma list) a manifest belongs to. */
export const FEATURE_SET_ANNOTATION = "release.openshift.io/feature-set";
/** The feature set that turns tech preview on. */
export const TECH_PREVIEW_NO_UPGRADE = "TechPreviewNoUpgrade";
/** The annotation's name for the API's empty feature set. */
export const DEFAULT_FEATURE_SET = "Default";

/**
 * Feature sets a manifest may name (openshift/api `AllFeatureSets()` of the 4.16 era, with "" spelled
 * `Default`, plus `CustomNoUpgrade`). Sorted, because upstream lists them sorted in its message.
 */
export const KNOWN_FEATURE_SETS: readonly string[] = ["CustomNoUpgrade", "Default", "DevPreviewNoUpgrade", "TechPreviewNoUpgrade"];

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

/** Go `sets.List`: distinct values in byte order. */
const sortedUnique = (values: readonly string[]): string[] => [...new Set(values)].sort(compareGoStrings);

/** Upstream `checkFeatureSets`: an annotated manifest must list the cluster's set, and only known sets. */
function featureSetReason(featureSet: string, value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const required = featureSet === "" ? DEFAULT_FEATURE_SET : featureSet;
  const listed = value.split(",");
  const unknown = listed.find((s) => !KNOWN_FEATURE_SETS.includes(s));
  if (unknown !== undefined) {
    return `unrecognized value ${goQuote(unknown)} in ${FEATURE_SET_ANNOTATION}=${value}; known values are: ${KNOWN_FEATURE_SETS.join(",")}`;
  }
  if (!listed.includes(required)) return `${goQuote(required)} is required, and ${FEATURE_SET_ANNOTATION}=${sortedUnique(listed).join(",")}`;
  return undefined;
}

/** The seed's feature-gate rule: only `TechPreviewNoUpgrade` is a valid value, and only that set includes it. */
function featureGateReason(featureSet: string, value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  if (value !== TECH_PREVIEW_NO_UPGRADE) return `unrecognized value ${FEATURE_GATE_ANNOTATION}=${value}`;
  if (featureSet !== TECH_PREVIEW_NO_UPGRADE) return `tech-preview excluded, and ${FEATURE_GATE_ANNOTATION}=${value}`;
  return undefined;
}

/** Upstream `checkResourceEnablement`: unknown names first (unless allowed), then disabled ones. */
function capabilityReason(caps: readonly string[], filter: NonNullable<IncludeFilter["capabilities"]>, allowUnknown: boolean): string | undefined {
  const unknown: string[] = [];
  const disabled: string[] = [];
  for (const c of caps) {
    if (!allowUnknown && !filter.known.includes(c)) unknown.push(c);
    else if (!filter.enabled.includes(c)) disabled.push(c);
  }
  if (unknown.length > 0) return `unrecognized capability names: ${unknown.join(", ")}`;
  if (disabled.length > 0) return `disabled capabilities: ${disabled.join(", ")}`;
  return undefined;
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
  if (filter.featureSet !== undefined) {
    const featureSet = get(FEATURE_SET_ANNOTATION);
    const featureGate = get(FEATURE_GATE_ANNOTATION);
    if (featureSet !== undefined && featureGate !== undefined) {
      return "both feature set and feature gate annotations are present: manifests may specify either a feature set or a feature gate, but not both";
    }
    const reason = featureSetReason(filter.featureSet, featureSet) ?? featureGateReason(filter.featureSet, featureGate);
    if (reason !== undefined) return reason;
  }
  if (filter.profile !== undefined) {
    const key = `include.release.openshift.io/${filter.profile}`;
    const v = get(key);
    if (v === undefined) return `${key} unset`;
    if (v !== "true") return `unrecognized value ${key}=${v}`;
  }
  if (filter.capabilities !== undefined) {
    return capabilityReason(manifestCapabilities(manifest), filter.capabilities, filter.allowUnknownCapabilities ?? false);
  }
  return undefined;
}
