/**
 * Preview: what an Update would do, asked before it is made. Retrieves and loads the payload as the Update would and
 * computes its plan against the live cluster ({@link computePlan}), writing nothing.
 */
import type { PayloadUpdate, Release } from "../../payload/manifest.js";
import { verifyPayloadVersion } from "../../payload/load.js";
import type { PayloadAccess } from "../../payload/retrieval-port.js";
import { setCapabilities, type CapabilitiesSpec, type ComponentOverride } from "../../policy/index.js";
import type { DesiredUpdate } from "../types.js";
import {
  computePlan,
  effectiveLimits,
  limitViolations,
  PlanError,
  planScope,
  type BlastRadiusLimits,
  type Plan,
  type PlanDeps,
  type PlannedObject,
} from "./plan.js";

/** What a Preview asks about: an Update's release, overrides, capabilities and limits. */
export interface PreviewInput {
  readonly desired: DesiredUpdate;
  readonly overrides: readonly ComponentOverride[];
  readonly capabilities: CapabilitiesSpec;
  readonly limits?: BlastRadiusLimits;
}

export interface PreviewResult {
  readonly plan: Plan;
  readonly release: Release;
  /** The effective limits the plan exceeds (the request's over the server's defaults). */
  readonly limitViolations: readonly string[];
}

/** The worker's state a preview starts from: its loaded payload and the capabilities it has enabled. */
export interface PreviewBase {
  readonly payload: PayloadUpdate | undefined;
  readonly enabled: ReadonlySet<string>;
}

/**
 * Retrieves and loads the payload as an Update would (same retriever, loader and filters), then computes its
 * plan against the live cluster. Writes nothing and reports nothing to the worker's status.
 */
export async function previewUpdate(
  deps: PayloadAccess & PlanDeps,
  base: PreviewBase,
  input: PreviewInput,
  onObject: (object: PlannedObject) => void,
  signal: AbortSignal,
): Promise<PreviewResult> {
  const planner = deps.planner;
  if (!planner) throw new PlanError("PlanUnavailable", "", "this service cannot compute plans: its cluster has no dry-run planner");
  const info = await deps.retriever.retrieve(input.desired, signal);
  const loaded = await deps.loadPayload(info, input.desired.image, signal);
  verifyPayloadVersion(loaded, input.desired.version);
  const capabilities = setCapabilities(input.capabilities, base.enabled, deps.featureGates);
  const plan = await computePlan(loaded, planScope(loaded, base.payload, capabilities, input.overrides), planner, onObject, signal);
  return { plan, release: loaded.release, limitViolations: limitViolations(plan, effectiveLimits(input.limits, deps.limits)) };
}
