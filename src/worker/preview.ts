import type { PayloadUpdate, Release } from "../payload/manifest.js";
import { verifyPayloadVersion } from "../payload/load.js";
import { UpdateError } from "../core/index.js";
import {
  implicitlyEnabledCapabilities,
  setCapabilities,
  setFromImplicitlyEnabled,
  type CapabilitiesSpec,
  type ClusterCapabilities,
  type ComponentOverride,
} from "../policy/index.js";
import type { PayloadAccess } from "../payload/index.js";
import { computePlan, effectiveLimits, hasLimits, limitViolations, PlanError, type BlastRadiusLimits, type ObjectPlanner, type Plan, type PlannedObject, type PlanScope, type UpdateControls } from "./plan.js";
import type { DesiredUpdate } from "./types.js";

/** What plans need of the worker's dependencies. */
export interface PlanDeps {
  /** Computes objects' effects on the cluster without writing; absent, no plan can be computed. */
  readonly planner?: ObjectPlanner;
  /** The server's default blast-radius limits; a request's own fields take precedence. */
  readonly limits?: BlastRadiusLimits;
  /** The cluster's enabled feature gates, for the feature-gated capabilities. */
  readonly featureGates?: ReadonlySet<string>;
}

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
 * The overrides and capabilities an apply of `loaded` would run with: the capabilities the previous payload's
 * resources keep enabled implicitly are added, as the worker adds them once the payload is accepted.
 */
export function planScope(loaded: PayloadUpdate, current: PayloadUpdate | undefined, capabilities: ClusterCapabilities, overrides: readonly ComponentOverride[]): PlanScope {
  const implicit = current ? implicitlyEnabledCapabilities(loaded.manifests, current.manifests, capabilities) : capabilities.implicitlyEnabled;
  return { overrides, capabilities: setFromImplicitlyEnabled(implicit, capabilities) };
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

/** How many previews' images a worker remembers: far more than one person or script previews before applying. */
const REMEMBERED_PREVIEWS = 32;

/**
 * The release image of each recent preview by its plan digest, so that an update refused because its image is not
 * the previewed one (a tag that moved since) names both. Memory only: after a restart or a change of leader the
 * update is refused all the same, naming its own image only.
 */
export class PreviewedImages {
  readonly #images = new Map<string, string>();

  record(planDigest: string, image: string): void {
    this.#images.delete(planDigest);
    this.#images.set(planDigest, image);
    for (const oldest of this.#images.keys()) {
      if (this.#images.size <= REMEMBERED_PREVIEWS) break;
      this.#images.delete(oldest);
    }
  }

  imageOf(planDigest: string): string | undefined {
    return this.#images.get(planDigest);
  }
}

/**
 * The plan check before a payload is accepted (at PreconditionChecks): with blast-radius limits or an expected
 * plan digest, the plan is computed again; a digest that differs refuses the update, and so does a limit it
 * exceeds unless the update is forced (then the excess is an accepted risk). Nothing is computed when neither
 * is asked for.
 */
export async function checkPlan(
  deps: PlanDeps,
  loaded: PayloadUpdate,
  scope: PlanScope,
  work: UpdateControls & { readonly desired: DesiredUpdate },
  previewed: PreviewedImages,
  signal: AbortSignal,
): Promise<{ readonly failure?: UpdateError; readonly risk?: string }> {
  const limits = effectiveLimits(work.limits, deps.limits);
  const expected = work.expectedPlanDigest ?? "";
  if (!hasLimits(limits) && expected === "") return {};
  const failed = (reason: string, message: string, cause?: unknown): { failure: UpdateError } => ({
    failure: new UpdateError({ reason, message, name: "PreconditionCheck", ...(cause === undefined ? {} : { cause }) }),
  });
  if (!deps.planner) return failed("PlanUnavailable", "PreconditionChecks: this service cannot compute plans for blast-radius limits or an expected plan digest");
  let plan: Plan;
  try {
    plan = await computePlan(loaded, scope, deps.planner, () => undefined, signal);
  } catch (err) {
    signal.throwIfAborted();
    return failed("PlanFailed", `PreconditionChecks: the update's plan could not be computed: ${err instanceof Error ? err.message : String(err)}`, err);
  }
  if (expected !== "" && plan.digest !== expected) {
    const image = loaded.release.image;
    const previewedImage = previewed.imageOf(expected);
    if (previewedImage !== undefined && previewedImage !== image) {
      return failed(
        "PlanDigestMismatch",
        `PreconditionChecks: the release image is not the one previewed: plan digest ${expected} was previewed with ${previewedImage}, this update's image is ${image} (plan digest ${plan.digest}); a tag that moved since the preview names another digest: preview again, or update by the previewed image to apply what was previewed`,
      );
    }
    return failed(
      "PlanDigestMismatch",
      `PreconditionChecks: the plan changed since it was previewed: expected plan digest ${expected}, computed ${plan.digest} for release image ${image} (the payload, the request or the live objects changed; preview again)`,
    );
  }
  const violations = limitViolations(plan, limits);
  if (violations.length === 0) return {};
  if (work.desired.force) return { risk: `forced past blast-radius limits: ${violations.join("; ")}` };
  return failed("BlastRadiusExceeded", `PreconditionChecks: ${violations.join("; ")}; force the update to apply it anyway`);
}
