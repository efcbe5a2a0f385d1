import type { KubeObject } from "../../payload/manifest.js";
import { refOf, type ObjectRef } from "../errors.js";
import type { ObjectClient } from "../object-client.js";
import type { ObjectStore } from "./store.js";

/** The embedded store behind the applier's client interface. */
export class EmbeddedObjectClient implements ObjectClient {
  constructor(private readonly store: ObjectStore) {}

  async get(ref: ObjectRef): Promise<KubeObject | undefined> {
    return this.store.tryGet(ref);
  }

  async apply(obj: KubeObject): Promise<KubeObject> {
    return this.store.apply(obj).object;
  }

  async create(obj: KubeObject): Promise<"created" | "exists"> {
    if (this.store.tryGet(refOf(obj))) return "exists";
    this.store.apply(obj);
    return "created";
  }

  async delete(ref: ObjectRef): Promise<void> {
    this.store.delete(ref);
  }

  async patchStatus(ref: ObjectRef, status: Record<string, unknown>): Promise<void> {
    const current = (this.store.get(ref)["status"] ?? {}) as Record<string, unknown>;
    this.store.updateStatus(ref, { ...current, ...status });
  }
}
