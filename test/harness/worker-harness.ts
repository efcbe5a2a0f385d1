import { type Manifest, type PayloadUpdate, gvkOf } from "../../src/payload/manifest.js";
import type { PayloadInfo } from "../../src/payload/retrieval-port.js";
import type { MaintenanceWindow, Precondition } from "../../src/policy/index.js";
import { SyncService, type ClusterPorts, type ServiceLogger } from "../../src/service/index.js";
import type { Condition, HistoryEntry } from "../../src/status/index.js";
import type { MetricsSink, PayloadState, ResourceApplier, SyncWorkerStatus, UpdateDeadlines, UpdateRequest } from "../../src/worker/index.js";
import { ManualClock, settle } from "./manual-clock.js";
import { MemoryStateStore } from "./memory-state-store.js";
import { TUNING } from "../../src/config/index.js";

const quiet: ServiceLogger = { debug: () => undefined, info: () => undefined, warn: () => undefined, child: () => quiet };
const PROFILE = { "include.release.openshift.io/self-managed-high-availability": "true" };

/** A manifest of any kind, as the payload loader would produce it. */
export function manifest(file: string, obj: Manifest["obj"]): Manifest {
  const withProfile = { ...obj, metadata: { ...obj.metadata, annotations: { ...PROFILE, ...obj.metadata?.annotations } } };
  return { originalFilename: file, raw: JSON.stringify(withProfile), gvk: gvkOf(withProfile), obj: withProfile };
}

export const configMap = (name: string, file = name, annotations: Record<string, string> = {}): Manifest =>
  manifest(file, { apiVersion: "v1", kind: "ConfigMap", metadata: { name, namespace: "test", annotations } });

export const job = (name: string, file = name): Manifest => manifest(file, { apiVersion: "batch/v1", kind: "Job", metadata: { name, namespace: "test" } });

export const clusterOperator = (name: string, version: string, file = name): Manifest =>
  manifest(file, { apiVersion: "config.openshift.io/v1", kind: "ClusterOperator", metadata: { name }, status: { versions: [{ name: "operator", version }] } });

export function payload(version: string, image: string, manifests: Manifest[]): PayloadUpdate {
  return {
    release: { version, image, url: `https://example.com/v${version}`, channels: [] },
    architecture: "amd64",
    manifestHash: "DL-FFQ2Uem8=",
    manifests,
    verifiedImage: false,
  };
}

/** What the scripted applier does for one manifest name. */
export type Script = (attempt: number, mode: PayloadState, signal: AbortSignal) => Promise<void> | void;

/** An applier whose behavior per manifest name is scripted; records every call. */
export class ScriptedApplier implements ResourceApplier {
  readonly calls: Array<{ name: string; mode: PayloadState }> = [];
  readonly scripts = new Map<string, Script>();
  readonly #attempts = new Map<string, number>();
  readonly running = new Set<string>();
  maxConcurrent = 0;

  async apply(m: Manifest, mode: PayloadState, signal: AbortSignal): Promise<void> {
    const name = m.obj.metadata?.name ?? "";
    this.calls.push({ name, mode });
    const attempt = (this.#attempts.get(name) ?? 0) + 1;
    this.#attempts.set(name, attempt);
    this.running.add(name);
    this.maxConcurrent = Math.max(this.maxConcurrent, this.running.size);
    try {
      await this.scripts.get(name)?.(attempt, mode, signal);
    } finally {
      this.running.delete(name);
    }
  }
}

export interface HarnessOptions {
  readonly payloads: readonly PayloadUpdate[];
  /** Per image: an error to fail retrieval with, or a verification error to attach. */
  readonly retrieve?: (image: string, force: boolean) => Error | Partial<PayloadInfo> | undefined;
  readonly backoffSteps?: number;
  readonly preconditions?: readonly Precondition[];
  readonly reconcileMs?: number;
  readonly maxWorkers?: number;
  /** The state a previous service saved (a restart); a fresh store when absent. */
  readonly state?: MemoryStateStore;
  /** The service's progress throttle; absent: every status is a snapshot (what the scenario tests read). */
  readonly progressIntervalMs?: number;
  /** The server's deadlines of an update; absent: none. */
  readonly deadlines?: UpdateDeadlines;
  /** The worker's metrics; absent: none. */
  readonly metrics?: MetricsSink;
  /** When updates may run; absent: any time. */
  readonly maintenanceWindows?: readonly MaintenanceWindow[];
  /** Reconcile passes wait for a window too. */
  readonly reconcileInWindowsOnly?: boolean;
}

/**
 * A SyncService on fake time with a scripted applier and an in-memory state store, recording every
 * worker status it publishes. The service is started by the first update() or start().
 */
export function workerHarness(options: HarnessOptions) {
  const clock = new ManualClock();
  const applier = new ScriptedApplier();
  const statuses: SyncWorkerStatus[] = [];
  const retrievals: string[] = [];
  const state = options.state ?? new MemoryStateStore();
  const byImage = new Map(options.payloads.map((p) => [p.release.image, p]));
  let ports: ClusterPorts | undefined;
  const service = new SyncService({
    clock,
    random: () => 0,
    log: quiet,
    cluster: (given) => {
      ports = given;
      return { applier, preconditions: options.preconditions ?? [] };
    },
    retriever: {
      retrieve: async (desired) => {
        retrievals.push(desired.image);
        const scripted = options.retrieve?.(desired.image, desired.force);
        if (scripted instanceof Error) throw scripted;
        return { directory: desired.image, local: false, verified: false, ...scripted };
      },
    },
    loadPayload: async ({ directory }) => {
      const found = byImage.get(directory);
      if (!found) throw new Error(`no payload at ${directory}`);
      return structuredClone(found);
    },
    maxWorkers: options.maxWorkers ?? 1,
    minimumReconcileIntervalMs: options.reconcileMs ?? 500,
    backoff: { durationMs: 100, factor: 2, jitter: 0, steps: options.backoffSteps ?? 1, capMs: 0 },
    installBackoff: TUNING.installBackoff,
    state,
    identity: "harness",
    onSnapshot: (snapshot) => statuses.push(snapshot.value.worker),
    ...(options.progressIntervalMs ? { progressIntervalMs: options.progressIntervalMs } : {}),
    ...(options.deadlines ? { deadlines: options.deadlines } : {}),
    ...(options.metrics ? { metrics: options.metrics } : {}),
    ...(options.maintenanceWindows ? { maintenanceWindows: options.maintenanceWindows } : {}),
    ...(options.reconcileInWindowsOnly ? { reconcileInWindowsOnly: true } : {}),
  });
  let started: Promise<void> | undefined;
  const start = (): Promise<void> => (started ??= service.start());
  return {
    clock,
    applier,
    statuses,
    service,
    state,
    retrievals,
    /** The applier's report that the worker waits on a ClusterOperator. */
    operatorWait: (name: string) => ports?.onOperatorWait(name),
    update: async (image: string, extra: Partial<UpdateRequest> & { version?: string; force?: boolean } = {}) => {
      await start();
      const snapshot = await service.update(
        {
          generation: extra.generation ?? 1,
          desired: { version: extra.version ?? "", image, force: extra.force ?? false },
          overrides: extra.overrides ?? [],
          capabilities: extra.capabilities ?? { baselineCapabilitySet: "", additionalEnabledCapabilities: [] },
          state: extra.state,
          ...(extra.deadlines ? { deadlines: extra.deadlines } : {}),
          ...(extra.notBefore ? { notBefore: extra.notBefore } : {}),
        },
        new AbortController().signal,
      );
      return snapshot.value.worker;
    },
    /** Starts the service without moving the clock: the loop has not run yet. */
    open: start,
    start: async () => {
      await start();
      await clock.advance(0);
    },
    stop: async () => {
      await service.stop();
      await settle();
    },
    history: (): readonly HistoryEntry[] => service.latest().value.clusterVersion.history,
    condition: (type: string): Condition | undefined => service.latest().value.clusterVersion.conditions.find((c) => c.type === type),
    last: (): SyncWorkerStatus => statuses.at(-1)!,
  };
}
