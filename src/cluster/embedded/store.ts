import { randomUUID } from "node:crypto";
import type { KubeObject } from "../../payload/manifest.js";
import { ApiError, refOf } from "../errors.js";
import { objectKey, type ObjectRef, deepFreeze } from "../../core/index.js";

export type ChangeAction = "created" | "configured" | "unchanged" | "deleted";

export interface StoredObject extends KubeObject {
  metadata: NonNullable<KubeObject["metadata"]> & {
    name: string;
    uid: string;
    resourceVersion: string;
    generation: number;
    creationTimestamp: string;
  };
}

/** Fields a writer of the spec owns; metadata and status are the server's and controllers'. */
function specOf(obj: KubeObject): Record<string, unknown> {
  const { apiVersion: _a, kind: _k, metadata: _m, status: _s, ...spec } = obj;
  return spec;
}

/**
 * The embedded cluster's object store: enough Kubernetes semantics for the worker (apply with a
 * field manager, get, delete, metadata.generation bumped on spec changes, a separate status writer,
 * resourceVersion per write) and a change feed for the simulated controllers.
 *
 * Stored objects are deeply frozen and shared with readers instead of copied: payloads hold large
 * CRDs, and a reconcile pass re-applies all of them.
 */
export class ObjectStore {
  readonly #objects = new Map<string, StoredObject>();
  /** What the last apply sent, per object: an identical apply is a no-op, like server-side apply. */
  readonly #lastApplied = new Map<string, string>();
  #resourceVersion = 0;
  readonly #listeners = new Set<(obj: StoredObject, action: ChangeAction) => void>();

  constructor(private readonly now: () => Date) {}

  get(ref: ObjectRef): StoredObject {
    const obj = this.#objects.get(objectKey(ref));
    if (!obj) throw new ApiError(ref, "NotFound", 404, "not found");
    return obj;
  }

  tryGet(ref: ObjectRef): StoredObject | undefined {
    return this.#objects.get(objectKey(ref));
  }

  list(): StoredObject[] {
    return [...this.#objects.values()];
  }

  onChange(listener: (obj: StoredObject, action: ChangeAction) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /**
   * Server-side-apply-like write: the applied object's top-level fields replace the stored ones,
   * labels and annotations merge key by key, status is left to the status writer. A write that
   * changes nothing is reported `unchanged` and bumps no resourceVersion. A dry run (`dryRun=All`) returns the
   * object the write would store, and stores, records and announces nothing.
   */
  apply(obj: KubeObject, options: { readonly dryRun?: boolean } = {}): { object: StoredObject; action: ChangeAction } {
    const dryRun = options.dryRun === true;
    const ref = refOf(obj);
    if (!ref.kind || !ref.name) throw new ApiError(ref, "Invalid", 422, "kind and metadata.name are required");
    const key = objectKey(ref);
    const existing = this.#objects.get(key);
    const sent = JSON.stringify(obj);
    if (existing && this.#lastApplied.get(key) === sent) return { object: existing, action: "unchanged" };
    if (!dryRun) this.#lastApplied.set(key, sent);
    const nextVersion = (): string => String(dryRun ? this.#resourceVersion + 1 : ++this.#resourceVersion);
    const applied = JSON.parse(sent) as KubeObject;

    if (!existing) {
      const created: StoredObject = {
        ...applied,
        metadata: {
          ...applied.metadata,
          name: ref.name,
          uid: randomUUID(),
          resourceVersion: nextVersion(),
          generation: 1,
          creationTimestamp: this.now().toISOString(),
        },
      };
      return dryRun ? { object: created, action: "created" } : this.#store(key, created, "created");
    }
    const labels = { ...existing.metadata.labels, ...applied.metadata?.labels };
    const annotations = { ...existing.metadata.annotations, ...applied.metadata?.annotations };
    const spec = { ...specOf(existing), ...specOf(applied) };
    const specChanged = JSON.stringify(spec) !== JSON.stringify(specOf(existing));
    const metaChanged =
      JSON.stringify(labels) !== JSON.stringify(existing.metadata.labels ?? {}) ||
      JSON.stringify(annotations) !== JSON.stringify(existing.metadata.annotations ?? {});
    if (!specChanged && !metaChanged) return { object: existing, action: "unchanged" };
    const updated: StoredObject = {
      ...spec,
      apiVersion: applied.apiVersion ?? existing.apiVersion,
      kind: existing.kind,
      metadata: {
        ...existing.metadata,
        labels,
        annotations,
        resourceVersion: nextVersion(),
        generation: existing.metadata.generation + (specChanged ? 1 : 0),
      },
      ...(existing["status"] === undefined ? {} : { status: existing["status"] }),
    };
    return dryRun ? { object: updated, action: "configured" } : this.#store(key, updated, "configured");
  }

  /** Replaces the status subresource, as a controller would. */
  updateStatus(ref: ObjectRef, status: unknown): StoredObject {
    const existing = this.#objects.get(objectKey(ref));
    if (!existing) throw new ApiError(ref, "NotFound", 404, "not found");
    const updated: StoredObject = {
      ...existing,
      status: JSON.parse(JSON.stringify(status)) as unknown,
      metadata: { ...existing.metadata, resourceVersion: String(++this.#resourceVersion) },
    };
    return this.#store(objectKey(ref), updated, "configured").object;
  }

  delete(ref: ObjectRef): void {
    const existing = this.#objects.get(objectKey(ref));
    if (!existing) throw new ApiError(ref, "NotFound", 404, "not found");
    this.#objects.delete(objectKey(ref));
    this.#lastApplied.delete(objectKey(ref));
    this.#emit(existing, "deleted");
  }

  #store(key: string, obj: StoredObject, action: ChangeAction): { object: StoredObject; action: ChangeAction } {
    this.#objects.set(key, deepFreeze(obj));
    this.#emit(obj, action);
    return { object: obj, action };
  }

  #emit(obj: StoredObject, action: ChangeAction): void {
    for (const listener of this.#listeners) listener(obj, action);
  }
}
