/**
 * The worker's records that outlive a process (saved with the service state), declared once: each type is the
 * schema's output, and the schema is also the saved format. A value that needs converting to JSON and back (a date,
 * an error, a set, a field left out when empty) does so through a codec here, so saving and loading have no code of
 * their own: a new field is one line here.
 */
import { z } from "zod";
import { RISK_NAMES, UPDATE_EFFECTS, UpdateError, type Frozen } from "../core/index.js";
import type { Release } from "../payload/manifest.js";
import { capabilitiesSpecShape, componentOverrideShape, preconditionResultShape } from "../policy/shapes.js";
import type { BlastRadiusLimits } from "./planning/plan.js";

/** A point in time, saved as an ISO 8601 text. */
export const isoDate = z.codec(z.iso.datetime({ offset: true }), z.date(), { decode: (text) => new Date(text), encode: (date) => date.toISOString() });

export const count = z.number().int().nonnegative();

/** A field left out of the saved form while it holds `empty` (read back as `empty`), so most records stay a few fields. */
function omittedWhen<V extends string | number>(schema: z.ZodType<V, V>, empty: V) {
  return z.codec(schema.optional(), schema, {
    decode: (value) => value ?? empty,
    encode: (value) => (value === empty ? undefined : value),
  });
}

/** A list left out of the saved form while empty (read back as empty). */
export function omittedWhenEmpty<T extends z.ZodType>(item: T) {
  return z.codec(z.array(item).optional(), z.custom<z.output<T>[]>(Array.isArray), {
    decode: (list) => list ?? [],
    encode: (list) => (list.length > 0 ? list : undefined),
  });
}

/**
 * An error as saved: an UpdateError keeps its reason, effect and names; any other error only its message, and reads
 * back as a plain Error.
 */
export const failureShape = z.codec(
  z.strictObject({ message: z.string(), reason: z.string(), effect: z.enum(UPDATE_EFFECTS), name: z.string(), names: z.array(z.string()) }),
  z.instanceof(Error),
  {
    decode: (f) =>
      f.reason ? new UpdateError({ reason: f.reason, message: f.message, effect: f.effect, name: f.name, names: f.names }) : new Error(f.message),
    encode: (err) =>
      err instanceof UpdateError
        ? { message: err.message, reason: err.reason, effect: err.effect, name: err.objectName, names: [...err.names] }
        : { message: err.message, reason: "", effect: "" as const, name: "", names: [] },
  },
);

/**
 * How the worker applies a payload (CVO `payload.State`).
 * - Updating: moving to a different payload; ordered roll-out by run level.
 * - Reconciling: after a successful full apply; random order, two workers.
 * - Initializing: the cluster never completed an install; everything in parallel, short backoff.
 * - Precreating: only passed to the applier to precreate ClusterOperators.
 */
export const PAYLOAD_STATES = ["Updating", "Reconciling", "Initializing", "Precreating"] as const;
export type PayloadState = (typeof PAYLOAD_STATES)[number];

/** The state an Update asked for, as saved: Precreating is never asked for, and is not saved. */
const requestedState = z.codec(z.enum(["Updating", "Reconciling", "Initializing"]).optional(), z.enum(PAYLOAD_STATES).optional(), {
  decode: (state) => state,
  encode: (state) => (state === "Precreating" ? undefined : state),
});

/** A desired release (configv1.Update). */
export const desiredUpdateShape = z.strictObject({ version: z.string(), image: z.string(), force: z.boolean() });
export type DesiredUpdate = Frozen<z.output<typeof desiredUpdateShape>>;

const limitsShape = z.strictObject({ maxDeletions: count.optional(), maxChangedPercent: z.number().min(0).max(100).optional() });

/** What an update does when a deadline passes: stay Failing and keep retrying (upstream's only way), or also pause. */
export const ON_DEADLINE = ["Fail", "Pause"] as const;

/** An update's deadlines (`progress_deadline`, `total_deadline`, `on_deadline`), in milliseconds; an absent one is none. */
export const updateDeadlinesShape = z.strictObject({
  progressMs: count.optional(),
  totalMs: count.optional(),
  onDeadline: z.enum(ON_DEADLINE),
});
export type UpdateDeadlines = Frozen<z.output<typeof updateDeadlinesShape>>;

/**
 * An Update as the service keeps it: the request without its tracing, saved so it is replayed on start, as the CVO
 * re-reads its ClusterVersion spec. Its plan controls (limits, expected plan digest) stay with it until the worker
 * accepts the release, so a restarted or newly elected service holds the release to them as the first one did.
 */
export const desiredSpecShape = z.strictObject({
  generation: count,
  desired: desiredUpdateShape,
  overrides: z.array(componentOverrideShape),
  capabilities: capabilitiesSpecShape,
  /** Absent: the service chooses. */
  state: requestedState,
  /** Blast-radius limits of the Update (its fields over the server's defaults); absent in states saved before them. */
  limits: limitsShape.optional(),
  /** The plan digest the Update was previewed with; a payload whose plan differs is refused. */
  expectedPlanDigest: z.string().min(1).optional(),
  /** The risks the Update accepts by name; kept once accepted, as `force` is, so a replay passes the same checks. */
  acceptRisks: z.array(z.enum(RISK_NAMES)).optional(),
  /** The Update's deadlines, over the server's; kept once accepted, so a restarted service times the update again. */
  deadlines: updateDeadlinesShape.optional(),
  /** The update waits until then before it applies anything (and for an open maintenance window). */
  notBefore: isoDate.optional(),
});
export type DesiredSpec = Frozen<z.output<typeof desiredSpecShape>>;

export const LOAD_STEPS = ["", "RetrievePayload", "LoadPayload", "VerifyPayloadVersion", "PreconditionChecks", "PayloadLoaded"] as const;
export type LoadStep = (typeof LOAD_STEPS)[number];

export const loadPayloadStatusShape = z.strictObject({
  step: z.enum(LOAD_STEPS),
  message: z.string(),
  failure: failureShape.optional(),
  update: desiredUpdateShape,
  verified: z.boolean(),
  lastTransitionTime: isoDate.optional(),
  /** Every failed precondition check of this load, blocking or not. */
  preconditionResults: z.array(preconditionResultShape).optional(),
  /** What the payload was accepted despite (CVO `AcceptedRisks`): a forced verification failure, precondition warnings. */
  acceptedRisks: z.string().optional(),
});
export type LoadPayloadStatus = Frozen<z.output<typeof loadPayloadStatusShape>>;

export const capabilityStatusShape = z.strictObject({ enabled: z.array(z.string()), known: z.array(z.string()), implicitlyEnabled: z.array(z.string()) });
export type CapabilityStatus = Frozen<z.output<typeof capabilityStatusShape>>;

/** Where a component can stand in a pass. */
export const COMPONENT_STATES = ["Pending", "Applying", "Waiting", "Done", "Failed"] as const;
/** Where one component stands in the current pass; a pass only moves a component forward. */
export type ComponentState = (typeof COMPONENT_STATES)[number];

/** One component of the payload (run level + component, as the graph groups tasks) in the current pass. */
export const componentProgressShape = z.strictObject({
  runLevel: count,
  component: z.string(),
  state: z.enum(COMPONENT_STATES),
  /** Manifests applied in this pass; the components' sum is the status's `done`. */
  done: count,
  total: count,
  /** The object it is applying or waiting for, e.g. `clusteroperator/console`; "" when none. */
  currentObject: omittedWhen(z.string(), ""),
  /** The readiness reason it waits on, e.g. `ClusterOperatorNotAvailable`; "" unless Waiting. */
  waitReason: omittedWhen(z.string(), ""),
  /** Since when it waits on `currentObject`, across the passes it kept waiting on it. */
  waitingSince: isoDate.optional(),
  /** Attempts at `currentObject`, counting earlier passes that stopped on it. */
  attempts: omittedWhen(count, 0),
  startedAt: isoDate.optional(),
  finishedAt: isoDate.optional(),
});
export type ComponentProgress = Frozen<z.output<typeof componentProgressShape>>;

/** Who paused the worker, when and why (PauseStatus of the contract). */
export const pauseStatusShape = z.strictObject({
  /** The caller's identity, or its peer address when the server does not authenticate. */
  pausedBy: z.string(),
  reason: z.string(),
  pausedAt: isoDate,
  /** An Update was accepted while paused; it starts on resume. */
  updatePending: z.boolean(),
});
export type PauseStatus = Frozen<z.output<typeof pauseStatusShape>>;

/** Why the update waits for a maintenance window (or its not_before), and until when (absent: none opens within a year). */
export const maintenanceHoldShape = z.strictObject({ reason: z.string(), until: isoDate.optional() });
export type MaintenanceHold = Frozen<z.output<typeof maintenanceHoldShape>>;

/**
 * Where a pass stood: the tasks (by index in the payload, from 1) it applied, for the payload it applied them from. A
 * pass that ends while paused (a restart, a new Update) leaves it behind, and the next pass of the same payload skips
 * those tasks instead of applying them again. Saved in ascending order.
 */
export const passPositionShape = z.strictObject({
  image: z.string(),
  versionHash: z.string(),
  done: z.codec(z.array(z.number().int().positive()), z.set(z.number().int().positive()), {
    decode: (indices) => new Set(indices),
    encode: (indices) => [...indices].sort((a, b) => a - b),
  }),
});
export type PassPosition = Frozen<z.output<typeof passPositionShape>>;

/** A release (the payload's own record), as the status shows the one applied. */
export const releaseShape = z.strictObject({ version: z.string(), image: z.string(), url: z.string(), channels: z.array(z.string()) });

/** The worker's status at one moment (SyncWorkerStatus). */
export const syncWorkerStatusShape = z.strictObject({
  generation: count,
  failure: failureShape.optional(),
  done: count,
  total: count,
  completed: count,
  reconciling: z.boolean(),
  initial: z.boolean(),
  versionHash: z.string(),
  architecture: z.string(),
  lastProgress: isoDate.optional(),
  actual: releaseShape,
  verified: z.boolean(),
  loadPayloadStatus: loadPayloadStatusShape,
  capabilitiesStatus: capabilityStatusShape,
  /** Every component of the payload in graph order, as the pass behind `done` left it; empty before a pass (and not saved). */
  components: omittedWhenEmpty(componentProgressShape),
  /** Set while the worker is paused (PauseUpdate); owned by the worker, kept by both status writers. */
  pause: pauseStatusShape.optional(),
  /** Set while the update waits for a maintenance window or its not_before; owned by the worker like `pause`. */
  maintenance: maintenanceHoldShape.optional(),
});
export type SyncWorkerStatus = Frozen<z.output<typeof syncWorkerStatusShape>>;

// Records declared by hand in folders this one does not own: the compiler holds them to their schemas.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
type Holds<T extends true> = T;
type _ReleaseMatches = Holds<Same<Frozen<z.output<typeof releaseShape>>, Release>>;
type _LimitsMatch = Holds<Same<Frozen<z.output<typeof limitsShape>>, BlastRadiusLimits>>;
