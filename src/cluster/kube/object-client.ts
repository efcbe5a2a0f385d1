import {
  ApiException,
  CustomObjectsApi,
  KubeConfig,
  KubernetesObjectApi,
  PatchStrategy,
  setHeaderOptions,
  type KubernetesObject,
} from "@kubernetes/client-node";
import type { KubeObject } from "../../payload/manifest.js";
import { ApiError, refOf, type ObjectRef } from "../errors.js";
import type { ObjectClient } from "../object-client.js";

/** The field manager our server-side applies own fields under. */
export const FIELD_MANAGER = "syncworker";

/** Exposes the resource discovery the object API already caches (to find a kind's plural). */
class DiscoveringObjectApi extends KubernetesObjectApi {
  /** The namespace of the kubeconfig's context, for namespaced objects that name none. */
  useNamespaceOf(kubeConfig: KubeConfig): void {
    this.setDefaultNamespace(kubeConfig);
  }

  async pluralOf(apiVersion: string, kind: string): Promise<string> {
    const resource = await this.resource(apiVersion, kind);
    if (!resource) throw new Error(`the server does not serve ${kind} in ${apiVersion}: no matches for kind "${kind}"`);
    return resource.name;
  }
}

function apiVersionOf(ref: ObjectRef): string {
  return ref.group ? `${ref.group}/${ref.version}` : ref.version;
}

function header(obj: KubeObject): KubernetesObject {
  return { apiVersion: obj.apiVersion ?? "", kind: obj.kind ?? "", metadata: { name: obj.metadata?.name ?? "", namespace: obj.metadata?.namespace ?? "" } };
}

/** Turns a client-node failure into an ApiError carrying the Status reason and naming the object. */
function apiError(ref: ObjectRef, err: unknown): ApiError {
  if (err instanceof ApiException) {
    const body = (typeof err.body === "string" ? safeJson(err.body) : err.body) as { reason?: string; message?: string } | undefined;
    return new ApiError(ref, body?.reason || String(err.code), err.code, body?.message ?? err.message, err);
  }
  const message = err instanceof Error ? err.message : String(err);
  return new ApiError(ref, message.includes("no matches for kind") ? "NotFound" : "ServiceUnavailable", 0, message, err);
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** The applier's object operations on a real cluster, with server-side apply. */
export class KubeObjectClient implements ObjectClient {
  readonly #objects: DiscoveringObjectApi;
  readonly #custom: CustomObjectsApi;

  constructor(kubeConfig: KubeConfig) {
    this.#objects = kubeConfig.makeApiClient(DiscoveringObjectApi);
    this.#objects.useNamespaceOf(kubeConfig);
    this.#custom = kubeConfig.makeApiClient(CustomObjectsApi);
  }

  async get(ref: ObjectRef, signal: AbortSignal): Promise<KubeObject | undefined> {
    signal.throwIfAborted();
    try {
      const spec = { apiVersion: apiVersionOf(ref), kind: ref.kind, metadata: { name: ref.name, namespace: ref.namespace } };
      return await this.#objects.read<KubeObject & KubernetesObject>(spec);
    } catch (err) {
      if (err instanceof ApiException && err.code === 404) return undefined;
      throw apiError(ref, err);
    }
  }

  async apply(obj: KubeObject, signal: AbortSignal): Promise<KubeObject> {
    signal.throwIfAborted();
    try {
      return await this.#objects.patch<KubeObject & KubernetesObject>(obj, undefined, undefined, FIELD_MANAGER, true, PatchStrategy.ServerSideApply);
    } catch (err) {
      throw apiError(refOf(obj), err);
    }
  }

  async create(obj: KubeObject, signal: AbortSignal): Promise<"created" | "exists"> {
    signal.throwIfAborted();
    try {
      await this.#objects.create(obj, undefined, undefined, FIELD_MANAGER);
      return "created";
    } catch (err) {
      if (err instanceof ApiException && err.code === 409) return "exists";
      throw apiError(refOf(obj), err);
    }
  }

  async delete(ref: ObjectRef, signal: AbortSignal): Promise<void> {
    signal.throwIfAborted();
    const live = await this.get(ref, signal);
    if (!live) return;
    try {
      await this.#objects.delete(header(live));
    } catch (err) {
      if (!(err instanceof ApiException && err.code === 404)) throw apiError(ref, err);
    }
  }

  async patchStatus(ref: ObjectRef, status: Record<string, unknown>, signal: AbortSignal): Promise<void> {
    signal.throwIfAborted();
    const live = await this.get(ref, signal);
    if (!live) throw new ApiError(ref, "NotFound", 404, "not found");
    const version = ref.version;
    try {
      const plural = await this.#objects.pluralOf(apiVersionOf(ref), ref.kind);
      const options = setHeaderOptions("Content-Type", PatchStrategy.MergePatch);
      const body = { status };
      await (ref.namespace
        ? this.#custom.patchNamespacedCustomObjectStatus({ group: ref.group, version, namespace: ref.namespace, plural, name: ref.name, body }, options)
        : this.#custom.patchClusterCustomObjectStatus({ group: ref.group, version, plural, name: ref.name, body }, options));
    } catch (err) {
      throw apiError(ref, err);
    }
  }
}

/** Loads a kubeconfig file (or the in-cluster service account when `path` is "in-cluster"). */
export function loadKubeConfig(path: string): KubeConfig {
  const kubeConfig = new KubeConfig();
  if (path === "in-cluster") kubeConfig.loadFromCluster();
  else kubeConfig.loadFromFile(path);
  return kubeConfig;
}
