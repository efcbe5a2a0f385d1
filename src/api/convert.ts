import * as pb from "@syncworker/client/gen/syncworker/v1/syncworker";
import { UpdateError, type UpdateEffect } from "../core/index.js";
import { isKnownCapabilitySet, unknownCapabilities } from "../policy/index.js";
import { listText, truncateText, type Condition, type HistoryEntry, type ServiceStatus, type Snapshot } from "../status/index.js";
import type { DesiredSpec } from "../service/index.js";
import type { PayloadState, UpdateDeadlines } from "../worker/index.js";
import { toProtoComponents, toProtoTiming } from "./convert-progress.js";
import { InvalidArgumentError } from "./errors.js";

const EFFECTS: Record<UpdateEffect, pb.UpdateEffect> = {
  "": pb.UpdateEffect.UPDATE_EFFECT_UNSPECIFIED,
  Report: pb.UpdateEffect.UPDATE_EFFECT_REPORT,
  None: pb.UpdateEffect.UPDATE_EFFECT_NONE,
  FailAfterInterval: pb.UpdateEffect.UPDATE_EFFECT_FAIL_AFTER_INTERVAL,
  Fail: pb.UpdateEffect.UPDATE_EFFECT_FAIL,
};

function toFailure(err: Error | undefined): pb.Failure | undefined {
  if (!err) return undefined;
  if (err instanceof UpdateError) {
    const names = err.names.length > 0 ? [...err.names] : err.objectName ? [err.objectName] : [];
    return { reason: err.reason, message: err.message, effect: EFFECTS[err.effect], names };
  }
  return { reason: "", message: err.message, effect: pb.UpdateEffect.UPDATE_EFFECT_UNSPECIFIED, names: [] };
}

function toProtoConditions(conditions: readonly Condition[]): pb.Condition[] {
  return conditions.map((c) => ({ type: c.type, status: c.status, reason: c.reason, message: c.message, lastTransitionTime: c.lastTransitionTime }));
}

function toProtoHistory(history: readonly HistoryEntry[]): pb.UpdateHistory[] {
  return history.map((h) => ({
    state: h.state,
    version: h.version,
    image: h.image,
    verified: h.verified,
    startedTime: h.startedTime,
    completionTime: h.completionTime,
    acceptedRisks: h.acceptedRisks ?? "",
    rollback: h.rollback ?? false,
  }));
}

/**
 * The most a status may take encoded: a quarter of gRPC's default 4 MiB receive limit (grpc-js, grpc-go, grpcurl and
 * the generated clients keep it), so every default client can read any status, with room for the rest of a response.
 */
export const MAX_STATUS_BYTES = 1024 * 1024;

/** Ever harder cuts for a status over {@link MAX_STATUS_BYTES}: characters per text, entries per list. */
const SHRINK_STEPS: readonly { readonly text: number; readonly list: number }[] = [
  { text: 1024, list: 1000 },
  { text: 256, list: 100 },
  { text: 64, list: 10 },
];

/** `value` with every string cut to `text` characters (saying how many more there were) and every list to `list` entries. */
function shrunk<T>(value: T, cut: (typeof SHRINK_STEPS)[number]): T {
  if (typeof value === "string") return truncateText(value, cut.text) as T;
  if (Array.isArray(value)) return value.slice(0, cut.list).map((v: unknown) => shrunk(v, cut)) as T;
  if (value === null || typeof value !== "object" || value instanceof Date || value instanceof Uint8Array) return value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, shrunk(v, cut)])) as T;
}

/**
 * `status` if it fits {@link MAX_STATUS_BYTES} encoded, else cut down until it does, its message saying so. The texts
 * are bounded before publishing (status/bound.ts); this is the hard bound for what they do not cover (long lists).
 */
function fitted(status: pb.SyncWorkerStatus): pb.SyncWorkerStatus {
  const size = pb.SyncWorkerStatus.encode(status).finish().length;
  if (size <= MAX_STATUS_BYTES) return status;
  for (const cut of SHRINK_STEPS) {
    const note = `(status shortened from ${size} bytes to fit ${MAX_STATUS_BYTES}: texts cut to ${cut.text} characters, lists to ${cut.list} entries)`;
    const candidate = { ...shrunk(status, cut), message: `${truncateText(status.message, cut.text)} ${note}` };
    if (pb.SyncWorkerStatus.encode(candidate).finish().length <= MAX_STATUS_BYTES) return candidate;
  }
  // Unreachable with today's fields (64-character texts, 10 entries per list); a bound must hold regardless.
  return pb.SyncWorkerStatus.fromPartial({
    generation: status.generation,
    revision: status.revision,
    publishedAt: status.publishedAt,
    message: `status of ${size} bytes withheld: it does not fit ${MAX_STATUS_BYTES}`,
  });
}

/** Each snapshot's wire form, made (and bounded) once however many calls and watchers read it. */
const wireForms = new WeakMap<Snapshot<ServiceStatus>, pb.SyncWorkerStatus>();

/** The wire form of a published snapshot, at most {@link MAX_STATUS_BYTES} encoded. */
export function toProtoStatus(snapshot: Snapshot<ServiceStatus>): pb.SyncWorkerStatus {
  let status = wireForms.get(snapshot);
  if (!status) {
    status = fitted(wireStatus(snapshot));
    wireForms.set(snapshot, status);
  }
  return status;
}

function wireStatus(snapshot: Snapshot<ServiceStatus>): pb.SyncWorkerStatus {
  const s = snapshot.value.worker;
  const load = s.loadPayloadStatus;
  return {
    generation: s.generation,
    failure: toFailure(s.failure),
    done: s.done,
    total: s.total,
    completed: s.completed,
    reconciling: s.reconciling,
    initial: s.initial,
    versionHash: s.versionHash,
    architecture: s.architecture,
    lastProgress: s.lastProgress,
    actual: { version: s.actual.version, image: s.actual.image, url: s.actual.url, channels: [...s.actual.channels] },
    verified: s.verified,
    loadPayloadStatus: {
      step: load.step,
      message: load.message,
      failure: toFailure(load.failure),
      update: { ...load.update },
      verified: load.verified,
      lastTransitionTime: load.lastTransitionTime,
      preconditionResults: (load.preconditionResults ?? []).map((r) => ({ ...r, risk: r.risk ?? "", accepted: r.accepted ?? false })),
      acceptedRisks: load.acceptedRisks ?? "",
    },
    capabilitiesStatus: {
      enabled: [...s.capabilitiesStatus.enabled],
      known: [...s.capabilitiesStatus.known],
      implicitlyEnabled: [...s.capabilitiesStatus.implicitlyEnabled],
    },
    revision: snapshot.revision,
    message: snapshot.value.clusterVersion.message,
    publishedAt: new Date(snapshot.publishedAt),
    conditions: toProtoConditions(snapshot.value.clusterVersion.conditions),
    history: toProtoHistory(snapshot.value.clusterVersion.history),
    components: toProtoComponents(s.components, snapshot.value.progress),
    timing: toProtoTiming(snapshot.value.progress),
    pause: s.pause ? { paused: true, ...s.pause } : undefined,
    maintenance: s.maintenance ? { reason: s.maintenance.reason, until: s.maintenance.until } : undefined,
  };
}

const STATES: ReadonlyMap<number, PayloadState | undefined> = new Map([
  [pb.PayloadState.PAYLOAD_STATE_UNSPECIFIED, undefined],
  [pb.PayloadState.PAYLOAD_STATE_INITIALIZING, "Initializing"],
  [pb.PayloadState.PAYLOAD_STATE_UPDATING, "Updating"],
  [pb.PayloadState.PAYLOAD_STATE_RECONCILING, "Reconciling"],
]);

/**
 * The longest accepted string fields, in UTF-8 bytes: a path (PATH_MAX), a version, a Kubernetes name (a DNS
 * subdomain), a notification's message. Lists are bounded by the largest request the server reads (limits.ts).
 */
export const STRING_LIMITS = { image: 4096, version: 256, name: 253, message: 1024 } as const;

function bounded(field: string, value: string, limit: number): string {
  const bytes = Buffer.byteLength(value);
  if (bytes > limit) throw new InvalidArgumentError(field, `${field} is ${bytes} bytes long, more than the ${limit} accepted`);
  return value;
}

/** The message of a NotifyResourceActivity request; a default when empty. */
export function fromProtoNotify(req: pb.NotifyResourceActivityRequest): string {
  return bounded("message", req.message, STRING_LIMITS.message) || "resource activity";
}

/** The reason of a PauseUpdate request, bounded like a notification's message. */
export function fromProtoPause(req: pb.PauseUpdateRequest): string {
  return bounded("reason", req.reason, STRING_LIMITS.message);
}

/** Checks an UpdateRequest and names the first offending field; `state` stays undefined when the client lets the service choose. */
export function fromProtoUpdate(req: pb.UpdateRequest): DesiredSpec {
  if (!Number.isSafeInteger(req.generation) || req.generation < 0) {
    throw new InvalidArgumentError("generation", `generation must be a non-negative integer, got ${req.generation}`);
  }
  const desired = req.desired;
  if (!desired?.image) throw new InvalidArgumentError("desired.image", "desired.image is required: an absolute payload directory or file:// URL");
  bounded("desired.image", desired.image, STRING_LIMITS.image);
  bounded("desired.version", desired.version, STRING_LIMITS.version);
  if (!STATES.has(req.state)) throw new InvalidArgumentError("state", `state ${req.state} is not a known PayloadState`);
  req.overrides.forEach((ov, i) => {
    if (!ov.kind) throw new InvalidArgumentError(`overrides[${i}].kind`, `overrides[${i}].kind is required`);
    if (!ov.name) throw new InvalidArgumentError(`overrides[${i}].name`, `overrides[${i}].name is required`);
    for (const key of ["kind", "group", "namespace", "name"] as const) bounded(`overrides[${i}].${key}`, ov[key], STRING_LIMITS.name);
  });
  const unknown = unknownCapabilities(req.capabilities?.additionalEnabledCapabilities ?? []);
  if (unknown.length > 0) {
    const names = listText(unknown.map((name) => JSON.stringify(truncateText(name, STRING_LIMITS.name))));
    throw new InvalidArgumentError(
      "capabilities.additional_enabled_capabilities",
      `capabilities.additional_enabled_capabilities names ${unknown.length} unknown capabilities: ${names}`,
    );
  }
  const baseline = req.capabilities?.baselineCapabilitySet ?? "";
  if (!isKnownCapabilitySet(baseline)) {
    throw new InvalidArgumentError("capabilities.baseline_capability_set", `capabilities.baseline_capability_set "${baseline}" is not a known capability set`);
  }
  const deadlines = fromProtoDeadlines(req);
  return {
    generation: req.generation,
    desired: { version: desired.version, image: desired.image, force: desired.force },
    overrides: req.overrides.map((ov) => ({ ...ov })),
    capabilities: { baselineCapabilitySet: baseline, additionalEnabledCapabilities: [...(req.capabilities?.additionalEnabledCapabilities ?? [])] },
    state: STATES.get(req.state),
    ...(deadlines ? { deadlines } : {}),
    ...(req.notBefore ? { notBefore: req.notBefore } : {}),
  };
}

/** A deadline longer than this is a mistake (a unit read wrong), not a plan. */
const MAX_DEADLINE_MS = 365 * 24 * 3_600_000;

/** A Duration field in milliseconds, checked to be positive and at most a year; undefined when unset. */
function deadlineMs(field: string, duration: { readonly seconds: number; readonly nanos: number } | undefined): number | undefined {
  if (!duration) return undefined;
  const ms = duration.seconds * 1000 + duration.nanos / 1e6;
  if (!(ms > 0 && ms <= MAX_DEADLINE_MS)) throw new InvalidArgumentError(field, `${field} must be more than 0 and at most 365 days, got ${ms / 1000}s`);
  return ms;
}

/** The Update's deadlines and what a passed one does; undefined when it sets none of them (the server's apply). */
function fromProtoDeadlines(req: pb.UpdateRequest): UpdateDeadlines | undefined {
  const progressMs = deadlineMs("progress_deadline", req.progressDeadline);
  const totalMs = deadlineMs("total_deadline", req.totalDeadline);
  const { ON_DEADLINE_UNSPECIFIED, ON_DEADLINE_FAIL, ON_DEADLINE_PAUSE } = pb.OnDeadline;
  if (![ON_DEADLINE_UNSPECIFIED, ON_DEADLINE_FAIL, ON_DEADLINE_PAUSE].includes(req.onDeadline)) {
    throw new InvalidArgumentError("on_deadline", `on_deadline ${req.onDeadline} is not an OnDeadline value`);
  }
  if (progressMs === undefined && totalMs === undefined && req.onDeadline === ON_DEADLINE_UNSPECIFIED) return undefined;
  return {
    ...(progressMs === undefined ? {} : { progressMs }),
    ...(totalMs === undefined ? {} : { totalMs }),
    onDeadline: req.onDeadline === ON_DEADLINE_PAUSE ? "Pause" : "Fail",
  };
}
