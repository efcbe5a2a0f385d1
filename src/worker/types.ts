import type { Release } from "../payload/manifest.js";
import type { ClusterCapabilities, ComponentOverride } from "../policy/index.js";

/**
 * How the worker applies a payload (CVO `payload.State`).
 * - Updating: moving to a different payload; ordered roll-out by run level.
 * - Reconciling: after a successful full apply; random order, two workers.
 * - Initializing: the cluster never completed an install; everything in parallel, short backoff.
 * - Precreating: only passed to the applier to precreate ClusterOperators.
 */
export type PayloadState = "Updating" | "Reconciling" | "Initializing" | "Precreating";

/** A desired release (configv1.Update). */
export interface DesiredUpdate {
  readonly version: string;
  readonly image: string;
  readonly force: boolean;
}

export const NO_UPDATE: DesiredUpdate = { version: "", image: "", force: false };

/** The work of a sync iteration. */
export interface SyncWork {
  generation: number;
  desired: DesiredUpdate;
  overrides: readonly ComponentOverride[];
  state: PayloadState;
  /** Successful applies of this payload in a row. */
  completed: number;
  /** Attempts since the last success or change; seeds the reconcile order. */
  attempt: number;
  capabilities: ClusterCapabilities;
}

export type LoadStep = "" | "RetrievePayload" | "LoadPayload" | "VerifyPayloadVersion" | "PreconditionChecks" | "PayloadLoaded";

export interface LoadPayloadStatus {
  readonly step: LoadStep;
  readonly message: string;
  readonly failure?: Error;
  readonly update: DesiredUpdate;
  readonly verified: boolean;
  readonly lastTransitionTime?: Date;
}

export interface CapabilityStatus {
  readonly enabled: readonly string[];
  readonly known: readonly string[];
  readonly implicitlyEnabled: readonly string[];
}

/** The worker's status at one moment (SyncWorkerStatus). */
export interface SyncWorkerStatus {
  readonly generation: number;
  readonly failure?: Error;
  readonly done: number;
  readonly total: number;
  readonly completed: number;
  readonly reconciling: boolean;
  readonly initial: boolean;
  readonly versionHash: string;
  readonly architecture: string;
  readonly lastProgress?: Date;
  readonly actual: Release;
  readonly verified: boolean;
  readonly loadPayloadStatus: LoadPayloadStatus;
  readonly capabilitiesStatus: CapabilityStatus;
}

export const EMPTY_RELEASE: Release = { version: "", image: "", url: "", channels: [] };

export const EMPTY_STATUS: SyncWorkerStatus = {
  generation: 0,
  done: 0,
  total: 0,
  completed: 0,
  reconciling: false,
  initial: false,
  versionHash: "",
  architecture: "",
  actual: EMPTY_RELEASE,
  verified: false,
  loadPayloadStatus: { step: "", message: "", update: NO_UPDATE, verified: false },
  capabilitiesStatus: { enabled: [], known: [], implicitlyEnabled: [] },
};

/** Wall clock and timers, injected so tests run on fake time. */
export interface Clock {
  now(): Date;
  /** Resolves after `ms`, or rejects with the signal's reason when it aborts first. */
  sleep(ms: number, signal: AbortSignal): Promise<void>;
}

/** A source of uniform numbers in [0, 1), injected for jitter. */
export type Random = () => number;

/** Records what the CVO reports as Kubernetes Events on its ClusterVersion. */
export interface EventRecorder {
  event(type: "Normal" | "Warning", reason: string, message: string): void;
}

/** The worker's metrics, behind an interface so the registry is injected (no globals). */
export interface MetricsSink {
  /** `cluster_version_payload{version, type=pending|applied}`. */
  payloadProgress(version: string, pending: number, applied: number): void;
  /** `cluster_operator_payload_errors{version}`: one failed apply attempt. */
  payloadError(version: string): void;
}

export const NO_EVENTS: EventRecorder = { event: () => undefined };
export const NO_METRICS: MetricsSink = { payloadProgress: () => undefined, payloadError: () => undefined };
