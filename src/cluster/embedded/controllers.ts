import { setMaxListeners } from "node:events";
import type { KubeObject } from "../../payload/manifest.js";
import type { Clock } from "../../core/index.js";
import { refOf } from "../errors.js";
import type { ObjectStore, StoredObject } from "./store.js";

export interface ControllerOptions {
  /** How long a simulated operator takes to roll out and report. */
  readonly delayMs: number;
  readonly clock: Clock;
  /** Called when a ClusterOperator reports new versions (the CVO's resource-activity trigger). */
  readonly onActivity: (message: string) => void;
}

interface OperandVersion {
  name: string;
  version: string;
}

const condition = (type: string, status: string, reason: string, now: Date): Record<string, string> => ({
  type,
  status,
  reason,
  lastTransitionTime: now.toISOString(),
});

/**
 * What a real cluster's controllers and operators do that the worker waits on, after a delay:
 * workloads become available, Jobs complete, CRDs are established, and each ClusterOperator reports
 * the versions the payload expects and Available=True, Degraded=False.
 */
export class SimulatedControllers {
  readonly #expected = new Map<string, string>();

  constructor(
    private readonly store: ObjectStore,
    private readonly options: ControllerOptions,
    private readonly signal: AbortSignal,
  ) {
    // Every pending simulated rollout waits on this signal.
    setMaxListeners(0, signal);
    const unsubscribe = store.onChange((obj, action) => {
      if (action !== "deleted") this.#reconcile(obj);
    });
    signal.addEventListener("abort", unsubscribe, { once: true });
  }

  /**
   * Records the versions a payload expects of an operator; its simulated operator reports them after
   * the delay, creating the ClusterOperator if the payload has not yet.
   */
  expectOperatorVersions(operator: KubeObject): void {
    const name = operator.metadata?.name ?? "";
    const versions = ((operator["status"] as { versions?: OperandVersion[] } | undefined)?.versions ?? []).filter((v) => typeof v.name === "string");
    const key = JSON.stringify(versions);
    if (this.#expected.get(name) === key) return;
    this.#expected.set(name, key);
    this.#later(() => {
      if (this.#expected.get(name) !== key) return; // a newer payload took over
      const ref = refOf(operator);
      const existing = this.store.tryGet(ref) ?? this.store.apply({ apiVersion: operator.apiVersion, kind: operator.kind, metadata: { name } }).object;
      const now = this.options.clock.now();
      const prior = (existing["status"] ?? {}) as Record<string, unknown>;
      this.store.updateStatus(ref, {
        ...prior,
        versions,
        conditions: [
          condition("Available", "True", "AsExpected", now),
          condition("Progressing", "False", "AsExpected", now),
          condition("Degraded", "False", "AsExpected", now),
        ],
      });
      this.options.onActivity(`Cluster operator ${name} changed versions`);
    });
  }

  #reconcile(obj: StoredObject): void {
    const status = (obj["status"] ?? {}) as { observedGeneration?: number };
    if (status.observedGeneration === obj.metadata.generation) return;
    const ref = refOf(obj);
    const now = (): Date => this.options.clock.now();
    const generation = obj.metadata.generation;
    switch (`${ref.group}/${ref.kind}`) {
      case "apiextensions.k8s.io/CustomResourceDefinition":
        // The API server establishes CRDs itself, within milliseconds.
        this.store.updateStatus(ref, {
          observedGeneration: generation,
          conditions: [condition("NamesAccepted", "True", "NoConflicts", now()), condition("Established", "True", "InitialNamesAccepted", now())],
        });
        return;
      case "apps/Deployment":
        return this.#later(() => {
          const replicas = Number((obj["spec"] as { replicas?: number } | undefined)?.replicas ?? 1);
          this.#setStatus(obj, generation, {
            replicas,
            readyReplicas: replicas,
            availableReplicas: replicas,
            updatedReplicas: replicas,
            conditions: [condition("Available", "True", "MinimumReplicasAvailable", now()), condition("Progressing", "True", "NewReplicaSetAvailable", now())],
          });
        });
      case "apps/DaemonSet":
        return this.#later(() =>
          this.#setStatus(obj, generation, { desiredNumberScheduled: 1, numberAvailable: 1, numberReady: 1, updatedNumberScheduled: 1 }),
        );
      case "batch/Job":
        return this.#later(() =>
          this.#setStatus(obj, generation, { succeeded: 1, active: 0, conditions: [condition("Complete", "True", "Completed", now())] }),
        );
      default:
        return;
    }
  }

  /** Writes status unless the object moved on to a newer generation meanwhile. */
  #setStatus(obj: StoredObject, generation: number, status: Record<string, unknown>): void {
    const current = this.store.tryGet(refOf(obj));
    if (!current || current.metadata.generation !== generation) return;
    this.store.updateStatus(refOf(obj), { ...status, observedGeneration: generation });
  }

  #later(fn: () => void): void {
    this.options.clock.sleep(this.options.delayMs, this.signal).then(fn, () => undefined);
  }
}
