/**
 * The Update's acceptance check on its plan: before a payload is accepted (at PreconditionChecks) an Update with
 * blast-radius limits or an expected plan digest has its plan computed again, and is refused when it exceeds a limit
 * (unless forced) or its digest differs from the previewed one.
 */
import type { PayloadUpdate } from "../../payload/manifest.js";
import { UpdateError, acceptHint, accepts, type RiskAcceptance } from "../../core/index.js";
import type { DesiredUpdate } from "../types.js";
import { computePlan, effectiveLimits, hasLimits, limitViolations, type Plan, type PlanDeps, type PlanScope, type UpdateControls } from "./plan.js";

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
 * exceeds, unless the update accepts that risk (PlanDigest, BlastRadius; force accepts both): then it is a risk
 * the history records. Nothing is computed when neither is asked for.
 */
export async function checkPlan(
  deps: PlanDeps,
  loaded: PayloadUpdate,
  scope: PlanScope,
  work: UpdateControls & { readonly desired: DesiredUpdate },
  acceptance: RiskAcceptance,
  previewed: PreviewedImages,
  signal: AbortSignal,
): Promise<{ readonly failure?: UpdateError; readonly risk?: string }> {
  const limits = effectiveLimits(work.limits, deps.limits);
  const expected = work.expectedPlanDigest ?? "";
  if (!hasLimits(limits) && expected === "") return {};
  const failed = (reason: string, message: string, cause?: unknown): { failure: UpdateError } => ({
    failure: new UpdateError({ reason, message, name: "PreconditionCheck", ...(cause === undefined ? {} : { cause }) }),
  });
  if (!deps.planner)
    return failed("PlanUnavailable", "PreconditionChecks: this service cannot compute plans for blast-radius limits or an expected plan digest");
  let plan: Plan;
  try {
    plan = await computePlan(loaded, scope, deps.planner, () => undefined, signal);
  } catch (err) {
    signal.throwIfAborted();
    return failed("PlanFailed", `PreconditionChecks: the update's plan could not be computed: ${err instanceof Error ? err.message : String(err)}`, err);
  }
  const risks: string[] = [];
  if (expected !== "" && plan.digest !== expected) {
    const image = loaded.release.image;
    const previewedImage = previewed.imageOf(expected);
    const why =
      previewedImage !== undefined && previewedImage !== image
        ? `the release image is not the one previewed: plan digest ${expected} was previewed with ${previewedImage}, this update's image is ${image} (plan digest ${plan.digest}); a tag that moved since the preview names another digest: preview again, or update by the previewed image to apply what was previewed`
        : `the plan changed since it was previewed: expected plan digest ${expected}, computed ${plan.digest} for release image ${image} (the payload, the request or the live objects changed; preview again)`;
    if (!accepts(acceptance, "PlanDigest")) return failed("PlanDigestMismatch", `PreconditionChecks: ${why}; ${acceptHint(["PlanDigest"])}`);
    risks.push(`${acceptedAs(acceptance, "PlanDigest")}: ${why}`);
  }
  const violations = limitViolations(plan, limits);
  if (violations.length > 0) {
    if (!accepts(acceptance, "BlastRadius"))
      return failed("BlastRadiusExceeded", `PreconditionChecks: ${violations.join("; ")}; ${acceptHint(["BlastRadius"])}`);
    risks.push(`${acceptedAs(acceptance, "BlastRadius")}: ${violations.join("; ")}`);
  }
  return risks.length > 0 ? { risk: risks.join("\n") } : {};
}

/** How the history words an accepted plan risk: forced as before named risks existed, else by its name. */
function acceptedAs(acceptance: RiskAcceptance, risk: "PlanDigest" | "BlastRadius"): string {
  if (acceptance.force) return risk === "BlastRadius" ? "forced past blast-radius limits" : "forced past a changed plan";
  return `accepted risk ${risk}`;
}
