/**
 * The manifest inclusion filter (library-go `Manifest.Include`, spec §1.5 plus Appendix A). One function
 * serves load time (all checks), apply time and implicit-capability detection (capabilities only): an
 * absent filter field skips that check, exactly like upstream's nil pointers.
 *
 * Rules, in upstream's order (the first failure excludes):
 * 0. no annotations; 1. exclusion id; 2. feature set and feature gate (both on one manifest is an error;
 * `release.openshift.io/feature-set` must list the cluster's set; `release.openshift.io/feature-gate` lists
 * gates that must be enabled, `-name` ones that must not); 3. major version; 4. cluster profile; 5. capabilities.
 */
import { compareGoStrings, goQuote } from "./go-json.js";
import type { GroupVersionKind, KubeObject, Manifest } from "./manifest.js";
import { parseUintError } from "./metadata.js";

/** Which checks to run; leave a field undefined to skip its check. */
export interface IncludeFilter {
  /** Excludes manifests annotated `exclude.release.openshift.io/{exclude}: "true"`. */
  exclude?: string;
  /**
   * The cluster's feature set (`FeatureGate.spec.featureSet`; "" and `Default` are the default set).
   * Drives the `feature-set` annotation.
   */
  featureSet?: string;
  /** The cluster's enabled feature gates, matched against the `feature-gate` annotation's list. */
  enabledFeatureGates?: ReadonlySet<string>;
  /** The payload's major version, matched against the `major-version` annotation's list. */
  majorVersion?: bigint;
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
/** Feature gates (comma list) a manifest needs enabled, or disabled when written `-name`. */
export const FEATURE_GATE_ANNOTATION = "release.openshift.io/feature-gate";
/** Appendix A: the feature sets (comma list) a manifest belongs to. */
export const FEATURE_SET_ANNOTATION = "release.openshift.io/feature-set";
/** Major versions (comma list, `-N` excludes) a FeatureGate or CustomResourceDefinition manifest belongs to. */
export const MAJOR_VERSION_ANNOTATION = "release.openshift.io/major-version";
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

/** Upstream `checkFeatureGates`: every listed gate enabled, every `-gate` disabled; blank entries ignored. */
function featureGateReason(enabled: ReadonlySet<string>, value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  for (const entry of value.split(",")) {
    const req = entry.trim();
    if (req === "") continue;
    if (req.startsWith("-")) {
      if (enabled.has(req.slice(1))) return `feature gate ${req.slice(1)} is enabled but manifest requires it to be disabled`;
    } else if (!enabled.has(req)) {
      return `feature gate ${req} is required but not enabled`;
    }
  }
  return undefined;
}

/** Upstream restricts major-version filtering to these kinds (`isFeatureGate`, `isCustomResource`). */
const versionFilteredKind = (gvk: GroupVersionKind): boolean =>
  (gvk.group === "config.openshift.io" && gvk.kind === "FeatureGate") || (gvk.group === "apiextensions.k8s.io" && gvk.kind === "CustomResourceDefinition");

/** Upstream `checkMajorVersion`: an overlap or a bad number excludes; a listed major includes before `-N` and "none matched". */
function majorVersionReason(gvk: GroupVersionKind, major: bigint, value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  if (!versionFilteredKind(gvk)) return "major version filtering is only supported for feature gates and custom resources";
  const included = new Set<bigint>();
  const excluded = new Set<bigint>();
  for (const entry of value.split(",")) {
    const req = entry.trim();
    if (req === "") continue;
    const [digits, into, label] = req.startsWith("-") ? [req.slice(1), excluded, "excluded"] : [req, included, "included"];
    const err = parseUintError(digits);
    if (err !== undefined) return `invalid ${label} major version ${goQuote(digits)} in annotation: ${err}`;
    into.add(BigInt(digits));
  }
  const overlap = [...included].filter((v) => excluded.has(v)).sort((a, b) => (a < b ? -1 : 1));
  if (overlap.length > 0) return `inclusion and exclusion requirements overlap: [${overlap.join(" ")}]`;
  if (included.has(major)) return undefined;
  if (excluded.has(major)) return `major version ${major} matches excluded version ${major}`;
  return included.size > 0 ? `major version ${major} does not match any required versions` : undefined;
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
  const featureSet = get(FEATURE_SET_ANNOTATION);
  const featureGate = get(FEATURE_GATE_ANNOTATION);
  if (filter.featureSet !== undefined && filter.enabledFeatureGates !== undefined && featureSet !== undefined && featureGate !== undefined) {
    return "both feature set and feature gate annotations are present: manifests may specify either a feature set or a feature gate, but not both";
  }
  const reason =
    (filter.featureSet === undefined ? undefined : featureSetReason(filter.featureSet, featureSet)) ??
    (filter.enabledFeatureGates === undefined ? undefined : featureGateReason(filter.enabledFeatureGates, featureGate)) ??
    (filter.majorVersion === undefined ? undefined : majorVersionReason(manifest.gvk, filter.majorVersion, get(MAJOR_VERSION_ANNOTATION)));
  if (reason !== undefined) return reason;
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
