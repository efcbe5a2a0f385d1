import type { KubeObject } from "../../payload/manifest.js";
import type { LeaseClient, LeaseRecord } from "../../service/index.js";
import type { ObjectRef } from "../../core/index.js";
import { createInNamespace } from "./namespace.js";
import type { KubeObjectClient } from "./object-client.js";

interface Lease extends KubeObject {
  metadata: { name: string; namespace: string; resourceVersion?: string };
  spec?: {
    holderIdentity?: string;
    leaseDurationSeconds?: number;
    acquireTime?: string;
    renewTime?: string;
    leaseTransitions?: number;
  };
}

/** Kubernetes MicroTime: RFC 3339 with microseconds. */
function microTime(date: Date): string {
  return date.toISOString().replace(/\.(\d{3})Z$/, ".$1000Z");
}

function parseTime(text: string | undefined): Date {
  const ms = text ? Date.parse(text) : Number.NaN;
  return new Date(Number.isFinite(ms) ? ms : 0);
}

/** The leader election record in a `coordination.k8s.io/v1` Lease, as client-go's LeaseLock keeps it. */
export class KubeLeaseClient implements LeaseClient {
  readonly where: string;
  readonly #ref: ObjectRef;

  constructor(
    private readonly client: KubeObjectClient,
    private readonly namespace: string,
    private readonly name = "syncworker-leader",
  ) {
    this.where = `Lease ${namespace}/${name}`;
    this.#ref = { group: "coordination.k8s.io", version: "v1", kind: "Lease", namespace, name };
  }

  async get(signal: AbortSignal): Promise<{ record: LeaseRecord; version: string } | undefined> {
    const lease = (await this.client.get(this.#ref, signal)) as Lease | undefined;
    if (!lease) return undefined;
    const spec = lease.spec ?? {};
    return {
      version: lease.metadata.resourceVersion ?? "",
      record: {
        holderIdentity: spec.holderIdentity ?? "",
        leaseDurationSeconds: spec.leaseDurationSeconds ?? 0,
        acquireTime: parseTime(spec.acquireTime),
        renewTime: parseTime(spec.renewTime),
        leaseTransitions: spec.leaseTransitions ?? 0,
      },
    };
  }

  async create(record: LeaseRecord, signal: AbortSignal): Promise<void> {
    await createInNamespace(this.client, this.#lease(record), signal);
  }

  async update(record: LeaseRecord, version: string, signal: AbortSignal): Promise<void> {
    const lease = this.#lease(record);
    await this.client.replace({ ...lease, metadata: { ...lease.metadata, resourceVersion: version } }, signal);
  }

  #lease(record: LeaseRecord): Lease {
    return {
      apiVersion: "coordination.k8s.io/v1",
      kind: "Lease",
      metadata: { name: this.name, namespace: this.namespace },
      spec: {
        holderIdentity: record.holderIdentity,
        leaseDurationSeconds: record.leaseDurationSeconds,
        acquireTime: microTime(record.acquireTime),
        renewTime: microTime(record.renewTime),
        leaseTransitions: record.leaseTransitions,
      },
    };
  }
}
