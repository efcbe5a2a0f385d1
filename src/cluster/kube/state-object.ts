import type { KubeObject } from "../../payload/manifest.js";
import { decodeState, encodeState, StateConflictError, StateError, type PersistedState, type StateStore } from "../../service/index.js";
import { ApiError } from "../errors.js";
import { createInNamespace } from "./namespace.js";
import type { KubeObjectClient } from "./object-client.js";

/** The key of the ConfigMap's data that holds the state document. */
const DATA_KEY = "state.json";
const LABELS = { "app.kubernetes.io/name": "syncworker", "app.kubernetes.io/component": "state" };
/** Pause before a watch that ended is started again. */
const REWATCH_MS = 1_000;

interface ConfigMap extends KubeObject {
  metadata: { name: string; namespace: string; resourceVersion?: string; labels?: Record<string, string> };
  data?: Record<string, string>;
}

/**
 * The state on a real cluster: a ConfigMap in the service's namespace, written with optimistic
 * concurrency. Every save sends the resourceVersion this store last read or wrote, so a save after
 * anyone else's write fails with {@link StateConflictError} instead of overwriting it: no two writers
 * can both win. A ConfigMap (not a custom resource) needs nothing installed first.
 */
export class KubeStateStore implements StateStore {
  readonly where: string;
  /** resourceVersion of the last load or save; undefined while the object is not known to exist. */
  #version: string | undefined;

  constructor(
    private readonly client: KubeObjectClient,
    private readonly namespace: string,
    /** A watch that failed or delivered a state that cannot be read (it is re-established). */
    private readonly onWatchError: (err: unknown) => void,
    private readonly name = "syncworker-state",
  ) {
    this.where = `ConfigMap ${namespace}/${name}`;
  }

  async load(signal: AbortSignal): Promise<PersistedState | undefined> {
    let live: ConfigMap | undefined;
    try {
      live = (await this.client.get(this.#ref(), signal)) as ConfigMap | undefined;
    } catch (err) {
      throw new StateError(this.where, `cannot be read: ${(err as Error).message}`, err);
    }
    this.#version = live?.metadata.resourceVersion;
    return live ? this.#decode(live) : undefined;
  }

  async save(state: PersistedState, signal: AbortSignal): Promise<void> {
    const text = encodeState(state, this.where);
    const object: ConfigMap = {
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: this.name, namespace: this.namespace, labels: LABELS, ...(this.#version ? { resourceVersion: this.#version } : {}) },
      data: { [DATA_KEY]: text },
    };
    try {
      const stored = (this.#version ? await this.client.replace(object, signal) : await createInNamespace(this.client, object, signal)) as ConfigMap;
      this.#version = stored.metadata.resourceVersion;
    } catch (err) {
      // A write whose answer was lost (a dropped connection, a timeout, or the transport's retry of it meeting
      // the first attempt's object as a conflict) may have landed: what the object holds tells, so a save
      // reported failed (an Update refused) was never stored, and a stored one is not taken for another writer's.
      const live = err instanceof ApiError && err.code !== 409 ? undefined : await this.#live(signal);
      if (live?.data?.[DATA_KEY] === text) {
        this.#version = live.metadata.resourceVersion;
        return;
      }
      if (err instanceof ApiError && err.code === 409) throw new StateConflictError(this.where, live ? this.#writerOf(live) : "");
      if (err instanceof ApiError && err.code === 404 && this.#version) {
        // Deleted behind our back: nobody else owns it, so it is written afresh at the next save.
        this.#version = undefined;
      }
      throw new StateError(this.where, `cannot be written: ${(err as Error).message}`, err);
    }
  }

  /** Follows the object with a watch (re-established whenever it ends) until `signal` aborts. */
  watch(onChange: (state: PersistedState) => void, signal: AbortSignal): void {
    const onError = this.onWatchError;
    const path = `/api/v1/namespaces/${encodeURIComponent(this.namespace)}/configmaps`;
    const run = async (): Promise<void> => {
      while (!signal.aborted) {
        try {
          await this.client.transport.watch(
            path,
            { fieldSelector: `metadata.name=${this.name}` },
            (type, object) => {
              if (type !== "ADDED" && type !== "MODIFIED") return;
              try {
                const state = this.#decode(object as ConfigMap);
                if (state) onChange(state);
              } catch (err) {
                onError(err);
              }
            },
            signal,
          );
        } catch (err) {
          if (!signal.aborted) onError(err);
        }
        await new Promise((resolve) => setTimeout(resolve, REWATCH_MS));
      }
    };
    void run();
  }

  #decode(live: ConfigMap): PersistedState | undefined {
    const text = live.data?.[DATA_KEY];
    if (text === undefined)
      throw new StateError(this.where, `has no data.${DATA_KEY}: it was not written by syncworker; remove it or choose another --namespace`);
    return decodeState(text, `${this.where} (data.${DATA_KEY})`);
  }

  /** The object as stored now; undefined when it cannot be read (the outcome of the write stays unknown). */
  async #live(signal: AbortSignal): Promise<ConfigMap | undefined> {
    try {
      return (await this.client.get(this.#ref(), signal)) as ConfigMap | undefined;
    } catch {
      return undefined;
    }
  }

  /** Who wrote the object that won, for the conflict message. */
  #writerOf(live: ConfigMap): string {
    try {
      return this.#decode(live)?.writer ?? "";
    } catch {
      return "";
    }
  }

  #ref(): { group: string; version: string; kind: string; namespace: string; name: string } {
    return { group: "", version: "v1", kind: "ConfigMap", namespace: this.namespace, name: this.name };
  }
}
