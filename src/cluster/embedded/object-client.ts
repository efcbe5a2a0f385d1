import type { KubeObject } from "../../payload/manifest.js";
import { refOf } from "../errors.js";
import { type ObjectRef } from "../../core/index.js";
import type { ObjectClient } from "../object-client.js";
import type { ObjectStore } from "./store.js";

/**
 * The embedded store behind the applier's client interface. Every call first yields to the event
 * loop, as a request to a real API server would: otherwise a whole sync would run in one turn and
 * starve the gRPC server of the status streams it is supposed to feed.
 */
export class EmbeddedObjectClient implements ObjectClient {
  constructor(
    private readonly store: ObjectStore,
    private readonly roundTrip: () => Promise<void> = () => new Promise((resolve) => setImmediate(resolve)),
  ) {}

  async get(ref: ObjectRef): Promise<KubeObject | undefined> {
    await this.roundTrip();
    return this.store.tryGet(ref);
  }

  async apply(obj: KubeObject): Promise<KubeObject> {
    await this.roundTrip();
    return this.store.apply(obj).object;
  }

  async dryRunApply(obj: KubeObject): Promise<KubeObject> {
    await this.roundTrip();
    return this.store.apply(obj, { dryRun: true }).object;
  }

  async create(obj: KubeObject): Promise<"created" | "exists"> {
    await this.roundTrip();
    if (this.store.tryGet(refOf(obj))) return "exists";
    this.store.apply(obj);
    return "created";
  }

  async delete(ref: ObjectRef): Promise<void> {
    await this.roundTrip();
    this.store.delete(ref);
  }

  async patchStatus(ref: ObjectRef, status: Record<string, unknown>): Promise<void> {
    await this.roundTrip();
    const current = (this.store.get(ref)["status"] ?? {}) as Record<string, unknown>;
    this.store.updateStatus(ref, { ...current, ...status });
  }
}
