/**
 * The service's persisted state: what a restarted or newly elected process needs to carry on where the
 * last one stopped. It plays the part of the CVO's ClusterVersion object: `spec` is the last accepted
 * Update (ClusterVersion spec), `status` and `clusterVersion` what was last published (ClusterVersion
 * status), and `revision` keeps watch revisions moving forward across processes.
 *
 * The document is JSON, validated with a schema on every read: a file or object with a bad shape is
 * refused with the path of the offending field, never silently replaced.
 */
import { z } from "zod";
import { UPDATE_EFFECTS, UpdateError, brandError } from "../core/index.js";
import type { ClusterVersionStatus, ComponentDurations, Condition, HistoryEntry, UpdateProgress } from "../status/index.js";
import { COMPONENT_STATES, type ComponentProgress, type LoadPayloadStatus, type PassPosition, type SyncWorkerStatus, type UpdateRequest } from "../worker/index.js";

/**
 * The last Update the service accepted, as saved: replayed on start, as the CVO re-reads its ClusterVersion spec.
 * Its plan controls (limits, expected plan digest) stay with it until the worker accepts the release, so a restarted
 * or newly elected service holds the release to them as the first one did.
 */
export type DesiredSpec = Omit<UpdateRequest, "cause">;

/**
 * The spec to keep once the worker accepted its release: the plan controls bound that acceptance only, so they are
 * dropped, since a replay would meet a cluster the update has already changed.
 */
export function acceptedSpec(spec: DesiredSpec): DesiredSpec {
  const { limits: _limits, expectedPlanDigest: _digest, ...rest } = spec;
  return rest;
}

export interface PersistedState {
  /** Who wrote it (the leader's identity, or the host and pid of a single process). */
  readonly writer: string;
  readonly savedAt: Date;
  /**
   * `published`: the revision of the snapshot below. `reserved`: no snapshot was or will be published
   * above it by the writer without first saving a higher reservation, so a successor starts above it.
   */
  readonly revision: { readonly published: number; readonly reserved: number };
  readonly spec: DesiredSpec | undefined;
  readonly status: SyncWorkerStatus;
  readonly clusterVersion: ClusterVersionStatus;
  /** Saved while paused: the tasks the held pass applied, which the pass skips when resumed after a restart. */
  readonly position?: PassPosition;
  /** How long each component took in recent updates: what estimates of the time left are learned from. */
  readonly durations?: ComponentDurations;
  /** The timing and slow components of the last snapshot, so a standby and a restarted service show them. */
  readonly progress?: UpdateProgress;
}

const STATE_FORMAT = "syncworker.state/v1";

const date = z.iso.datetime({ offset: true }).transform((text) => new Date(text));
const PAYLOAD_STATES = ["Updating", "Reconciling", "Initializing"] as const;
const LOAD_STEPS = ["", "RetrievePayload", "LoadPayload", "VerifyPayloadVersion", "PreconditionChecks", "PayloadLoaded"] as const;

const failureSchema = z.strictObject({
  message: z.string(),
  reason: z.string(),
  effect: z.enum(UPDATE_EFFECTS),
  name: z.string(),
  names: z.array(z.string()),
});
const updateSchema = z.strictObject({ version: z.string(), image: z.string(), force: z.boolean() });
const count = z.number().int().nonnegative();

// A component's empty fields are left out: most components are pending or done, a few fields each.
const componentSchema = z.strictObject({
  runLevel: count,
  component: z.string(),
  state: z.enum(COMPONENT_STATES),
  done: count,
  total: count,
  currentObject: z.string().optional(),
  waitReason: z.string().optional(),
  waitingSince: date.optional(),
  attempts: count.optional(),
  startedAt: date.optional(),
  finishedAt: date.optional(),
});
const progressSchema = z.strictObject({
  timing: z
    .strictObject({
      startedAt: date,
      elapsedMs: z.number(),
      estimate: z.strictObject({ remainingMs: z.number(), basis: z.string() }).optional(),
    })
    .optional(),
  slow: z.array(z.string()),
});

const workerStatusSchema = z.strictObject({
  generation: count,
  failure: failureSchema.optional(),
  done: count,
  total: count,
  completed: count,
  reconciling: z.boolean(),
  initial: z.boolean(),
  versionHash: z.string(),
  architecture: z.string(),
  lastProgress: date.optional(),
  actual: z.strictObject({ version: z.string(), image: z.string(), url: z.string(), channels: z.array(z.string()) }),
  verified: z.boolean(),
  loadPayloadStatus: z.strictObject({
    step: z.enum(LOAD_STEPS),
    message: z.string(),
    failure: failureSchema.optional(),
    update: updateSchema,
    verified: z.boolean(),
    lastTransitionTime: date.optional(),
    preconditionResults: z.array(z.strictObject({ name: z.string(), reason: z.string(), message: z.string(), blocking: z.boolean() })).optional(),
    acceptedRisks: z.string().optional(),
  }),
  capabilitiesStatus: z.strictObject({ enabled: z.array(z.string()), known: z.array(z.string()), implicitlyEnabled: z.array(z.string()) }),
  pause: z.strictObject({ pausedBy: z.string(), reason: z.string(), pausedAt: date, updatePending: z.boolean() }).optional(),
  // Absent in states written before components were saved: none until the first pass.
  components: z.array(componentSchema).optional(),
});

const conditionSchema = z.strictObject({
  type: z.string().min(1),
  status: z.enum(["True", "False", "Unknown"]),
  reason: z.string(),
  message: z.string(),
  lastTransitionTime: date,
});
const historySchema = z.strictObject({
  state: z.enum(["Partial", "Completed"]),
  version: z.string(),
  image: z.string(),
  verified: z.boolean(),
  startedTime: date,
  completionTime: date.optional(),
  acceptedRisks: z.string().optional(),
});

const stateSchema = z.strictObject({
  format: z.literal(STATE_FORMAT),
  writer: z.string(),
  savedAt: date,
  revision: z.strictObject({ published: count, reserved: count }).refine((r) => r.reserved >= r.published, "reserved must be >= published"),
  spec: z
    .strictObject({
      generation: count,
      desired: updateSchema,
      overrides: z.array(z.strictObject({ kind: z.string(), group: z.string(), namespace: z.string(), name: z.string(), unmanaged: z.boolean() })),
      capabilities: z.strictObject({ baselineCapabilitySet: z.string(), additionalEnabledCapabilities: z.array(z.string()) }),
      state: z.enum(PAYLOAD_STATES).optional(),
      // Absent in states written before the plan controls were saved: none.
      limits: z.strictObject({ maxDeletions: count.optional(), maxChangedPercent: z.number().min(0).max(100).optional() }).optional(),
      expectedPlanDigest: z.string().min(1).optional(),
    })
    .nullable(),
  status: workerStatusSchema,
  clusterVersion: z.strictObject({ conditions: z.array(conditionSchema), history: z.array(historySchema), message: z.string() }),
  position: z.strictObject({ image: z.string(), versionHash: z.string(), done: z.array(z.number().int().positive()) }).optional(),
  durations: z.strictObject({ updates: count, byComponent: z.record(z.string(), z.array(z.number().nonnegative())) }).optional(),
  progress: progressSchema.optional(),
});

type Encoded = z.input<typeof stateSchema>;
type EncodedFailure = z.infer<typeof failureSchema>;
type EncodedComponent = z.input<typeof componentSchema>;
type DecodedComponent = z.output<typeof componentSchema>;
type EncodedProgress = z.input<typeof progressSchema>;

/**
 * Persisted state that cannot be read or written: `where` names the file or Kubernetes object, the
 * message says what is wrong with it (for a bad shape, the path of each offending field).
 */
export class StateError extends Error {
  constructor(
    readonly where: string,
    detail: string,
    cause?: unknown,
  ) {
    super(`${where}: ${detail}`, cause === undefined ? undefined : { cause });
    this.name = "StateError";
  }
  static {
    brandError(this, "StateError");
  }
}

function encodeFailure(err: Error | undefined): EncodedFailure | undefined {
  if (!err) return undefined;
  if (err instanceof UpdateError) return { message: err.message, reason: err.reason, effect: err.effect, name: err.objectName, names: [...err.names] };
  return { message: err.message, reason: "", effect: "", name: "", names: [] };
}

function decodeFailure(f: EncodedFailure | undefined): Error | undefined {
  if (!f) return undefined;
  if (!f.reason) return new Error(f.message);
  return new UpdateError({ reason: f.reason, message: f.message, effect: f.effect, name: f.name, names: f.names });
}

const iso = (d: Date | undefined): string | undefined => d?.toISOString();

function encodeComponent(c: ComponentProgress): EncodedComponent {
  return {
    runLevel: c.runLevel,
    component: c.component,
    state: c.state,
    done: c.done,
    total: c.total,
    ...(c.currentObject ? { currentObject: c.currentObject } : {}),
    ...(c.waitReason ? { waitReason: c.waitReason } : {}),
    ...(c.waitingSince ? { waitingSince: c.waitingSince.toISOString() } : {}),
    ...(c.attempts ? { attempts: c.attempts } : {}),
    ...(c.startedAt ? { startedAt: c.startedAt.toISOString() } : {}),
    ...(c.finishedAt ? { finishedAt: c.finishedAt.toISOString() } : {}),
  };
}

function decodeComponent({ currentObject, waitReason, attempts, waitingSince, startedAt, finishedAt, ...c }: DecodedComponent): ComponentProgress {
  return {
    ...c,
    currentObject: currentObject ?? "",
    waitReason: waitReason ?? "",
    attempts: attempts ?? 0,
    ...(waitingSince ? { waitingSince } : {}),
    ...(startedAt ? { startedAt } : {}),
    ...(finishedAt ? { finishedAt } : {}),
  };
}

function encodeProgress({ timing, slow }: UpdateProgress): EncodedProgress {
  return { slow: [...slow], ...(timing ? { timing: { ...timing, startedAt: timing.startedAt.toISOString(), ...(timing.estimate ? { estimate: { ...timing.estimate } } : {}) } } : {}) };
}

/** Objects with their keys in order, so equal states serialize identically however they were built. */
function sortKeys(_key: string, value: unknown): unknown {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return value;
  return Object.fromEntries(Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/** The JSON text of a state, stable in key order so unchanged states serialize identically. */
export function encodeState(state: PersistedState): string {
  const { components, ...s } = state.status;
  const load = s.loadPayloadStatus;
  const { preconditionResults, ...loadRest } = load;
  const encoded: Encoded = {
    format: STATE_FORMAT,
    writer: state.writer,
    savedAt: state.savedAt.toISOString(),
    revision: { ...state.revision },
    spec: state.spec
      ? {
          generation: state.spec.generation,
          desired: { ...state.spec.desired },
          overrides: state.spec.overrides.map((o) => ({ ...o })),
          capabilities: { baselineCapabilitySet: state.spec.capabilities.baselineCapabilitySet, additionalEnabledCapabilities: [...state.spec.capabilities.additionalEnabledCapabilities] },
          ...(state.spec.state && state.spec.state !== "Precreating" ? { state: state.spec.state } : {}),
          ...(state.spec.limits ? { limits: { ...state.spec.limits } } : {}),
          ...(state.spec.expectedPlanDigest ? { expectedPlanDigest: state.spec.expectedPlanDigest } : {}),
        }
      : null,
    status: {
      ...s,
      failure: encodeFailure(s.failure),
      lastProgress: iso(s.lastProgress),
      pause: s.pause ? { ...s.pause, pausedAt: s.pause.pausedAt.toISOString() } : undefined,
      actual: { ...s.actual, channels: [...s.actual.channels] },
      loadPayloadStatus: {
        ...loadRest,
        failure: encodeFailure(load.failure),
        lastTransitionTime: iso(load.lastTransitionTime),
        ...(preconditionResults ? { preconditionResults: preconditionResults.map((r) => ({ ...r })) } : {}),
      },
      capabilitiesStatus: {
        enabled: [...s.capabilitiesStatus.enabled],
        known: [...s.capabilitiesStatus.known],
        implicitlyEnabled: [...s.capabilitiesStatus.implicitlyEnabled],
      },
      ...(components.length > 0 ? { components: components.map(encodeComponent) } : {}),
    },
    clusterVersion: {
      conditions: state.clusterVersion.conditions.map((c) => ({ ...c, lastTransitionTime: c.lastTransitionTime.toISOString() })),
      history: state.clusterVersion.history.map((h) => ({ ...h, startedTime: h.startedTime.toISOString(), completionTime: iso(h.completionTime) })),
      message: state.clusterVersion.message,
    },
    ...(state.position ? { position: { ...state.position, done: [...state.position.done].sort((a, b) => a - b) } } : {}),
    ...(state.durations ? { durations: { updates: state.durations.updates, byComponent: Object.fromEntries(Object.entries(state.durations.byComponent).map(([k, v]) => [k, [...v]])) } } : {}),
    ...(state.progress ? { progress: encodeProgress(state.progress) } : {}),
  };
  return `${JSON.stringify(encoded, sortKeys, 1)}\n`;
}

/** Parses and validates a state document; `where` names its source in the error. */
export function decodeState(text: string, where: string): PersistedState {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw new StateError(where, `not valid JSON: ${(err as Error).message}`, err);
  }
  const parsed = stateSchema.safeParse(json);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.length > 0 ? i.path.join(".") : "(document)"}: ${i.message}`);
    throw new StateError(where, `not a syncworker state (${STATE_FORMAT}): ${problems.slice(0, 5).join("; ")}`);
  }
  const d = parsed.data;
  const load = d.status.loadPayloadStatus;
  const loadFailure = decodeFailure(load.failure);
  const loadPayloadStatus: LoadPayloadStatus = {
    step: load.step,
    message: load.message,
    update: load.update,
    verified: load.verified,
    ...(loadFailure ? { failure: loadFailure } : {}),
    ...(load.lastTransitionTime ? { lastTransitionTime: load.lastTransitionTime } : {}),
    ...(load.preconditionResults ? { preconditionResults: load.preconditionResults } : {}),
    ...(load.acceptedRisks ? { acceptedRisks: load.acceptedRisks } : {}),
  };
  const { failure, lastProgress, pause, components, loadPayloadStatus: _load, ...workerRest } = d.status;
  const workerFailure = decodeFailure(failure);
  const status: SyncWorkerStatus = {
    ...workerRest,
    loadPayloadStatus,
    components: (components ?? []).map(decodeComponent),
    ...(workerFailure ? { failure: workerFailure } : {}),
    ...(lastProgress ? { lastProgress } : {}),
    ...(pause ? { pause } : {}),
  };
  const conditions: Condition[] = d.clusterVersion.conditions;
  const history: HistoryEntry[] = d.clusterVersion.history.map(({ completionTime, acceptedRisks, ...h }) => ({
    ...h,
    ...(completionTime ? { completionTime } : {}),
    ...(acceptedRisks ? { acceptedRisks } : {}),
  }));
  return {
    writer: d.writer,
    savedAt: d.savedAt,
    revision: d.revision,
    spec: d.spec ? { ...d.spec, state: d.spec.state } : undefined,
    status,
    clusterVersion: { conditions, history, message: d.clusterVersion.message },
    ...(d.position ? { position: { ...d.position, done: new Set(d.position.done) } } : {}),
    ...(d.durations ? { durations: d.durations } : {}),
    ...(d.progress ? { progress: decodeProgress(d.progress) } : {}),
  };
}

function decodeProgress({ timing, slow }: z.output<typeof progressSchema>): UpdateProgress {
  if (!timing) return { slow };
  const { estimate, ...rest } = timing;
  return { slow, timing: { ...rest, ...(estimate ? { estimate } : {}) } };
}
