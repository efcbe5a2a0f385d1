/**
 * The status records that outlive a process (saved with the service state), declared once: each type is the
 * schema's output, and the schema is also the saved format, so a new field is one line here.
 */
import { z } from "zod";
import type { Frozen } from "../core/index.js";
import { count, isoDate } from "../worker/shapes.js";

export const CONDITION_STATUSES = ["True", "False", "Unknown"] as const;
export type ConditionStatus = (typeof CONDITION_STATUSES)[number];

/** A ClusterVersion-style condition, as people and tools read it. */
export const conditionShape = z.strictObject({
  type: z.string().min(1),
  status: z.enum(CONDITION_STATUSES),
  reason: z.string(),
  message: z.string(),
  lastTransitionTime: isoDate,
});
export type Condition = Frozen<z.output<typeof conditionShape>>;

/** One release the cluster moved towards (configv1.UpdateHistory). */
export const historyEntryShape = z.strictObject({
  state: z.enum(["Partial", "Completed"]),
  version: z.string(),
  image: z.string(),
  verified: z.boolean(),
  startedTime: isoDate,
  completionTime: isoDate.optional(),
  /** What the update to this release was accepted despite (configv1.UpdateHistory.AcceptedRisks). */
  acceptedRisks: z.string().optional(),
  /** The update to this release rolled back a cancelled one (CancelUpdate with rollback). */
  rollback: z.literal(true).optional(),
});
export type HistoryEntry = Frozen<z.output<typeof historyEntryShape>>;

/** What the CVO derives from the worker's status for people and tools (ClusterVersion status). */
export const clusterVersionStatusShape = z.strictObject({
  conditions: z.array(conditionShape),
  /** Newest first. */
  history: z.array(historyEntryShape),
  /** One human line; its progress counts are worded by the same function as the Progressing condition's. */
  message: z.string(),
});
export type ClusterVersionStatus = Frozen<z.output<typeof clusterVersionStatusShape>>;

/**
 * How long each component took in the latest updates that completed: what the estimate of the time
 * left is learned from. Saved with the service state, so it outlives the process.
 */
export const componentDurationsShape = z.strictObject({
  /** Completed updates learned from. */
  updates: count,
  /** Per component (`runLevel/component`), its durations in milliseconds, oldest first, at most `KEEP_DURATIONS`. */
  byComponent: z.record(z.string(), z.array(z.number().nonnegative())),
});
export type ComponentDurations = Frozen<z.output<typeof componentDurationsShape>>;

export const estimateShape = z.strictObject({
  remainingMs: z.number(),
  /** What it is learned from, e.g. "from 3 previous updates". */
  basis: z.string(),
});
export type Estimate = Frozen<z.output<typeof estimateShape>>;

/** The update as a whole: when it started, how long it has run (until it completed), and what is left. */
export const updateTimingShape = z.strictObject({
  startedAt: isoDate,
  elapsedMs: z.number(),
  /** Absent when there is no basis, and once the update completed. */
  estimate: estimateShape.optional(),
});
export type UpdateTiming = Frozen<z.output<typeof updateTimingShape>>;

/** What the service adds to each snapshot about progress: the timing and which components are slow. */
export const updateProgressShape = z.strictObject({
  timing: updateTimingShape.optional(),
  /** Keys (`runLevel/component`) of the components waiting on a ClusterOperator past the slow threshold. */
  slow: z.array(z.string()),
});
export type UpdateProgress = Frozen<z.output<typeof updateProgressShape>>;
