/**
 * Planning: what applying a payload would do to the live cluster ({@link computePlan}), the Preview that streams it,
 * and the Update's acceptance check that holds it to blast-radius limits and a previewed plan digest.
 */
export { computePlan, effectiveLimits, hasLimits, limitViolations, payloadBrings, planDigest, PlanError, planScope } from "./plan.js";
export type {
  BlastRadiusLimits,
  ObjectEffect,
  ObjectPlanner,
  PayloadBrings,
  Plan,
  PlanAction,
  PlanCounts,
  PlanDeps,
  PlannedObject,
  PlanScope,
  UpdateControls,
} from "./plan.js";
export { previewUpdate, type PreviewBase, type PreviewInput, type PreviewResult } from "./preview.js";
export { checkPlan, PreviewedImages } from "./acceptance.js";
