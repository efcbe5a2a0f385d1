/**
 * The fleet's resources on the hub, `fleet.syncworker.io/v1alpha1` (deploy/fleet/crds.yaml declares them and the API
 * server validates them): what the controller reads, parsed once more here so a spec the CRD let through but the
 * controller cannot follow (a stage selecting nobody, a bad duration) becomes a condition naming the field instead of
 * an exception.
 */
import { z } from "zod";
import { DURATION_UNITS } from "../core/index.js";

export const FLEET_GROUP = "fleet.syncworker.io";
export const FLEET_VERSION = "v1alpha1";
export const MEMBER_KIND = "MemberCluster";
export const ROLLOUT_KIND = "ReleaseRollout";

const labelSelector = z.object({
  matchLabels: z.record(z.string(), z.string()).optional(),
  matchExpressions: z
    .array(z.object({ key: z.string(), operator: z.enum(["In", "NotIn", "Exists", "DoesNotExist"]), values: z.array(z.string()).optional() }))
    .optional(),
});
export type LabelSelector = z.infer<typeof labelSelector>;

/** Kubernetes' int-or-string: a count, or a percentage such as "25%". */
const intOrPercent = z.union([z.number().int().nonnegative(), z.string().regex(/^\d+%$/, 'a count or a percentage such as "25%"')]);
export type IntOrPercent = z.infer<typeof intOrPercent>;

/** Go's duration syntax as the CRD takes it: "90s", "1h30m", "500ms". */
const duration = z.string().regex(/^(\d+(ms|s|m|h))+$/, 'a duration such as "30s", "5m" or "1h30m"');

const stage = z.object({
  name: z.string().min(1),
  selector: labelSelector.optional(),
  count: z.number().int().positive().optional(),
  percent: z.number().int().min(1).max(100).optional(),
  maxConcurrent: intOrPercent.optional(),
  soak: duration.default("0s"),
  pauseBefore: z.boolean().default(false),
});
export type StageSpec = z.infer<typeof stage>;

export const rolloutSpec = z.object({
  release: z.object({ version: z.string().default(""), image: z.string().min(1) }),
  memberSelector: labelSelector,
  strategy: z.object({
    maxConcurrent: intOrPercent.default(1),
    maxFailures: intOrPercent.default(0),
    unavailableGracePeriod: duration.default("5m"),
    stages: z.array(stage).min(1),
  }),
  memberControls: z
    .object({
      limits: z.object({ maxDeletions: z.number().int().nonnegative().optional(), maxChangedPercent: z.number().min(0).max(100).optional() }).optional(),
      acceptRisks: z.array(z.string()).default([]),
      planBound: z.boolean().default(true),
      progressDeadline: duration.optional(),
      totalDeadline: duration.optional(),
    })
    .default({ acceptRisks: [], planBound: true }),
  paused: z.boolean().default(false),
  cancel: z.boolean().default(false),
  approvedStages: z.array(z.string()).default([]),
});
export type RolloutSpec = z.infer<typeof rolloutSpec>;
export type MemberControls = RolloutSpec["memberControls"];

/** Where a member stands in one rollout. */
export const MEMBER_STATES = ["Pending", "Starting", "Updating", "Paused", "Succeeded", "Failed", "Unavailable", "Blocked", "Cancelled"] as const;
export type MemberState = (typeof MEMBER_STATES)[number];

/** States a member does not leave within a rollout. */
export const FINAL_STATES: ReadonlySet<MemberState> = new Set(["Succeeded", "Failed", "Blocked", "Cancelled"]);

/** One member's line in the rollout's status: its state and a summary; per-task detail stays in the member's own stream. */
export interface MemberRecord {
  readonly name: string;
  readonly stage: string;
  readonly state: MemberState;
  /** The generation this rollout sends the member, chosen once (the member's own plus one) and never changed. */
  readonly generation?: number;
  readonly dispatchedAt?: string;
  /** The plan digest the member's Update was bound to. */
  readonly planDigest?: string;
  /** Previews made for this member (a changed plan between preview and Update takes another). */
  readonly previews?: number;
  readonly done?: number;
  readonly total?: number;
  readonly version?: string;
  /** What holds the member up or why it failed: a failure, a pause, a maintenance hold, what a component waits for. */
  readonly blocker?: string;
  readonly estimateSeconds?: number;
  /** Paused by this rollout's `spec.paused`, so a resume resumes only these. */
  readonly pausedByFleet?: boolean;
  readonly unreachableSince?: string;
}

export const ROLLOUT_PHASES = ["Pending", "Progressing", "Soaking", "WaitingApproval", "Paused", "Halted", "Cancelled", "Completed"] as const;
export type RolloutPhase = (typeof ROLLOUT_PHASES)[number];

export interface StateCounts {
  readonly total: number;
  readonly pending: number;
  readonly updating: number;
  readonly succeeded: number;
  readonly failed: number;
  readonly unavailable: number;
  readonly blocked: number;
}

export interface StageStatus extends StateCounts {
  readonly name: string;
  readonly startedAt?: string;
  readonly completedAt?: string;
  readonly soakUntil?: string;
}

/** A `metav1.Condition`. */
export interface Condition {
  readonly type: string;
  readonly status: "True" | "False" | "Unknown";
  readonly reason: string;
  readonly message: string;
  readonly lastTransitionTime: string;
  readonly observedGeneration?: number;
}

export interface RolloutStatus {
  readonly observedGeneration: number;
  readonly phase: RolloutPhase;
  /** The release image pinned to a digest by the first preview; every member gets exactly this image. */
  readonly pinnedImage?: string;
  readonly currentStage?: string;
  /** "canary 1/1 · wave 5/5 · rest 3/14" (succeeded/total per stage), for `kubectl get`'s STAGES column. */
  readonly stageSummary: string;
  readonly counts: StateCounts;
  readonly stages: readonly StageStatus[];
  readonly members: readonly MemberRecord[];
  readonly conditions: readonly Condition[];
}

/** `value` in milliseconds; the schema checked its syntax. */
export function durationMs(value: string): number {
  let ms = 0;
  for (const [, amount, unit] of value.matchAll(/(\d+)(ms|s|m|h)/g)) ms += Number(amount) * (DURATION_UNITS[unit ?? ""] ?? 0);
  return ms;
}

/** A count, or a percentage of `of` rounded up (as Kubernetes rounds maxSurge); never below `floor`. */
export function resolveIntOrPercent(value: IntOrPercent, of: number, floor: number): number {
  const count = typeof value === "number" ? value : Math.ceil((Number(value.slice(0, -1)) * of) / 100);
  return Math.max(floor, count);
}
