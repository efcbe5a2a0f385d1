import type { SpanRef } from "../core/index.js";
import type { Release } from "../payload/manifest.js";
import type { BlastRadiusLimits } from "./planning/plan.js";
import type { ClusterCapabilities, ComponentOverride, PreconditionResult } from "../policy/index.js";
import type { ComponentProgress } from "./components.js";
import type { PauseStatus } from "./pause.js";

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
  /** The Update call that set this work, linked from each sync attempt's span. */
  cause?: SpanRef;
  /** Blast-radius limits of the Update that set this work (its fields over the server's defaults). */
  limits?: BlastRadiusLimits;
  /** The plan digest the Update was previewed with; a payload whose plan differs is refused. */
  expectedPlanDigest?: string;
}

export type LoadStep = "" | "RetrievePayload" | "LoadPayload" | "VerifyPayloadVersion" | "PreconditionChecks" | "PayloadLoaded";

export interface LoadPayloadStatus {
  readonly step: LoadStep;
  readonly message: string;
  readonly failure?: Error;
  readonly update: DesiredUpdate;
  readonly verified: boolean;
  readonly lastTransitionTime?: Date;
  /** Every failed precondition check of this load, blocking or not. */
  readonly preconditionResults?: readonly PreconditionResult[];
  /** What the payload was accepted despite (CVO `AcceptedRisks`): a forced verification failure, precondition warnings. */
  readonly acceptedRisks?: string;
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
  /** Every component of the payload in graph order, as the pass behind `done` left it; empty before a pass. */
  readonly components: readonly ComponentProgress[];
  /** Set while the worker is paused (PauseUpdate); owned by the worker, kept by both status writers. */
  readonly pause?: PauseStatus;
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
  components: [],
};

/** How one manifest task ended: `cancelled` when its pass was superseded or timed out. */
export type TaskResult = "applied" | "failed" | "cancelled";

/**
 * The worker's metrics, behind an interface so the registry is injected (no globals). Label values
 * are bounded: modes, results and Kubernetes kinds, never object names.
 */
export interface MetricsSink {
  /** `cluster_version_payload{version, type=pending|applied}`. */
  payloadProgress(version: string, pending: number, applied: number): void;
  /** `cluster_operator_payload_errors{version}`: one failed apply attempt. */
  payloadError(version: string): void;
  /** One sync attempt (a whole apply pass) ended; `at` is when, for the time since the last success. */
  syncAttempt(mode: PayloadState, result: "success" | "failure", at: Date): void;
  /** One manifest task ended after `seconds` (all its attempts and backoff sleeps). */
  taskDone(kind: string, result: TaskResult, seconds: number): void;
  /** A manifest attempt failed and will be retried after a backoff sleep. */
  taskRetry(kind: string): void;
  /** Retrieving and loading a payload took `seconds`. */
  payloadLoad(result: "success" | "failure", seconds: number): void;
  /** A payload loaded; `created` is its release's creation time (`image-references`), when it says. */
  releaseLoaded(image: string, created: Date | undefined): void;
}

export const NO_METRICS: MetricsSink = {
  payloadProgress: () => undefined,
  payloadError: () => undefined,
  syncAttempt: () => undefined,
  taskDone: () => undefined,
  taskRetry: () => undefined,
  payloadLoad: () => undefined,
  releaseLoaded: () => undefined,
};
