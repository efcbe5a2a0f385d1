import type { ClusterVersionView, ConditionView, PreconditionCluster } from "../policy/index.js";
import type { KubeObject } from "../payload/manifest.js";
import type { ObjectClient } from "./object-client.js";

interface RawCondition {
  type?: string;
  status?: string;
  reason?: string;
  message?: string;
}

function conditionOf(obj: KubeObject, type: string): ConditionView | undefined {
  const conditions = (obj["status"] as { conditions?: RawCondition[] } | undefined)?.conditions ?? [];
  const found = conditions.find((c) => c.type === type);
  return found && { status: found.status ?? "", reason: found.reason ?? "", message: found.message ?? "" };
}

/**
 * What the built-in preconditions read, from the cluster the worker drives: the ClusterVersion
 * `version` (its Upgradeable condition, history and overrides) and ClusterOperator conditions.
 * A cluster without a ClusterVersion (the embedded one, or plain Kubernetes) passes them.
 */
export function preconditionCluster(client: ObjectClient): PreconditionCluster {
  return {
    async clusterVersion(signal) {
      const cv = await client.get({ group: "config.openshift.io", version: "v1", kind: "ClusterVersion", namespace: "", name: "version" }, signal).catch((err: unknown) => {
        // A cluster that does not know the kind has no ClusterVersion to consult.
        if (err instanceof Error && /NotFound|no matches for kind|404/.test(err.message)) return undefined;
        throw err;
      });
      if (!cv) return undefined;
      const status = (cv["status"] ?? {}) as { history?: Array<{ state?: string; version?: string }> };
      const spec = (cv["spec"] ?? {}) as { overrides?: Array<{ unmanaged?: boolean }> };
      const view: ClusterVersionView = {
        history: (status.history ?? []).map((h) => ({ state: h.state === "Completed" ? "Completed" : "Partial", version: h.version ?? "" })),
        overridesUnmanaged: (spec.overrides ?? []).some((o) => o.unmanaged === true),
        ...(conditionOf(cv, "Upgradeable") ? { upgradeable: conditionOf(cv, "Upgradeable") } : {}),
      };
      return view;
    },
    async clusterOperatorCondition(name, type, signal) {
      const co = await client.get({ group: "config.openshift.io", version: "v1", kind: "ClusterOperator", namespace: "", name }, signal);
      return co ? conditionOf(co, type) : "missing-operator";
    },
  };
}
