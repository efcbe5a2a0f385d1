/**
 * Optional capabilities (CVO `lib/capability`, openshift/api `ClusterVersionCapabilitySets` at its HEAD).
 */
import type { CapabilitiesSpec } from "./shapes.js";

/** The baseline set names in upstream's order (its enum); v4.17 introduced nothing. */
const SET_NAMES = ["None", "v4.11", "v4.12", "v4.13", "v4.14", "v4.15", "v4.16", "v4.17", "v4.18", "vCurrent"] as const;

type SetName = (typeof SET_NAMES)[number];

/**
 * Every baseline set upstream defines holds each capability introduced in it or an earlier set, so one
 * row per capability, naming the set that introduced it, derives all of them. `gates`: the capability
 * exists only while one of these feature gates is enabled (CVO `featureGatedCapabilities`).
 */
const CAPABILITIES: ReadonlyArray<{ readonly name: string; readonly since: Exclude<SetName, "None">; readonly gates?: readonly string[] }> = [
  { name: "baremetal", since: "v4.11" },
  { name: "marketplace", since: "v4.11" },
  { name: "openshift-samples", since: "v4.11" },
  { name: "MachineAPI", since: "v4.11" },
  { name: "Console", since: "v4.12" },
  { name: "Insights", since: "v4.12" },
  { name: "Storage", since: "v4.12" },
  { name: "CSISnapshot", since: "v4.12" },
  { name: "NodeTuning", since: "v4.13" },
  { name: "Build", since: "v4.14" },
  { name: "DeploymentConfig", since: "v4.14" },
  { name: "ImageRegistry", since: "v4.14" },
  { name: "OperatorLifecycleManager", since: "v4.15" },
  { name: "CloudCredential", since: "v4.15" },
  { name: "Ingress", since: "v4.16" },
  { name: "CloudControllerManager", since: "v4.16" },
  { name: "OperatorLifecycleManagerV1", since: "v4.18" },
  { name: "CompatibilityRequirements", since: "vCurrent", gates: ["CRDCompatibilityRequirementOperator", "ClusterAPIMachineManagement"] },
  { name: "ClusterAPI", since: "vCurrent", gates: ["ClusterAPIMachineManagement"] },
];

/** Capability sets by name (`None`, `v4.11` … `v4.18`, `vCurrent`). */
export const CAPABILITY_SETS: ReadonlyMap<string, readonly string[]> = new Map(
  SET_NAMES.map((set, i) => [set, CAPABILITIES.filter((c) => SET_NAMES.indexOf(c.since) <= i).map((c) => c.name)]),
);

/** Every capability this release knows, gated ones included (openshift/api `KnownClusterVersionCapabilities`). */
export const KNOWN_CAPABILITIES: readonly string[] = CAPABILITIES.map((c) => c.name).sort();

/**
 * Feature gates that make gated capabilities available, by feature set (openshift/api `features.go`:
 * both gates are enabled in TechPreviewNoUpgrade and DevPreviewNoUpgrade). A CustomNoUpgrade cluster
 * names its gates itself.
 */
const GATES_BY_FEATURE_SET: Readonly<Record<string, readonly string[]>> = {
  TechPreviewNoUpgrade: ["CRDCompatibilityRequirementOperator", "ClusterAPIMachineManagement"],
  DevPreviewNoUpgrade: ["CRDCompatibilityRequirementOperator", "ClusterAPIMachineManagement"],
};

/** The capability-gating feature gates a feature set enables. */
export function enabledFeatureGates(featureSet: string): ReadonlySet<string> {
  return new Set(GATES_BY_FEATURE_SET[featureSet] ?? []);
}

/** Capabilities none of whose gates is enabled (CVO `excludedCapabilities`). */
function gatedOff(gates: ReadonlySet<string>): ReadonlySet<string> {
  return new Set(CAPABILITIES.filter((c) => c.gates && !c.gates.some((g) => gates.has(g))).map((c) => c.name));
}

/** The capabilities a cluster with these feature gates knows. */
export function knownCapabilities(gates: ReadonlySet<string>): string[] {
  const off = gatedOff(gates);
  return KNOWN_CAPABILITIES.filter((c) => !off.has(c));
}

export const DEFAULT_CAPABILITY_SET = "vCurrent";

export type { CapabilitiesSpec };

/** The worker's view of capabilities (`capability.ClusterCapabilities`). */
export interface ClusterCapabilities {
  readonly known: ReadonlySet<string>;
  readonly enabled: ReadonlySet<string>;
  readonly implicitlyEnabled: readonly string[];
}

export interface CapabilitiesStatus {
  readonly enabled: readonly string[];
  readonly known: readonly string[];
}

export function isKnownCapabilitySet(name: string): boolean {
  return name === "" || CAPABILITY_SETS.has(name);
}

const KNOWN = new Set(KNOWN_CAPABILITIES);

/**
 * Whether this release knows the capability. Only known names are ever enabled, shown or made metric series: each
 * name costs a status entry and a `cluster_version_capability` series, and requests and payloads may name any.
 */
export function isKnownCapability(name: string): boolean {
  return KNOWN.has(name);
}

/** The names in `names` this release does not know, in order, each once. */
export function unknownCapabilities(names: Iterable<string>): string[] {
  return [...new Set([...names].filter((name) => !isKnownCapability(name)))];
}

/**
 * Computes capabilities from the spec; anything enabled before stays enabled (implicitly), because
 * capabilities can never be turned off once on. Capabilities whose feature gates are all off are
 * neither known nor enabled (CVO `SetCapabilities`), nor are names this release does not know (a
 * state saved before names were checked may hold some).
 */
export function setCapabilities(spec: CapabilitiesSpec, priorEnabled: ReadonlySet<string>, gates: ReadonlySet<string> = new Set()): ClusterCapabilities {
  const off = new Set([...gatedOff(gates), ...unknownCapabilities([...spec.additionalEnabledCapabilities, ...priorEnabled])]);
  const baseline = spec.baselineCapabilitySet || DEFAULT_CAPABILITY_SET;
  const enabled = new Set<string>([...(CAPABILITY_SETS.get(baseline) ?? []), ...spec.additionalEnabledCapabilities]);
  const implicitlyEnabled: string[] = [];
  for (const cap of priorEnabled) {
    if (!enabled.has(cap)) {
      implicitlyEnabled.push(cap);
      enabled.add(cap);
    }
  }
  return {
    known: new Set(knownCapabilities(gates)),
    enabled: new Set([...enabled].filter((c) => !off.has(c))),
    implicitlyEnabled: implicitlyEnabled.filter((c) => !off.has(c)),
  };
}

/** Replaces the implicit list and enables each of its capabilities the cluster knows (a payload's annotations may name any). */
export function setFromImplicitlyEnabled(implicit: readonly string[], caps: ClusterCapabilities): ClusterCapabilities {
  const known = implicit.filter((c) => caps.known.has(c));
  return { known: caps.known, enabled: new Set([...caps.enabled, ...known]), implicitlyEnabled: known };
}

/** Compares only the enabled sets, as upstream does. */
export function equalCapabilities(a: ClusterCapabilities, b: ClusterCapabilities): boolean {
  return a.enabled.size === b.enabled.size && [...a.enabled].every((cap) => b.enabled.has(cap));
}

export function capabilitiesStatus(caps: ClusterCapabilities): CapabilitiesStatus {
  return { enabled: [...caps.enabled].sort(), known: [...caps.known].sort() };
}

export const NO_CAPABILITIES: ClusterCapabilities = { known: new Set(), enabled: new Set(), implicitlyEnabled: [] };
