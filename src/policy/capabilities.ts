/**
 * Optional capabilities (CVO `lib/capability`). The table follows the release era of the payloads we
 * serve (OpenShift 4.16): the 4.12-era seed only knew three names, which would drop every Console,
 * Ingress or ImageRegistry manifest of a 4.16 payload as "unrecognized".
 */
const SETS_IN_ORDER: ReadonlyArray<readonly [string, readonly string[]]> = [
  ["v4.11", ["baremetal", "marketplace", "openshift-samples"]],
  ["v4.12", ["Console", "Insights", "Storage", "CSISnapshot"]],
  ["v4.13", ["NodeTuning"]],
  ["v4.14", ["MachineAPI", "Build", "DeploymentConfig", "ImageRegistry"]],
  ["v4.15", ["OperatorLifecycleManager", "CloudCredential"]],
  ["v4.16", ["CloudControllerManager", "Ingress"]],
];

function buildSets(): ReadonlyMap<string, readonly string[]> {
  const sets = new Map<string, readonly string[]>([["None", []]]);
  let cumulative: string[] = [];
  for (const [name, added] of SETS_IN_ORDER) {
    cumulative = [...cumulative, ...added];
    sets.set(name, cumulative);
  }
  sets.set("vCurrent", cumulative);
  return sets;
}

/** Capability sets by name (`None`, `v4.11` … `v4.16`, `vCurrent`). */
export const CAPABILITY_SETS: ReadonlyMap<string, readonly string[]> = buildSets();

/** Every capability this release knows. */
export const KNOWN_CAPABILITIES: readonly string[] = [...(CAPABILITY_SETS.get("vCurrent") ?? [])].sort();

export const DEFAULT_CAPABILITY_SET = "vCurrent";

/** What the client asked for (configv1.ClusterVersionCapabilitiesSpec). */
export interface CapabilitiesSpec {
  readonly baselineCapabilitySet: string;
  readonly additionalEnabledCapabilities: readonly string[];
}

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

/**
 * Computes capabilities from the spec; anything enabled before stays enabled (implicitly), because
 * capabilities can never be turned off once on.
 */
export function setCapabilities(spec: CapabilitiesSpec, priorEnabled: ReadonlySet<string>): ClusterCapabilities {
  const baseline = spec.baselineCapabilitySet || DEFAULT_CAPABILITY_SET;
  const enabled = new Set<string>([...(CAPABILITY_SETS.get(baseline) ?? []), ...spec.additionalEnabledCapabilities]);
  const implicitlyEnabled: string[] = [];
  for (const cap of priorEnabled) {
    if (!enabled.has(cap)) {
      implicitlyEnabled.push(cap);
      enabled.add(cap);
    }
  }
  return { known: new Set(KNOWN_CAPABILITIES), enabled, implicitlyEnabled };
}

/** Replaces the implicit list and enables each of its capabilities. */
export function setFromImplicitlyEnabled(implicit: readonly string[], caps: ClusterCapabilities): ClusterCapabilities {
  return { known: caps.known, enabled: new Set([...caps.enabled, ...implicit]), implicitlyEnabled: [...implicit] };
}

/** Compares only the enabled sets, as upstream does. */
export function equalCapabilities(a: ClusterCapabilities, b: ClusterCapabilities): boolean {
  return a.enabled.size === b.enabled.size && [...a.enabled].every((cap) => b.enabled.has(cap));
}

export function capabilitiesStatus(caps: ClusterCapabilities): CapabilitiesStatus {
  return { enabled: [...caps.enabled].sort(), known: [...caps.known].sort() };
}

export const NO_CAPABILITIES: ClusterCapabilities = { known: new Set(), enabled: new Set(), implicitlyEnabled: [] };
