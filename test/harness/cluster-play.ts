import { loadUpdate, type Manifest } from "../../src/payload/index.js";
import { nodePayloadFs } from "../../src/retrieval/node-fs.js";
import { KNOWN_CAPABILITIES } from "../../src/policy/index.js";
import type { KubeRest, LiveObject } from "./kube-rest.js";
import type { ComponentOverride } from "@syncworker/client/gen/syncworker/v1/syncworker";

/** The manifests a payload applies on a self-managed amd64 cluster, as the service loads them. */
export async function payloadManifests(dir: string): Promise<{ version: string; manifests: Manifest[] }> {
  const payload = await loadUpdate(
    dir,
    dir,
    { clusterProfile: "self-managed-high-availability", knownCapabilities: KNOWN_CAPABILITIES, architecture: "amd64" },
    nodePayloadFs,
  );
  return { version: payload.release.version, manifests: [...payload.manifests] };
}

/** The apiVersion a manifest's kind is served under. */
export const apiVersionOf = (m: Manifest): string => (m.gvk.group ? `${m.gvk.group}/${m.gvk.version}` : m.gvk.version);

function plural(kind: string): string {
  const lower = kind.toLowerCase();
  if (lower.endsWith("s")) return `${lower}es`;
  if (lower.endsWith("y")) return `${lower.slice(0, -1)}ies`;
  return `${lower}s`;
}

/**
 * Installs a permissive CRD (any fields, a status subresource) for every kind the manifests use that
 * neither the server serves nor the manifests define, as a cluster running those kinds' operators
 * would have. Built-in groups are left alone: a kind missing there is a real incompatibility.
 * Returns the kinds installed.
 */
export async function installMissingKinds(api: KubeRest, manifests: readonly Manifest[]): Promise<string[]> {
  const defined = new Set<string>();
  for (const m of manifests) {
    if (m.gvk.kind !== "CustomResourceDefinition") continue;
    const spec = m.obj["spec"] as { group: string; names: { kind: string } };
    defined.add(`${spec.group}/${spec.names.kind}`);
  }
  const wanted = new Map<string, Manifest>();
  for (const m of manifests) {
    const key = `${m.gvk.group}/${m.gvk.kind}`;
    if (!m.gvk.group || m.gvk.group.endsWith(".k8s.io") || !m.gvk.group.includes(".") || defined.has(key)) continue;
    wanted.set(`${apiVersionOf(m)}/${m.gvk.kind}`, m);
  }
  const installed: string[] = [];
  for (const m of wanted.values()) {
    if (await api.serves(apiVersionOf(m), m.gvk.kind)) continue;
    const name = `${plural(m.gvk.kind)}.${m.gvk.group}`;
    await api.apply(
      {
        apiVersion: "apiextensions.k8s.io/v1",
        kind: "CustomResourceDefinition",
        metadata: { name },
        spec: {
          group: m.gvk.group,
          scope: m.obj.metadata?.namespace ? "Namespaced" : "Cluster",
          names: { kind: m.gvk.kind, plural: plural(m.gvk.kind), singular: m.gvk.kind.toLowerCase(), listKind: `${m.gvk.kind}List` },
          versions: [
            {
              name: m.gvk.version,
              served: true,
              storage: true,
              subresources: { status: {} },
              schema: { openAPIV3Schema: { type: "object", "x-kubernetes-preserve-unknown-fields": true } },
            },
          ],
        },
      } as LiveObject,
      "test-installer",
    );
    installed.push(`${apiVersionOf(m)} ${m.gvk.kind}`);
  }
  for (const kind of installed) {
    const [apiVersion = "", k = ""] = kind.split(" ");
    const deadline = Date.now() + 20_000;
    while (!(await api.serves(apiVersion, k))) {
      if (Date.now() > deadline) throw new Error(`CRD for ${kind} not established`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  return installed;
}

/**
 * Creates the namespaces the manifests put objects in but do not create themselves: on a real
 * cluster the operators owning them (cloud-credential, authentication, …) have made them already.
 */
export async function createForeignNamespaces(api: KubeRest, manifests: readonly Manifest[]): Promise<string[]> {
  const own = new Set(manifests.filter((m) => !m.gvk.group && m.gvk.kind === "Namespace").map((m) => m.obj.metadata?.name ?? ""));
  const used = new Set(manifests.map((m) => m.obj.metadata?.namespace ?? "").filter((ns) => ns && !own.has(ns)));
  const created: string[] = [];
  for (const name of used) {
    const res = await api.request("POST", "/api/v1/namespaces", { apiVersion: "v1", kind: "Namespace", metadata: { name } });
    if (res.status === 201) created.push(name);
    else if (res.status !== 409) throw new Error(`creating namespace ${name}: ${res.status} ${JSON.stringify(res.body)}`);
  }
  return created;
}

const condition = (type: string, status: string, reason: string): Record<string, string> => ({
  type,
  status,
  reason,
  message: `set by the test playing the operator`,
  lastTransitionTime: "2026-01-01T00:00:00Z",
});

/**
 * real-a (OpenShift 4.16) still ships one FlowSchema at flowcontrol.apiserver.k8s.io/v1beta3, which
 * Kubernetes removed in 1.32; a 4.16 cluster (Kubernetes 1.29) serves it, our 1.36 server cannot.
 * An override makes it unmanaged, exactly what an administrator of such a cluster would do.
 */
export const REAL_A_OVERRIDES: ComponentOverride[] = [
  { kind: "FlowSchema", group: "flowcontrol.apiserver.k8s.io", namespace: "", name: "openshift-oauth-server", unmanaged: true },
];
export const overridden = (m: Manifest): boolean =>
  m.gvk.kind === "FlowSchema" && m.obj.metadata?.name === "openshift-oauth-server" && m.gvk.version === "v1beta3";

export interface OperatorPlayer {
  /** The last failure of a pass, for a failing test's message. */
  lastError(): unknown;
  /** Stops the loop and waits for its last pass. */
  stop(): Promise<void>;
  /** ClusterOperators reported with the payload's versions but Available=False (readiness that never comes). */
  readonly hold: Set<string>;
  /** Deployments ("ns/name") reported as neither available nor progressing. */
  readonly stall: Set<string>;
}

/**
 * Plays the operators and controllers this control plane lacks: creates each ClusterOperator the
 * payload names (as its operator would) and reports the payload's versions, Available and not
 * Degraded; marks each Deployment rolled out. Writes only when something differs, so it does not
 * disturb resourceVersions once everything is reported.
 */
export function playOperators(api: KubeRest, manifests: readonly Manifest[], intervalMs = 300): OperatorPlayer {
  const operators = manifests.filter((m) => m.gvk.group === "config.openshift.io" && m.gvk.kind === "ClusterOperator");
  const deployments = manifests.filter((m) => m.gvk.group === "apps" && m.gvk.kind === "Deployment");
  const hold = new Set<string>();
  const stall = new Set<string>();
  let stopped = false;
  let lastError: unknown;
  const pass = async (): Promise<void> => {
    for (const m of operators) {
      const name = m.obj.metadata?.name ?? "";
      let live = await api.get("config.openshift.io/v1", "ClusterOperator", undefined, name);
      if (!live) {
        const created = await api.request("POST", await api.pathOf("config.openshift.io/v1", "ClusterOperator"), {
          apiVersion: "config.openshift.io/v1",
          kind: "ClusterOperator",
          metadata: { name },
          spec: {},
        });
        if (created.status !== 201 && created.status !== 409) throw new Error(`creating ClusterOperator ${name}: ${created.status}`);
        live = await api.get("config.openshift.io/v1", "ClusterOperator", undefined, name);
      }
      const versions = (m.obj["status"] as { versions?: unknown[] } | undefined)?.versions ?? [];
      const available = hold.has(name) ? condition("Available", "False", "HeldByTest") : condition("Available", "True", "AsExpected");
      const status = {
        versions,
        conditions: [available, condition("Degraded", "False", "AsExpected"), condition("Progressing", "False", "AsExpected")],
      };
      const current = live?.status ?? {};
      if (JSON.stringify({ versions: current["versions"], conditions: current["conditions"] }) !== JSON.stringify(status)) {
        await api.patchStatus("config.openshift.io/v1", "ClusterOperator", undefined, name, status);
      }
    }
    for (const m of deployments) {
      const live = await api.get("apps/v1", "Deployment", m.obj.metadata?.namespace, m.obj.metadata?.name ?? "");
      if (!live) continue;
      const replicas = (live["spec"] as { replicas?: number } | undefined)?.replicas ?? 1;
      const generation = (live.metadata as { generation?: number }).generation ?? 1;
      const id = `${m.obj.metadata?.namespace ?? ""}/${m.obj.metadata?.name ?? ""}`;
      const stalled = stall.has(id);
      const status = {
        observedGeneration: generation,
        replicas,
        updatedReplicas: replicas,
        readyReplicas: replicas,
        availableReplicas: replicas,
        conditions: stalled
          ? [condition("Available", "False", "MinimumReplicasUnavailable"), condition("Progressing", "False", "ProgressDeadlineExceeded")]
          : [condition("Available", "True", "MinimumReplicasAvailable"), condition("Progressing", "True", "NewReplicaSetAvailable")],
      };
      const reported = live.status?.["observedGeneration"] === generation && JSON.stringify(live.status?.["conditions"]) === JSON.stringify(status.conditions);
      if (!reported) {
        await api.patchStatus("apps/v1", "Deployment", m.obj.metadata?.namespace, m.obj.metadata?.name ?? "", status);
      }
    }
  };
  const loop = (async () => {
    while (!stopped) {
      // A failed pass (the API server restarting, a race with a create) is simply tried again.
      await pass().catch((err: unknown) => (lastError = err));
      await new Promise((r) => setTimeout(r, intervalMs));
    }
  })();
  return {
    hold,
    stall,
    lastError: () => lastError,
    stop: async () => {
      stopped = true;
      await loop;
    },
  };
}
