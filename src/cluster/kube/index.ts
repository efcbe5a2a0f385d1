import { ClusterApplier, type ClusterApplierHooks } from "../applier.js";
import type { KubeClientOptions } from "./http.js";
import { KubeEventRecorder } from "./events.js";
import { KubeObjectClient, loadKubeConfig } from "./object-client.js";

export { KubeObjectClient, loadKubeConfig, FIELD_MANAGER } from "./object-client.js";
export { KubeEventRecorder } from "./events.js";
export { compileKubeClientOptions, type CompiledKubeClientOptions, type KubeClientOptions } from "./http.js";

/** An applier driving the cluster of a kubeconfig (or "in-cluster") with server-side apply. */
export function createKubeApplier(kubeconfigPath: string, hooks: ClusterApplierHooks = {}, options: KubeClientOptions = {}): ClusterApplier {
  return new ClusterApplier(new KubeObjectClient(loadKubeConfig(kubeconfigPath), options), hooks);
}

export interface KubeCluster {
  readonly applier: ClusterApplier;
  /** The client the applier uses; the preconditions read the ClusterVersion through it. */
  readonly client: KubeObjectClient;
  /** The worker's events, written as Kubernetes Events on the ClusterVersion. */
  readonly events: KubeEventRecorder;
}

/** The applier and event recorder for a real cluster, sharing one client and so one rate limit. */
export function createKubeCluster(
  kubeconfigPath: string,
  hooks: ClusterApplierHooks,
  signal: AbortSignal,
  onEventError: (err: unknown) => void,
  options: KubeClientOptions = {},
): KubeCluster {
  const client = new KubeObjectClient(loadKubeConfig(kubeconfigPath), options);
  return { applier: new ClusterApplier(client, hooks), client, events: new KubeEventRecorder(client, onEventError, signal) };
}
