import { randomUUID } from "node:crypto";
import { isDeepStrictEqual } from "node:util";
import type { KubeObject } from "../../payload/manifest.js";
import { ApiError, refOf, type ObjectRef } from "../errors.js";

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

function keyOf(ref: ObjectRef): string {
  return `${ref.group}/${ref.kind}/${ref.namespace}/${ref.name}`;
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
 */
export class ObjectStore {
  readonly #objects = new Map<string, StoredObject>();
  #resourceVersion = 0;
  readonly #listeners = new Set<(obj: StoredObject, action: ChangeAction) => void>();

  constructor(private readonly now: () => Date) {}

  get(ref: ObjectRef): StoredObject {
    const obj = this.#objects.get(keyOf(ref));
    if (!obj) throw new ApiError(ref, "NotFound", 404, "not found");
    return structuredClone(obj);
  }

  tryGet(ref: ObjectRef): StoredObject | undefined {
    const obj = this.#objects.get(keyOf(ref));
    return obj && structuredClone(obj);
  }

  list(): StoredObject[] {
    return [...this.#objects.values()].map((o) => structuredClone(o));
  }

  onChange(listener: (obj: StoredObject, action: ChangeAction) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /**
   * Server-side-apply-like write: the applied object's top-level fields replace the stored ones,
   * labels and annotations merge key by key, status is left to the status writer. A write that
   * changes nothing is reported `unchanged` and bumps no resourceVersion.
   */
  apply(obj: KubeObject): { object: StoredObject; action: ChangeAction } {
    const ref = refOf(obj);
    if (!ref.kind || !ref.name) throw new ApiError(ref, "Invalid", 422, "kind and metadata.name are required");
    const key = keyOf(ref);
    const existing = this.#objects.get(key);
    if (!existing) {
      const created: StoredObject = {
        ...structuredClone(obj),
        metadata: {
          ...structuredClone(obj.metadata ?? {}),
          name: ref.name,
          uid: randomUUID(),
          resourceVersion: String(++this.#resourceVersion),
          generation: 1,
          creationTimestamp: this.now().toISOString(),
        },
      };
      this.#objects.set(key, created);
      this.#emit(created, "created");
      return { object: structuredClone(created), action: "created" };
    }
    const labels = { ...existing.metadata.labels, ...obj.metadata?.labels };
    const annotations = { ...existing.metadata.annotations, ...obj.metadata?.annotations };
    const spec = { ...specOf(existing), ...structuredClone(specOf(obj)) };
    const specChanged = !isDeepStrictEqual(spec, specOf(existing));
    const metaChanged = !isDeepStrictEqual(labels, existing.metadata.labels ?? {}) || !isDeepStrictEqual(annotations, existing.metadata.annotations ?? {});
    if (!specChanged && !metaChanged) return { object: structuredClone(existing), action: "unchanged" };
    const updated: StoredObject = {
      ...spec,
      apiVersion: obj.apiVersion ?? existing.apiVersion,
      kind: existing.kind,
      metadata: {
        ...existing.metadata,
        labels,
        annotations,
        resourceVersion: String(++this.#resourceVersion),
        generation: existing.metadata.generation + (specChanged ? 1 : 0),
      },
      ...(existing["status"] === undefined ? {} : { status: existing["status"] }),
    };
    this.#objects.set(key, updated);
    this.#emit(updated, "configured");
    return { object: structuredClone(updated), action: "configured" };
  }

  /** Replaces the status subresource, as a controller would. */
  updateStatus(ref: ObjectRef, status: unknown): StoredObject {
    const existing = this.#objects.get(keyOf(ref));
    if (!existing) throw new ApiError(ref, "NotFound", 404, "not found");
    const updated: StoredObject = {
      ...existing,
      status: structuredClone(status),
      metadata: { ...existing.metadata, resourceVersion: String(++this.#resourceVersion) },
    };
    this.#objects.set(keyOf(ref), updated);
    this.#emit(updated, "configured");
    return structuredClone(updated);
  }

  delete(ref: ObjectRef): void {
    const existing = this.#objects.get(keyOf(ref));
    if (!existing) throw new ApiError(ref, "NotFound", 404, "not found");
    this.#objects.delete(keyOf(ref));
    this.#emit(existing, "deleted");
  }

  #emit(obj: StoredObject, action: ChangeAction): void {
    for (const listener of this.#listeners) listener(obj, action);
  }
}
