import type { SpanRef } from "../core/index.js";
import type { Release } from "../payload/manifest.js";
import type { UpdateControls } from "./planning/plan.js";
import type { ClusterCapabilities, ComponentOverride } from "../policy/index.js";
import type { DesiredUpdate, PayloadState, SyncWorkerStatus, UpdateDeadlines } from "./shapes.js";

export type { CapabilityStatus, DesiredSpec, DesiredUpdate, LoadPayloadStatus, LoadStep, MaintenanceHold, PayloadState, SyncWorkerStatus } from "./shapes.js";

export const NO_UPDATE: DesiredUpdate = { version: "", image: "", force: false };

/** The work of a sync iteration, with the acceptance controls of the Update that set it (limits over the server's defaults). */
export interface SyncWork extends UpdateControls {
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
  /** The update's own deadlines (its fields over the server's); none when absent. */
  deadlines?: UpdateDeadlines;
  /** The update applies nothing before this time. */
  notBefore?: Date;
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
  /** The update's progress or total deadline passed (`exceeded`), or is no longer passed (progress resumed, the update ended). */
  deadlineExceeded(kind: "Progress" | "Total", exceeded: boolean): void;
}

export const NO_METRICS: MetricsSink = {
  payloadProgress: () => undefined,
  payloadError: () => undefined,
  syncAttempt: () => undefined,
  taskDone: () => undefined,
  taskRetry: () => undefined,
  payloadLoad: () => undefined,
  releaseLoaded: () => undefined,
  deadlineExceeded: () => undefined,
};
