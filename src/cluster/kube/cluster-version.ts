import type { KubeObject } from "../../payload/manifest.js";
import { MULTI_ARCHITECTURE } from "../../payload/metadata.js";
import type { PersistedState, StateStore } from "../../service/index.js";
import { ApiError } from "../errors.js";
import { type ObjectRef } from "../../core/index.js";
import type { KubeObjectClient } from "./object-client.js";

const CLUSTER_VERSION: ObjectRef = { group: "config.openshift.io", version: "v1", kind: "ClusterVersion", namespace: "", name: "version" };
const CLUSTER_VERSION_CRD: ObjectRef = {
  group: "apiextensions.k8s.io",
  version: "v1",
  kind: "CustomResourceDefinition",
  namespace: "",
  name: "clusterversions.config.openshift.io",
};
/** How long a cluster that does not serve ClusterVersion is left alone before discovery is asked again (CRDs arrive with payloads). */
const NOT_SERVED_RETRY_MS = 10_000;

const iso = (d: Date | undefined): string | null => (d ? d.toISOString() : null);

/**
 * The capability names the cluster's ClusterVersion schema accepts (its enum), or undefined when it lists none.
 * A cluster installed from an older release refuses the whole status over one capability it does not know.
 */
export function schemaCapabilities(crd: KubeObject | undefined): ReadonlySet<string> | undefined {
  const versions = (crd?.["spec"] as { versions?: Array<{ name?: string; schema?: { openAPIV3Schema?: unknown } }> } | undefined)?.versions ?? [];
  const schema = versions.find((v) => v.name === CLUSTER_VERSION.version)?.schema?.openAPIV3Schema as SchemaNode | undefined;
  const names = schema?.properties?.["status"]?.properties?.["capabilities"]?.properties?.["knownCapabilities"]?.items?.enum;
  return names ? new Set(names) : undefined;
}

interface SchemaNode {
  properties?: Record<string, SchemaNode>;
  items?: SchemaNode;
  enum?: string[];
}

/**
 * The ClusterVersion status the CVO would write for this state (the fields its CRD requires, and what people
 * read); capabilities limited to `accepted` names when the schema has a list.
 */
export function clusterVersionStatus(state: PersistedState, observedGeneration: number, accepted?: ReadonlySet<string>): Record<string, unknown> {
  const s = state.status;
  const shown = (names: readonly string[]): string[] => names.filter((name) => !accepted || accepted.has(name));
  // The CVO's desired release names an architecture only for a heterogeneous payload (Release.Architecture).
  const architecture = s.architecture === MULTI_ARCHITECTURE ? { architecture: s.architecture } : {};
  return {
    observedGeneration,
    versionHash: s.versionHash,
    availableUpdates: null,
    desired: {
      version: s.actual.version,
      image: s.actual.image,
      ...(s.actual.url ? { url: s.actual.url } : {}),
      ...(s.actual.channels.length > 0 ? { channels: [...s.actual.channels] } : {}),
      ...architecture,
    },
    history: state.clusterVersion.history.map((h) => ({
      state: h.state,
      version: h.version,
      image: h.image,
      verified: h.verified,
      startedTime: h.startedTime.toISOString(),
      completionTime: iso(h.completionTime),
      ...(h.acceptedRisks ? { acceptedRisks: h.acceptedRisks } : {}),
    })),
    conditions: state.clusterVersion.conditions.map((c) => ({
      type: c.type,
      status: c.status,
      reason: c.reason,
      message: c.message,
      lastTransitionTime: c.lastTransitionTime.toISOString(),
    })),
    capabilities: { enabledCapabilities: shown(s.capabilitiesStatus.enabled), knownCapabilities: shown(s.capabilitiesStatus.known) },
  };
}

/**
 * A state store that also shows the state as the CVO would, in ClusterVersion `version`, wherever the
 * cluster serves `config.openshift.io/v1` ClusterVersion, so `kubectl get clusterversion` shows the
 * desired release, the history and the conditions. The view follows each save and never fails it:
 * the state object is the record; a view that cannot be written is reported to `onError`. Only the
 * status of an existing ClusterVersion is written; its spec belongs to the administrator.
 */
export class ClusterVersionViewStore implements StateStore {
  readonly where: string;
  #notServedUntil = 0;

  constructor(
    private readonly inner: StateStore,
    private readonly client: KubeObjectClient,
    private readonly onError: (err: unknown) => void,
    private readonly now: () => number = Date.now,
  ) {
    this.where = inner.where;
  }

  load(signal: AbortSignal): Promise<PersistedState | undefined> {
    return this.inner.load(signal);
  }

  async save(state: PersistedState, signal: AbortSignal): Promise<void> {
    await this.inner.save(state, signal);
    if (this.now() < this.#notServedUntil) return;
    await this.#writeView(state, signal).catch((err: unknown) => {
      if (err instanceof ApiError && err.statusReason === "NoMatch") this.#notServedUntil = this.now() + NOT_SERVED_RETRY_MS;
      else if (!signal.aborted) this.onError(err);
    });
  }

  watch(onChange: (state: PersistedState) => void, signal: AbortSignal): void {
    this.inner.watch?.(onChange, signal);
  }

  async #writeView(state: PersistedState, signal: AbortSignal): Promise<void> {
    const live = await this.client.get(CLUSTER_VERSION, signal);
    // Only an existing ClusterVersion (the installer's) shows the view: creating one would give the cluster an
    // identity it does not have and turn on the preconditions that read it.
    if (!live) return;
    const generation = live.metadata?.["generation"];
    const accepted = schemaCapabilities(await this.client.get(CLUSTER_VERSION_CRD, signal));
    // A whole replacement, as the CVO writes it: the CRD requires fields whose value is null (availableUpdates,
    // completionTime of a Partial entry), which a merge patch would delete instead.
    await this.client.replaceStatus({ ...live, status: clusterVersionStatus(state, typeof generation === "number" ? generation : 1, accepted) }, signal);
  }
}
