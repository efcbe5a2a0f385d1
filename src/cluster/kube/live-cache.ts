import type { KubeObject } from "../../payload/manifest.js";
import type { LiveObjects } from "../applied-objects.js";
import { refOf } from "../errors.js";
import { objectKey, type ObjectRef } from "../../core/index.js";
import type { KubeObjectClient } from "./object-client.js";
import { WatchRefusedError } from "./transport.js";

/** Counts the cache reports; the composition root backs them with the metrics registry. */
export interface LiveCacheMetrics {
  /** Objects held for every watched kind. */
  objects(count: number): void;
  /** A watch of `kind` ended and was started again (after a list when its resourceVersion was too old). */
  watchRestart(kind: string, relist: boolean): void;
  /** An object we manage was changed or deleted by someone else. */
  drift(kind: string): void;
}

const kindOf = (ref: Pick<ObjectRef, "group" | "version" | "kind">): string => `${ref.group}/${ref.version}/${ref.kind}`;
/** Pause before a failed list or watch is tried again. */
const RETRY_MS = 1_000;

interface KindWatch {
  synced: boolean;
  readonly objects: Map<string, KubeObject>;
}

/** Told about every change the watches see, and about every kind listed afresh. */
export interface LiveObjectEvents {
  changed(ref: ObjectRef, live: KubeObject | undefined): void;
  relisted(kind: ObjectRef): void;
}

/**
 * Live objects of every kind followed, fed by a list and a watch per kind across all namespaces
 * (client-go's informer: bookmarks, a re-list when the watch's resourceVersion is too old, a new watch
 * whenever one ends). Kinds are followed from the first time the applier touches them.
 */
export class WatchedObjects implements LiveObjects {
  readonly #kinds = new Map<string, KindWatch>();
  events: LiveObjectEvents = { changed: () => undefined, relisted: () => undefined };

  constructor(
    private readonly client: KubeObjectClient,
    private readonly signal: AbortSignal,
    private readonly metrics: LiveCacheMetrics,
    private readonly onError: (err: unknown) => void,
  ) {}

  follow(ref: ObjectRef): void {
    this.#kind(ref);
  }

  /** The objects of a kind already followed, as last seen (as an informer's lister); reading never starts a watch. */
  listed(kind: Pick<ObjectRef, "group" | "version" | "kind">): KubeObject[] {
    return [...(this.#kinds.get(kindOf(kind))?.objects.values() ?? [])];
  }

  lookup(ref: ObjectRef): { synced: boolean; object: KubeObject | undefined } {
    const kind = this.#kind(ref);
    return { synced: kind.synced, object: kind.synced ? kind.objects.get(objectKey(ref)) : undefined };
  }

  /** The kind's watch, started on first use. */
  #kind(ref: ObjectRef): KindWatch {
    const id = kindOf(ref);
    let kind = this.#kinds.get(id);
    if (!kind) {
      kind = { synced: false, objects: new Map() };
      this.#kinds.set(id, kind);
      void this.#run(ref, kind);
    }
    return kind;
  }

  /** List, then watch from the list's resourceVersion; again after every end, until the cache stops. */
  async #run(ref: ObjectRef, kind: KindWatch): Promise<void> {
    let resourceVersion = "";
    let path = "";
    while (!this.signal.aborted) {
      try {
        path ||= await this.client.collectionPath(ref, this.signal);
        if (!resourceVersion) {
          kind.synced = false;
          const listed = await this.client.list(ref, path, this.signal);
          this.#replace(ref, kind, listed.items);
          resourceVersion = listed.resourceVersion;
          kind.synced = true;
          this.events.relisted(ref);
        }
        const ended = await this.#watch(ref, kind, path, resourceVersion, (rv) => (resourceVersion = rv));
        if (ended === "gone") resourceVersion = "";
        if (this.signal.aborted) return;
        this.metrics.watchRestart(ref.kind, ended === "gone");
      } catch (err) {
        if (this.signal.aborted) return;
        this.onError(err);
        resourceVersion = "";
        await new Promise((resolve) => setTimeout(resolve, RETRY_MS));
      }
    }
  }

  /** One watch; resolves when it ends: "gone" when its resourceVersion is too old (410) and a list must come first. */
  async #watch(ref: ObjectRef, kind: KindWatch, path: string, resourceVersion: string, seen: (rv: string) => void): Promise<"ended" | "gone"> {
    let outcome: "ended" | "gone" = "ended";
    try {
      await this.client.transport.watch(
        path,
        { resourceVersion, allowWatchBookmarks: "true" },
        (type, obj) => {
          if (type === "ERROR") {
            if ((obj as { code?: number }).code === 410) outcome = "gone";
            return;
          }
          const rv = (obj as KubeObject).metadata?.["resourceVersion"];
          if (typeof rv === "string") seen(rv);
          if (type === "BOOKMARK") return;
          this.#event(ref, kind, type, obj);
        },
        this.signal,
      );
    } catch (err) {
      if (err instanceof WatchRefusedError && err.statusCode === 410) return "gone";
      throw err;
    }
    return outcome;
  }

  #event(ref: ObjectRef, kind: KindWatch, type: string, obj: KubeObject): void {
    const objRef = { ...refOf(obj), group: ref.group, version: ref.version, kind: ref.kind };
    const key = objectKey(objRef);
    if (type === "DELETED") kind.objects.delete(key);
    else kind.objects.set(key, obj);
    this.#reportObjects();
    this.events.changed(objRef, type === "DELETED" ? undefined : obj);
  }

  /** A fresh list replaces what the kind held; what changed or vanished meanwhile shows in `relisted`. */
  #replace(ref: ObjectRef, kind: KindWatch, items: readonly KubeObject[]): void {
    kind.objects.clear();
    for (const item of items) kind.objects.set(objectKey({ ...refOf(item), group: ref.group, kind: ref.kind }), item);
    this.#reportObjects();
  }

  #reportObjects(): void {
    let count = 0;
    for (const kind of this.#kinds.values()) count += kind.objects.size;
    this.metrics.objects(count);
  }
}
