import { ValueError } from "../../config/index.js";
import { KubeConfig } from "@kubernetes/client-node";
import type { KubeObject } from "../../payload/manifest.js";
import { ApiError, refOf } from "../errors.js";
import { type ObjectRef } from "../../core/index.js";
import type { ObjectClient } from "../object-client.js";
import { compileKubeClientOptions, type KubeClientOptions } from "./http.js";
import { KubeTransport } from "./transport.js";

/** The field manager our server-side applies own fields under. */
export const FIELD_MANAGER = "syncworker";

interface Response {
  readonly status: number;
  readonly body: unknown;
}

interface ApiResource {
  name: string;
  kind: string;
  namespaced: boolean;
}

/** An API Status, the body of every failed request. */
interface Status {
  reason?: string;
  message?: string;
}

function apiVersionOf(ref: ObjectRef): string {
  return ref.group ? `${ref.group}/${ref.version}` : ref.version;
}

function groupVersionPath(apiVersion: string): string {
  return apiVersion.includes("/") ? `/apis/${apiVersion}` : `/api/${apiVersion}`;
}

/** The reasons the API server gives without a Status body, by HTTP code. */
const REASON_BY_CODE: Readonly<Record<number, string>> = {
  401: "Unauthorized",
  403: "Forbidden",
  404: "NotFound",
  409: "Conflict",
  422: "Invalid",
  429: "TooManyRequests",
  500: "InternalError",
  503: "ServiceUnavailable",
  504: "Timeout",
};

/**
 * The applier's object operations on a real cluster, with server-side apply. It speaks plain JSON
 * rather than client-node's typed models, because those serialize known kinds through generated
 * classes that drop fields they do not know and would mutate the manifest. Authentication and TLS
 * still come from the kubeconfig, exactly as kubectl would use it.
 */
export class KubeObjectClient implements ObjectClient {
  readonly transport: KubeTransport;
  readonly #resources = new Map<string, ApiResource[]>();

  constructor(
    readonly kubeConfig: KubeConfig,
    options: KubeClientOptions = {},
  ) {
    this.transport = new KubeTransport(kubeConfig, compileKubeClientOptions(options));
  }

  async #request(method: string, path: string, signal: AbortSignal, body?: unknown, contentType?: string): Promise<Response> {
    signal.throwIfAborted();
    const { status, text } = await this.transport.request(method, path, signal, body === undefined ? undefined : JSON.stringify(body), contentType);
    let parsed: unknown = undefined;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = { message: text.slice(0, 500) };
    }
    return { status, body: parsed };
  }

  /** Resource names per group version; a kind not found is looked up again, since CRDs appear during a sync. */
  async #resource(ref: ObjectRef, signal: AbortSignal): Promise<ApiResource> {
    const apiVersion = apiVersionOf(ref);
    const find = (): ApiResource | undefined => this.#resources.get(apiVersion)?.find((r) => r.kind === ref.kind);
    const cached = find();
    if (cached) return cached;
    const res = await this.#send(ref, "GET", groupVersionPath(apiVersion), signal).catch((err: unknown) => {
      if (err instanceof ApiError && err.code === 404) return undefined;
      throw err;
    });
    if (res)
      this.#resources.set(
        apiVersion,
        (res.body as { resources: ApiResource[] }).resources.filter((r) => !r.name.includes("/")),
      );
    const found = find();
    // The same words as kubectl's RESTMapper error, which the worker classifies as a missing type.
    if (!found) throw new ApiError(ref, "NoMatch", 0, `no matches for kind "${ref.kind}" in version "${apiVersion}"`);
    return found;
  }

  async #path(ref: ObjectRef, signal: AbortSignal, withName = true): Promise<string> {
    const resource = await this.#resource(ref, signal);
    const ns = resource.namespaced ? `/namespaces/${encodeURIComponent(ref.namespace || "default")}` : "";
    return `${groupVersionPath(apiVersionOf(ref))}${ns}/${resource.name}${withName ? `/${encodeURIComponent(ref.name)}` : ""}`;
  }

  /** A request whose failure (a non-2xx status or no answer) is an ApiError naming the object. */
  async #send(ref: ObjectRef, method: string, path: string, signal: AbortSignal, body?: unknown, contentType?: string): Promise<Response> {
    let res: Response;
    try {
      res = await this.#request(method, path, signal, body, contentType);
    } catch (err) {
      signal.throwIfAborted();
      const message = err instanceof Error ? err.message : String(err);
      throw new ApiError(ref, "ServiceUnavailable", 0, `${method} ${path}: ${message}`, err);
    }
    if (res.status >= 200 && res.status < 300) return res;
    const status = (res.body ?? {}) as Status;
    throw new ApiError(ref, status.reason || REASON_BY_CODE[res.status] || "UnexpectedServerError", res.status, status.message ?? `HTTP ${res.status}`);
  }

  /** The path of every object of `ref`'s kind in all namespaces (for a list or a watch). */
  async collectionPath(ref: ObjectRef, signal: AbortSignal): Promise<string> {
    const resource = await this.#resource(ref, signal);
    return `${groupVersionPath(apiVersionOf(ref))}/${resource.name}`;
  }

  /** Lists a collection path; returns its items and the list's resourceVersion (where a watch starts). */
  async list(ref: ObjectRef, path: string, signal: AbortSignal): Promise<{ items: KubeObject[]; resourceVersion: string }> {
    const body = (await this.#send(ref, "GET", path, signal)).body as { items?: KubeObject[]; metadata?: { resourceVersion?: string } };
    return { items: body.items ?? [], resourceVersion: body.metadata?.resourceVersion ?? "" };
  }

  async get(ref: ObjectRef, signal: AbortSignal): Promise<KubeObject | undefined> {
    try {
      return (await this.#send(ref, "GET", await this.#path(ref, signal), signal)).body as KubeObject;
    } catch (err) {
      if (err instanceof ApiError && err.code === 404) return undefined;
      throw err;
    }
  }

  apply(obj: KubeObject, signal: AbortSignal): Promise<KubeObject> {
    return this.#apply(obj, "", signal);
  }

  dryRunApply(obj: KubeObject, signal: AbortSignal): Promise<KubeObject> {
    return this.#apply(obj, "&dryRun=All", signal);
  }

  async #apply(obj: KubeObject, query: string, signal: AbortSignal): Promise<KubeObject> {
    const ref = refOf(obj);
    const path = `${await this.#path(ref, signal)}?fieldManager=${FIELD_MANAGER}&force=true${query}`;
    // JSON is YAML, so the apply patch content type takes the object as it is.
    return (await this.#send(ref, "PATCH", path, signal, obj, "application/apply-patch+yaml")).body as KubeObject;
  }

  /** Replaces the object (PUT); with `metadata.resourceVersion` set, a concurrent change fails with 409 Conflict. */
  async replace(obj: KubeObject, signal: AbortSignal): Promise<KubeObject> {
    const ref = refOf(obj);
    return (await this.#send(ref, "PUT", `${await this.#path(ref, signal)}?fieldManager=${FIELD_MANAGER}`, signal, obj)).body as KubeObject;
  }

  /** Creates the object and returns it as stored; 409 AlreadyExists is an ApiError like any failure. */
  async post(obj: KubeObject, signal: AbortSignal): Promise<KubeObject> {
    const ref = refOf(obj);
    return (await this.#send(ref, "POST", `${await this.#path(ref, signal, false)}?fieldManager=${FIELD_MANAGER}`, signal, obj)).body as KubeObject;
  }

  async create(obj: KubeObject, signal: AbortSignal): Promise<"created" | "exists"> {
    try {
      await this.post(obj, signal);
      return "created";
    } catch (err) {
      if (err instanceof ApiError && err.code === 409) return "exists";
      throw err;
    }
  }

  async delete(ref: ObjectRef, signal: AbortSignal): Promise<void> {
    try {
      // Background propagation, as the CVO's builders delete: dependents go with the owner.
      await this.#send(ref, "DELETE", await this.#path(ref, signal), signal, { kind: "DeleteOptions", apiVersion: "v1", propagationPolicy: "Background" });
    } catch (err) {
      if (!(err instanceof ApiError && err.code === 404)) throw err;
    }
  }

  /** Replaces the status subresource with `obj`'s status (PUT; a stale `metadata.resourceVersion` fails with 409). */
  async replaceStatus(obj: KubeObject, signal: AbortSignal): Promise<KubeObject> {
    const ref = refOf(obj);
    return (await this.#send(ref, "PUT", `${await this.#path(ref, signal)}/status`, signal, obj)).body as KubeObject;
  }

  async patchStatus(ref: ObjectRef, status: Record<string, unknown>, signal: AbortSignal): Promise<void> {
    await this.#send(ref, "PATCH", `${await this.#path(ref, signal)}/status`, signal, { status }, "application/merge-patch+json");
  }
}

/**
 * Loads a kubeconfig file (or the in-cluster service account when `path` is "in-cluster"), as kubectl would; one that
 * cannot be read or parsed stops start-up naming `--kubeconfig`.
 */
export function loadKubeConfig(path: string): KubeConfig {
  const kubeConfig = new KubeConfig();
  try {
    if (path === "in-cluster") kubeConfig.loadFromCluster();
    else kubeConfig.loadFromFile(path);
  } catch (err) {
    throw new ValueError("kubeconfig", `${path}: ${err instanceof Error ? err.message : String(err)}`);
  }
  return kubeConfig;
}
