import { readFileSync } from "node:fs";
import { ClusterApplier, type ClusterApplierHooks } from "../applier.js";
import type { KubeClientOptions } from "./http.js";
import { KubeEventRecorder } from "./events.js";
import { KubeLeaseClient } from "./lease.js";
import { KubeObjectClient, loadKubeConfig } from "./object-client.js";
import { KubeStateStore } from "./state-object.js";
import { WatchedObjects, type LiveCacheMetrics } from "./live-cache.js";
import { AppliedObjects } from "../applied-objects.js";
import { ClusterVersionViewStore } from "./cluster-version.js";
import { KubeAccessReviews } from "./access-review.js";
import type { StateStore } from "../../service/index.js";
import type { KubeObject } from "../../payload/index.js";

export { KubeObjectClient, loadKubeConfig, FIELD_MANAGER } from "./object-client.js";
export { KubeEventRecorder } from "./events.js";
export { KubeLeaseClient } from "./lease.js";
export { KubeStateStore } from "./state-object.js";
export { WatchedObjects, type LiveCacheMetrics, type LiveObjectEvents } from "./live-cache.js";
export { ClusterVersionViewStore, clusterVersionStatus } from "./cluster-version.js";
export { KubeAccessReviews } from "./access-review.js";
export { compileKubeClientOptions, type CompiledKubeClientOptions, type KubeClientOptions } from "./http.js";

/** Where a pod finds its own namespace. */
const IN_CLUSTER_NAMESPACE_FILE = "/var/run/secrets/kubernetes.io/serviceaccount/namespace";
/** The CVO's namespace, used outside a pod when none is given. */
export const DEFAULT_NAMESPACE = "openshift-cluster-version";

/** The service's namespace when `--namespace` is not given: the pod's own, else the CVO's. */
export function defaultNamespace(file = IN_CLUSTER_NAMESPACE_FILE): string {
  try {
    return readFileSync(file, "utf8").trim() || DEFAULT_NAMESPACE;
  } catch {
    return DEFAULT_NAMESPACE;
  }
}

export interface KubeCluster {
  /** The applier, built once the service can receive its hooks. */
  readonly applier: (hooks: ClusterApplierHooks) => ClusterApplier;
  /** The watch-fed cache of live objects that lets reconcile passes skip unchanged objects and reports drift. */
  readonly cache: (onDrift: (message: string) => void, metrics: LiveCacheMetrics, onError: (err: unknown) => void) => AppliedObjects;
  /**
   * The ClusterOperators the cache last saw, for the CVO's metrics; none until the applier first touched one, so
   * a cluster without the kind is never watched for it.
   */
  readonly clusterOperators: () => readonly KubeObject[];
  /** The client the applier uses; the preconditions read the ClusterVersion through it. */
  readonly client: KubeObjectClient;
  /** The worker's events, written as Kubernetes Events on the ClusterVersion. */
  readonly events: KubeEventRecorder;
  /** The service's state: a ConfigMap in its namespace, shown as the CVO would in ClusterVersion `version`. */
  readonly state: StateStore;
  /** The Lease replicas elect their leader with, in the service's namespace. */
  readonly lease: KubeLeaseClient;
  /** TokenReview and SubjectAccessReview for `--authn kube`, checking access in the service's namespace. */
  readonly accessReviews: KubeAccessReviews;
}

/** Everything the service keeps in a real cluster, sharing one client and so one rate limit. */
export function createKubeCluster(
  kubeconfigPath: string,
  namespace: string,
  signal: AbortSignal,
  onError: { event: (err: unknown) => void; stateWatch: (err: unknown) => void; clusterVersion: (err: unknown) => void },
  options: KubeClientOptions = {},
): KubeCluster {
  const client = new KubeObjectClient(loadKubeConfig(kubeconfigPath), options);
  let watched: WatchedObjects | undefined;
  return {
    applier: (hooks) => new ClusterApplier(client, hooks),
    cache: (onDrift, metrics, onCacheError) => {
      const live = new WatchedObjects(client, signal, metrics, onCacheError);
      watched = live;
      const applied = new AppliedObjects(live, (ref, message) => {
        metrics.drift(ref.kind);
        onDrift(message);
      });
      live.events = {
        changed: (ref, object) => applied.observed(ref, object),
        // Whatever changed while the watch was away shows when the kind is listed again.
        relisted: (kind) => {
          for (const ref of applied.managed(kind.group, kind.kind)) applied.observed(ref, live.lookup({ ...ref, version: kind.version }).object);
        },
      };
      return applied;
    },
    clusterOperators: () => watched?.listed({ group: "config.openshift.io", version: "v1", kind: "ClusterOperator" }) ?? [],
    client,
    events: new KubeEventRecorder(client, onError.event, signal, namespace),
    state: new ClusterVersionViewStore(new KubeStateStore(client, namespace, onError.stateWatch), client, onError.clusterVersion),
    lease: new KubeLeaseClient(client, namespace),
    accessReviews: new KubeAccessReviews(client, namespace),
  };
}
