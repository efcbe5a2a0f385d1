import { ClusterApplier, type ClusterApplierHooks } from "../applier.js";
import { KubeObjectClient, loadKubeConfig } from "./object-client.js";

export { KubeObjectClient, loadKubeConfig, FIELD_MANAGER } from "./object-client.js";

/** An applier driving the cluster of a kubeconfig with server-side apply. */
export function createKubeApplier(kubeconfigPath: string, hooks: ClusterApplierHooks = {}): ClusterApplier {
  return new ClusterApplier(new KubeObjectClient(loadKubeConfig(kubeconfigPath)), hooks);
}
