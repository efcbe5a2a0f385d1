/**
 * The policy's records that outlive a process (saved with the service state), declared once: each type is the
 * schema's output, so a new field is one line here and the saved format follows.
 */
import { z } from "zod";
import { RISK_NAMES, type Frozen } from "../core/index.js";

/** Marks one payload object as unmanaged (configv1.ComponentOverride). */
export const componentOverrideShape = z.strictObject({
  kind: z.string(),
  group: z.string(),
  namespace: z.string(),
  name: z.string(),
  unmanaged: z.boolean(),
});
export type ComponentOverride = Frozen<z.output<typeof componentOverrideShape>>;

/** What the client asked for (configv1.ClusterVersionCapabilitiesSpec). */
export const capabilitiesSpecShape = z.strictObject({
  baselineCapabilitySet: z.string(),
  additionalEnabledCapabilities: z.array(z.string()),
});
export type CapabilitiesSpec = Frozen<z.output<typeof capabilitiesSpecShape>>;

/** One failed check as the load status lists it, with whether it stops the update (unless forced). */
export const preconditionResultShape = z.strictObject({
  name: z.string(),
  reason: z.string(),
  message: z.string(),
  blocking: z.boolean(),
  /** The risk an Update names to pass this check; absent for a check with no name (only force passes it). */
  risk: z.enum(RISK_NAMES).optional(),
  /** A blocking failure the update was accepted despite (its risk named, or forced). */
  accepted: z.boolean().optional(),
});
export type PreconditionResult = Frozen<z.output<typeof preconditionResultShape>>;
