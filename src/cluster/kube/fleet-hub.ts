import type { KubeObject } from "../../payload/manifest.js";
import {
  FLEET_GROUP,
  FLEET_VERSION,
  MEMBER_KIND,
  ROLLOUT_KIND,
  type HubPort,
  type MemberClusterStatus,
  type MemberObject,
  type RolloutObject,
  type RolloutStatus,
} from "../../fleet/index.js";
import { ApiError } from "../errors.js";
import type { WatchedObjects } from "./live-cache.js";
import type { KubeObjectClient } from "./object-client.js";

const ROLLOUTS = { group: FLEET_GROUP, version: FLEET_VERSION, kind: ROLLOUT_KIND, namespace: "", name: "" };
const MEMBERS = { group: FLEET_GROUP, version: FLEET_VERSION, kind: MEMBER_KIND, namespace: "", name: "" };

interface Metadata {
  readonly name: string;
  readonly namespace: string;
  readonly uid: string;
  readonly generation?: number;
  readonly resourceVersion: string;
  readonly labels?: Record<string, string>;
}

/** The MemberCluster spec: where its syncworker listens, and the Secrets holding how to reach it. */
export interface MemberClusterSpec {
  readonly address: string;
  readonly tls?: { readonly secretRef?: { readonly name: string }; readonly serverName?: string };
  readonly tokenSecretRef?: { readonly name: string; readonly key?: string };
}

const metadataOf = (obj: KubeObject): Metadata => obj.metadata as unknown as Metadata;

/** A newer resourceVersion of the same object (etcd's are increasing integers; an opaque one compares as newer). */
function newer(a: KubeObject, b: KubeObject): KubeObject {
  const [ra, rb] = [Number(metadataOf(a).resourceVersion), Number(metadataOf(b).resourceVersion)];
  return Number.isFinite(ra) && Number.isFinite(rb) && rb > ra ? b : a;
}

/**
 * The fleet's resources on the hub's API server: listers fed by the informer (WatchedObjects) for both kinds, and the
 * rollout's status written with its resourceVersion. What we wrote is remembered (client-go's mutation cache) until the
 * watch brings it or something newer, so the next plan starts from our own write rather than the copy before it.
 */
export class KubeFleetHub implements HubPort {
  readonly #written = new Map<string, KubeObject>();

  constructor(
    private readonly client: KubeObjectClient,
    private readonly live: WatchedObjects,
    readonly namespace: string,
  ) {
    live.follow(ROLLOUTS);
    live.follow(MEMBERS);
  }

  /** Whether the informer lists a kind of ours (the first list finished). */
  synced(): boolean {
    return (
      this.live.lookup({ ...ROLLOUTS, namespace: this.namespace, name: "-" }).synced &&
      this.live.lookup({ ...MEMBERS, namespace: this.namespace, name: "-" }).synced
    );
  }

  #rollouts(): KubeObject[] {
    return this.live
      .listed(ROLLOUTS)
      .filter((o) => metadataOf(o).namespace === this.namespace)
      .map((o) => {
        const key = metadataOf(o).name;
        const written = this.#written.get(key);
        if (!written || metadataOf(written).uid !== metadataOf(o).uid) return o;
        const latest = newer(o, written);
        if (latest === o) this.#written.delete(key);
        return latest;
      });
  }

  rollouts(): readonly RolloutObject[] {
    return this.#rollouts().map(toRollout);
  }

  rollout(namespace: string, name: string): RolloutObject | undefined {
    if (namespace !== this.namespace) return undefined;
    const found = this.#rollouts().find((o) => metadataOf(o).name === name);
    return found ? toRollout(found) : undefined;
  }

  members(namespace: string): readonly MemberObject[] {
    if (namespace !== this.namespace) return [];
    return this.memberClusters().map((o) => ({ namespace, name: metadataOf(o).name, labels: metadataOf(o).labels ?? {} }));
  }

  memberClusters(): KubeObject[] {
    return this.live.listed(MEMBERS).filter((o) => metadataOf(o).namespace === this.namespace);
  }

  allMembers(): readonly MemberObject[] {
    return this.members(this.namespace);
  }

  /** Where a MemberCluster's syncworker listens and which Secrets say how to reach it. */
  memberEndpoint(name: string): { readonly spec: MemberClusterSpec; readonly uid: string } | undefined {
    const found = this.memberClusters().find((o) => metadataOf(o).name === name);
    return found ? { spec: found["spec"] as MemberClusterSpec, uid: metadataOf(found).uid } : undefined;
  }

  memberCluster(namespace: string, name: string): { readonly generation: number; readonly status?: MemberClusterStatus } | undefined {
    if (namespace !== this.namespace) return undefined;
    const found = this.memberClusters().find((o) => metadataOf(o).name === name);
    if (!found) return undefined;
    return { generation: metadataOf(found).generation ?? 0, ...(found["status"] ? { status: found["status"] as MemberClusterStatus } : {}) };
  }

  async writeMemberStatus(namespace: string, name: string, status: MemberClusterStatus, signal: AbortSignal): Promise<void> {
    await this.client.patchStatus({ ...MEMBERS, namespace, name }, { ...status }, signal);
  }

  /** A Secret of the fleet's namespace, read when a member's connection is (re)made. */
  async secret(name: string, signal: AbortSignal): Promise<Record<string, Buffer> | undefined> {
    const secret = await this.client.get({ group: "", version: "v1", kind: "Secret", namespace: this.namespace, name }, signal);
    const data = (secret?.["data"] ?? {}) as Record<string, string>;
    return secret ? Object.fromEntries(Object.entries(data).map(([k, v]) => [k, Buffer.from(v, "base64")])) : undefined;
  }

  async writeStatus(rollout: RolloutObject, status: Partial<RolloutStatus>, signal: AbortSignal): Promise<boolean> {
    const obj: KubeObject = {
      apiVersion: `${FLEET_GROUP}/${FLEET_VERSION}`,
      kind: ROLLOUT_KIND,
      metadata: { name: rollout.name, namespace: rollout.namespace, uid: rollout.uid, resourceVersion: rollout.resourceVersion },
      spec: rollout.spec,
      status,
    };
    try {
      this.#written.set(rollout.name, await this.client.replaceStatus(obj, signal));
      return true;
    } catch (err) {
      if (err instanceof ApiError && err.code === 409) return false;
      throw err;
    }
  }
}

function toRollout(obj: KubeObject): RolloutObject {
  const m = metadataOf(obj);
  return {
    namespace: m.namespace,
    name: m.name,
    uid: m.uid,
    generation: m.generation ?? 0,
    resourceVersion: m.resourceVersion,
    spec: obj["spec"],
    ...(obj["status"] ? { status: obj["status"] as RolloutStatus } : {}),
  };
}
