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
 * `version` (its desired release, Upgradeable and Progressing conditions, history and overrides).
 * A cluster without a ClusterVersion (the embedded one, or plain Kubernetes) passes them.
 */
export function preconditionCluster(client: ObjectClient): PreconditionCluster {
  return {
    async clusterVersion(signal) {
      const cv = await client
        .get({ group: "config.openshift.io", version: "v1", kind: "ClusterVersion", namespace: "", name: "version" }, signal)
        .catch((err: unknown) => {
          // A cluster that does not know the kind has no ClusterVersion to consult.
          if (err instanceof Error && /NotFound|no matches for kind|404/.test(err.message)) return undefined;
          throw err;
        });
      if (!cv) return undefined;
      const status = (cv["status"] ?? {}) as {
        desired?: { version?: string; image?: string };
        history?: Array<{ state?: string; version?: string; image?: string }>;
      };
      const spec = (cv["spec"] ?? {}) as { overrides?: Array<{ unmanaged?: boolean }> };
      const upgradeable = conditionOf(cv, "Upgradeable");
      const progressing = conditionOf(cv, "Progressing");
      const view: ClusterVersionView = {
        desired: { version: status.desired?.version ?? "", image: status.desired?.image ?? "" },
        history: (status.history ?? []).map((h) => ({
          state: h.state === "Completed" ? "Completed" : "Partial",
          version: h.version ?? "",
          image: h.image ?? "",
        })),
        overridesUnmanaged: (spec.overrides ?? []).some((o) => o.unmanaged === true),
        ...(upgradeable ? { upgradeable } : {}),
        ...(progressing ? { progressing } : {}),
      };
      return view;
    },
  };
}
