import { exclusionReason } from "../payload/include.js";
import { type Manifest, namespaceOf, nameOf } from "../payload/manifest.js";
import { capabilitiesStatus, type ClusterCapabilities } from "./capabilities.js";
import { objectKey } from "../core/index.js";

function capabilityList(m: Manifest): string[] {
  const value = m.obj.metadata?.annotations?.["capability.openshift.io/name"] ?? "";
  return value ? value.split("+") : [];
}

function resourceId(m: Manifest): string {
  return objectKey({ ...m.gvk, namespace: namespaceOf(m), name: nameOf(m) });
}

/**
 * Capabilities that must stay on because a resource installed today would otherwise vanish in the
 * new payload (CVO `GetImplicitlyEnabledCapabilities`).
 */
export function implicitlyEnabledCapabilities(updated: readonly Manifest[], current: readonly Manifest[], caps: ClusterCapabilities): string[] {
  const filter = { capabilities: capabilitiesStatus(caps) };
  const result = [...caps.implicitlyEnabled];
  const currentById = new Map<string, Manifest[]>();
  for (const c of current) currentById.set(resourceId(c), [...(currentById.get(resourceId(c)) ?? []), c]);
  for (const u of updated) {
    if (exclusionReason(u, filter) === undefined) continue;
    for (const c of currentById.get(resourceId(u)) ?? []) {
      if (exclusionReason(c, filter) !== undefined) continue;
      const had = capabilityList(c);
      for (const cap of capabilityList(u)) {
        if (!had.includes(cap) && !caps.enabled.has(cap) && !result.includes(cap)) result.push(cap);
      }
    }
  }
  return result;
}
