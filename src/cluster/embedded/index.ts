import type { Tracing, Clock } from "../../core/index.js";
import type { HealthRules } from "../../readiness/index.js";
import { AppliedObjects } from "../applied-objects.js";
import { ClusterApplier } from "../applier.js";
import { refOf } from "../errors.js";
import { SimulatedControllers } from "./controllers.js";
import { EmbeddedObjectClient } from "./object-client.js";
import { ObjectStore } from "./store.js";

export { ObjectStore, SimulatedControllers };
export type { StoredObject, ChangeAction } from "./store.js";

export interface EmbeddedCluster {
  readonly store: ObjectStore;
  /** Reads and writes objects as the applier does; the preconditions read through it. */
  readonly client: EmbeddedObjectClient;
  readonly applier: ClusterApplier;
}

/** An in-process cluster: object store, simulated operators, and an applier for the worker. */
export function createEmbeddedCluster(
  options: {
    operatorDelayMs: number;
    clock: Clock;
    onActivity: (message: string) => void;
    onOperatorWait?: (name: string) => void;
    /** A managed object was changed or deleted by someone else (the same seam as a real cluster's watch cache). */
    onDrift?: (message: string) => void;
    tracing?: Tracing;
    /** `--health-rules`, checked after each apply as on a real cluster. */
    healthRules?: HealthRules;
  },
  signal: AbortSignal,
): EmbeddedCluster {
  const store = new ObjectStore(() => options.clock.now());
  const controllers = new SimulatedControllers(store, { delayMs: options.operatorDelayMs, clock: options.clock, onActivity: options.onActivity }, signal);
  const client = new EmbeddedObjectClient(store);
  // The store is always current: it is the cluster. Its change feed plays the part of a real cluster's watches.
  const cache = new AppliedObjects(
    { follow: () => undefined, lookup: (ref) => ({ synced: true, object: store.tryGet(ref) }) },
    (_ref, message) => options.onDrift?.(message),
    () => options.clock.now().getTime(),
  );
  const unsubscribe = store.onChange((obj, action) => cache.observed(refOf(obj), action === "deleted" ? undefined : obj));
  signal.addEventListener("abort", unsubscribe, { once: true });
  const applier = new ClusterApplier(client, {
    cache,
    onClusterOperatorCheck: (co) => controllers.expectOperatorVersions(co),
    ...(options.onOperatorWait ? { onOperatorWait: options.onOperatorWait } : {}),
    ...(options.tracing ? { tracing: options.tracing } : {}),
    ...(options.healthRules ? { healthRules: options.healthRules } : {}),
  });
  return { store, client, applier };
}
