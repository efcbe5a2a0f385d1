import type { Clock } from "../../worker/types.js";
import { EmbeddedApplier } from "./applier.js";
import { SimulatedControllers } from "./controllers.js";
import { ObjectStore } from "./store.js";

export { EmbeddedApplier, ObjectStore, SimulatedControllers };
export type { StoredObject, ChangeAction } from "./store.js";

export interface EmbeddedCluster {
  readonly store: ObjectStore;
  readonly applier: EmbeddedApplier;
}

/** An in-process cluster: object store, simulated operators, and an applier for the worker. */
export function createEmbeddedCluster(
  options: { operatorDelayMs: number; clock: Clock; onActivity: (message: string) => void },
  signal: AbortSignal,
): EmbeddedCluster {
  const store = new ObjectStore(() => options.clock.now());
  const controllers = new SimulatedControllers(store, { delayMs: options.operatorDelayMs, clock: options.clock, onActivity: options.onActivity }, signal);
  return { store, applier: new EmbeddedApplier(store, controllers) };
}
