import type { KubeObject } from "../payload/manifest.js";
import type { AppliedObjectCache } from "./applier.js";
import { formatRef, objectKey, type ObjectRef } from "../core/index.js";

/** Every object is applied again at least this often, whatever the cache says: a guard against a cache bug. */
export const FULL_RESYNC_MS = 60 * 60_000;

/** Where live objects come from: a real cluster's watches, or the embedded store's change feed. */
export interface LiveObjects {
  /** Starts following `ref`'s kind if it is not followed yet. */
  follow(ref: ObjectRef): void;
  /** The live object, or undefined when absent; `synced` false while the kind's view is not current. */
  lookup(ref: ObjectRef): { readonly synced: boolean; readonly object: KubeObject | undefined };
}

/**
 * What an object says, without what the server and controllers change on their own: status, the
 * resourceVersion, the generation and managedFields; and without apiVersion and kind, which the items of
 * a list leave out (the key says them). Equal fingerprints mean nobody edited it.
 */
export function fingerprint(obj: KubeObject): string {
  const { status: _status, metadata = {}, apiVersion: _apiVersion, kind: _kind, ...rest } = obj;
  const { resourceVersion: _rv, managedFields: _fields, generation: _generation, ...meta } = metadata;
  return JSON.stringify({ ...rest, metadata: meta });
}

interface Applied {
  readonly ref: ObjectRef;
  /** The manifest text the object was applied from. */
  readonly raw: string;
  /** The object as the server stored it after that apply. */
  readonly stored: KubeObject;
  /** `fingerprint(stored)`, computed the first time a live copy with another resourceVersion needs it. */
  fingerprint?: string;
  readonly at: number;
}

/**
 * Whether `live` still says what `applied` stored: the same resourceVersion is the same object (no
 * serialization needed: the common case, our own write coming back through the watch); otherwise the
 * same fingerprint (a controller changed only its status).
 */
function unedited(applied: Applied, live: KubeObject): boolean {
  const version = live.metadata?.["resourceVersion"];
  if (version !== undefined && version === applied.stored.metadata?.["resourceVersion"]) return true;
  applied.fingerprint ??= fingerprint(applied.stored);
  return fingerprint(live) === applied.fingerprint;
}

/**
 * Remembers what each apply stored, so a reconcile pass skips an object whose manifest is unchanged
 * and which nobody edited since, and reports an edit or a deletion by someone else as drift the moment
 * the live-object feed shows it. The feed (watches, or the embedded store) calls {@link observed}.
 */
export class AppliedObjects implements AppliedObjectCache {
  readonly #applied = new Map<string, Applied>();
  readonly #inFlight = new Map<string, number>();

  constructor(
    private readonly live: LiveObjects,
    private readonly onDrift: (ref: ObjectRef, message: string) => void,
    private readonly now: () => number = Date.now,
  ) {}

  unchanged(ref: ObjectRef, raw: string): KubeObject | undefined {
    this.live.follow(ref);
    const { synced, object } = this.live.lookup(ref);
    const applied = this.#applied.get(objectKey(ref));
    if (!synced || !object || !applied || applied.raw !== raw || this.now() - applied.at > FULL_RESYNC_MS) return undefined;
    return unedited(applied, object) ? object : undefined;
  }

  current(ref: ObjectRef): { readonly object: KubeObject | undefined } | undefined {
    this.live.follow(ref);
    const { synced, object } = this.live.lookup(ref);
    return synced ? { object } : undefined;
  }

  async apply(ref: ObjectRef, raw: string, send: () => Promise<KubeObject>): Promise<KubeObject> {
    this.live.follow(ref);
    const key = objectKey(ref);
    // While our own write is on its way, the change it causes is not drift.
    this.#inFlight.set(key, (this.#inFlight.get(key) ?? 0) + 1);
    try {
      const stored = await send();
      this.#applied.set(key, { ref, raw, stored, at: this.now() });
      return stored;
    } finally {
      const left = (this.#inFlight.get(key) ?? 1) - 1;
      if (left > 0) this.#inFlight.set(key, left);
      else this.#inFlight.delete(key);
    }
  }

  /** The feed saw `ref` as `live` (undefined: deleted); a managed object that no longer says what we applied drifted. */
  observed(ref: ObjectRef, live: KubeObject | undefined): void {
    const key = objectKey(ref);
    const applied = this.#applied.get(key);
    if (!applied || this.#inFlight.has(key)) return;
    if (live && unedited(applied, live)) return;
    this.onDrift(ref, `${formatRef(ref)} was ${live ? "changed" : "deleted"} by someone else`);
  }

  /** The managed objects of one kind (for a feed that re-listed it). */
  managed(group: string, kind: string): ObjectRef[] {
    return [...this.#applied.values()].map((a) => a.ref).filter((ref) => ref.group === group && ref.kind === kind);
  }
}
