import * as pb from "@syncworker/client/gen/syncworker/v1/syncworker";
import type { PreviewInput, PreviewResult } from "../worker/planning/index.js";
import type { BlastRadiusLimits, PlanAction, PlannedObject, UpdateControls } from "../worker/index.js";
import { fromProtoUpdate, STRING_LIMITS } from "./convert.js";
import { truncateText } from "../status/index.js";
import { InvalidArgumentError } from "./errors.js";
import { RISK_NAMES, isRiskName, type RiskName } from "../core/index.js";

/** Checks blast-radius limits; absent fields stay absent (the server's defaults apply). */
export function fromProtoLimits(field: string, limits: pb.BlastRadiusLimits | undefined): BlastRadiusLimits | undefined {
  if (!limits) return undefined;
  const { maxDeletions, maxChangedPercent } = limits;
  if (maxDeletions !== undefined && maxDeletions < 0) {
    throw new InvalidArgumentError(`${field}.max_deletions`, `${field}.max_deletions must not be negative, got ${maxDeletions}`);
  }
  if (maxChangedPercent !== undefined && !(maxChangedPercent >= 0 && maxChangedPercent <= 100)) {
    throw new InvalidArgumentError(`${field}.max_changed_percent`, `${field}.max_changed_percent must be a number from 0 to 100, got ${maxChangedPercent}`);
  }
  return { ...(maxDeletions === undefined ? {} : { maxDeletions }), ...(maxChangedPercent === undefined ? {} : { maxChangedPercent }) };
}

const PLAN_DIGEST = /^sha256:[0-9a-f]{64}$/;

/** The acceptance controls of an UpdateRequest (limits, expected plan digest, accepted risks), checked; absent when not set. */
export function fromProtoUpdateControls(req: pb.UpdateRequest): UpdateControls {
  const limits = fromProtoLimits("limits", req.limits);
  const acceptRisks = fromProtoRisks(req.acceptRisks);
  const digest = req.expectedPlanDigest;
  if (digest !== "" && !PLAN_DIGEST.test(digest)) {
    throw new InvalidArgumentError(
      "expected_plan_digest",
      `expected_plan_digest must be a Preview's plan_digest (sha256:<64 hex digits>), got "${digest.slice(0, 80)}"`,
    );
  }
  return { ...(limits ? { limits } : {}), ...(digest ? { expectedPlanDigest: digest } : {}), ...(acceptRisks.length > 0 ? { acceptRisks } : {}) };
}

/** Known risk names, each once; an unknown one is refused naming the valid ones. */
function fromProtoRisks(names: readonly string[]): RiskName[] {
  names.forEach((name, i) => {
    if (!isRiskName(name)) {
      throw new InvalidArgumentError(
        `accept_risks[${i}]`,
        `accept_risks[${i}] "${truncateText(name, STRING_LIMITS.name)}" is not a risk name; the names are ${RISK_NAMES.join(", ")}`,
      );
    }
  });
  return [...new Set(names as readonly RiskName[])];
}

/** Checks a PreviewRequest with the rules of an UpdateRequest's same fields, naming the first offending one. */
export function fromProtoPreview(req: pb.PreviewRequest): PreviewInput {
  const spec = fromProtoUpdate(pb.UpdateRequest.fromPartial({ desired: req.desired, overrides: req.overrides, capabilities: req.capabilities }));
  const limits = fromProtoLimits("limits", req.limits);
  return { desired: spec.desired, overrides: spec.overrides, capabilities: spec.capabilities, ...(limits ? { limits } : {}) };
}

const ACTIONS: Readonly<Record<PlanAction, pb.PreviewAction>> = {
  create: pb.PreviewAction.PREVIEW_ACTION_CREATE,
  change: pb.PreviewAction.PREVIEW_ACTION_CHANGE,
  unchanged: pb.PreviewAction.PREVIEW_ACTION_UNCHANGED,
  delete: pb.PreviewAction.PREVIEW_ACTION_DELETE,
  skipped: pb.PreviewAction.PREVIEW_ACTION_SKIPPED,
};

export function toProtoObjectPreview(o: PlannedObject): pb.PreviewResponse {
  return { object: { ...o, action: ACTIONS[o.action] } };
}

export function toProtoPreviewSummary(result: PreviewResult): pb.PreviewResponse {
  const { counts, digest } = result.plan;
  const { version, image, url, channels } = result.release;
  return {
    summary: {
      create: counts.create,
      change: counts.change,
      unchanged: counts.unchanged,
      delete: counts.delete,
      skipped: counts.skipped,
      planDigest: digest,
      release: { version, image, url, channels: [...channels] },
      limitViolations: [...result.limitViolations],
    },
  };
}
