import { Watch } from "@kubernetes/client-node";
import type { KubeObject } from "../../payload/manifest.js";
import type { AppliedObjectCache } from "../applier.js";
import { formatRef, refOf, type ObjectRef } from "../errors.js";
import type { KubeObjectClient } from "./object-client.js";

/** Counts the cache reports; the composition root backs them with the metrics registry. */
export interface LiveCacheMetrics {
  /** Objects held for every watched kind. */
  objects(count: number): void;
  /** A watch of `kind` ended and was started again (after a list when its resourceVersion was too old). */
  watchRestart(kind: string, relist: boolean): void;
  /** An object we manage was changed or deleted by someone else. */
  drift(kind: string): void;
}

/** Every object is applied again at least this often, whatever the cache says: a guard against a cache bug. */
export const FULL_RESYNC_MS = 60 * 60_000;
/** Pause before a failed list or watch is tried again. */
const RETRY_MS = 1_000;

const keyOf = (ref: ObjectRef): string => `${ref.group}/${ref.kind}/${ref.namespace}/${ref.name}`;
const kindOf = (ref: ObjectRef): string => `${ref.group}/${ref.version}/${ref.kind}`;

/**
 * What an object says, without what the server and controllers change on their own: status, the
 * resourceVersion, the generation and managedFields. Equal fingerprints mean nobody edited it.
 */
export function fingerprint(obj: KubeObject): string {
  const { status: _status, metadata = {}, ...rest } = obj;
  const { resourceVersion: _rv, managedFields: _fields, generation: _generation, ...meta } = metadata;
  return JSON.stringify({ ...rest, metadata: meta });
}

interface Applied {
  /** The manifest text the object was applied from. */
  readonly raw: string;
  /** The object as the server stored it after that apply. */
  readonly fingerprint: string;
  readonly at: number;
}

interface KindWatch {
  synced: boolean;
  readonly objects: Map<string, KubeObject>;
}

/**
 * Live objects of every kind the applier touched, fed by a list and a watch per kind across all
 * namespaces (client-go's informer: bookmarks, a re-list when the watch's resourceVersion is too old,
 * a new watch whenever one ends). It remembers what each apply stored, so a reconcile pass skips an
 * object whose manifest is unchanged and which nobody edited since, and it reports an edit or a
 * deletion of an object we manage as drift, at once.
 */
export class LiveObjectCache implements AppliedObjectCache {
  readonly #kinds = new Map<string, KindWatch>();
  readonly #applied = new Map<string, Applied>();
  readonly #inFlight = new Map<string, number>();

  constructor(
    private readonly client: KubeObjectClient,
    private readonly onDrift: (message: string) => void,
    private readonly signal: AbortSignal,
    private readonly metrics: LiveCacheMetrics,
    private readonly onError: (err: unknown) => void,
    private readonly now: () => number = Date.now,
  ) {}

  unchanged(ref: ObjectRef, raw: string): KubeObject | undefined {
    const kind = this.#kind(ref);
    if (!kind.synced) return undefined;
    const key = keyOf(ref);
    const applied = this.#applied.get(key);
    const live = kind.objects.get(key);
    if (!applied || !live || applied.raw !== raw || this.now() - applied.at > FULL_RESYNC_MS) return undefined;
    return fingerprint(live) === applied.fingerprint ? live : undefined;
  }

  async apply(ref: ObjectRef, raw: string, send: () => Promise<KubeObject>): Promise<KubeObject> {
    const kind = this.#kind(ref);
    const key = keyOf(ref);
    // While our own write is on its way, its watch event is not drift.
    this.#inFlight.set(key, (this.#inFlight.get(key) ?? 0) + 1);
    try {
      const stored = await send();
      this.#applied.set(key, { raw, fingerprint: fingerprint(stored), at: this.now() });
      if (kind.synced) kind.objects.set(key, stored);
      return stored;
    } finally {
      const left = (this.#inFlight.get(key) ?? 1) - 1;
      if (left > 0) this.#inFlight.set(key, left);
      else this.#inFlight.delete(key);
    }
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
  #watch(ref: ObjectRef, kind: KindWatch, path: string, resourceVersion: string, seen: (rv: string) => void): Promise<"ended" | "gone"> {
    return new Promise((resolve) => {
      let outcome: "ended" | "gone" = "ended";
      const stop = new AbortController();
      const onAbort = (): void => stop.abort();
      this.signal.addEventListener("abort", onAbort, { once: true });
      void new Watch(this.client.kubeConfig)
        .watch(
          path,
          { resourceVersion, allowWatchBookmarks: true },
          (type: string, obj: KubeObject & { code?: number }) => {
            if (type === "ERROR") {
              if (obj.code === 410) outcome = "gone";
              return;
            }
            const rv = obj.metadata?.["resourceVersion"];
            if (typeof rv === "string") seen(rv);
            if (type === "BOOKMARK") return;
            this.#event(ref, kind, type, obj);
          },
          (err: unknown) => {
            this.signal.removeEventListener("abort", onAbort);
            if ((err as { statusCode?: number } | null)?.statusCode === 410) outcome = "gone";
            else if (err && !this.signal.aborted && (err as { name?: string }).name !== "AbortError") this.onError(err);
            resolve(outcome);
          },
        )
        .then((controller) => stop.signal.addEventListener("abort", () => controller.abort(), { once: true }));
    });
  }

  #event(ref: ObjectRef, kind: KindWatch, type: string, obj: KubeObject): void {
    const objRef = { ...refOf(obj), group: ref.group, version: ref.version, kind: ref.kind };
    const key = keyOf(objRef);
    if (type === "DELETED") kind.objects.delete(key);
    else kind.objects.set(key, obj);
    this.#reportObjects();
    this.#checkDrift(objRef, type === "DELETED" ? undefined : obj);
  }

  /** A fresh list replaces what the kind held; what changed or vanished meanwhile is drift too. */
  #replace(ref: ObjectRef, kind: KindWatch, items: readonly KubeObject[]): void {
    kind.objects.clear();
    for (const item of items) kind.objects.set(keyOf({ ...refOf(item), group: ref.group, kind: ref.kind }), item);
    this.#reportObjects();
    for (const key of this.#applied.keys()) {
      if (!key.startsWith(`${ref.group}/${ref.kind}/`)) continue;
      const [, , namespace = "", name = ""] = key.split("/");
      this.#checkDrift({ ...ref, namespace, name }, kind.objects.get(key));
    }
  }

  #checkDrift(ref: ObjectRef, live: KubeObject | undefined): void {
    const key = keyOf(ref);
    const applied = this.#applied.get(key);
    if (!applied || this.#inFlight.has(key)) return;
    if (live && fingerprint(live) === applied.fingerprint) return;
    this.metrics.drift(ref.kind);
    this.onDrift(`${formatRef(ref)} was ${live ? "changed" : "deleted"} by someone else`);
  }

  #reportObjects(): void {
    let count = 0;
    for (const kind of this.#kinds.values()) count += kind.objects.size;
    this.metrics.objects(count);
  }
}
