import { readFile } from "node:fs/promises";
import { Agent, request as httpsRequest } from "node:https";

export interface RestResponse {
  readonly status: number;
  readonly body: unknown;
}

interface ApiResource {
  name: string;
  kind: string;
  namespaced: boolean;
}

/** The live object fields the tests read. */
export interface LiveObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; resourceVersion?: string; managedFields?: Array<{ manager?: string; operation?: string }> };
  status?: Record<string, unknown>;
  [key: string]: unknown;
}

/**
 * A deliberately small Kubernetes REST client for tests. It is independent of the applier's client
 * (src/cluster/kube) so a bug there cannot hide itself in the assertions that check it.
 */
export class KubeRest {
  readonly #resources = new Map<string, ApiResource[]>();

  private constructor(
    private readonly server: string,
    private readonly ca: Buffer,
    private readonly token: string,
    private readonly agent: Agent,
  ) {}

  static async create(server: string, caFile: string, token: string): Promise<KubeRest> {
    const ca = await readFile(caFile);
    return new KubeRest(server, ca, token, new Agent({ ca, keepAlive: true }));
  }

  caBase64(): string {
    return this.ca.toString("base64");
  }

  close(): void {
    this.agent.destroy();
  }

  request(method: string, path: string, body?: unknown, contentType = "application/json"): Promise<RestResponse> {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    return new Promise((resolve, reject) => {
      const req = httpsRequest(
        new URL(path, this.server),
        {
          method,
          agent: this.agent,
          timeout: 30_000,
          headers: {
            authorization: `Bearer ${this.token}`,
            accept: "application/json",
            ...(payload === undefined ? {} : { "content-type": contentType, "content-length": Buffer.byteLength(payload) }),
          },
        },
        (res) => {
          let text = "";
          res.setEncoding("utf8");
          res.on("data", (chunk: string) => (text += chunk));
          res.on("end", () => {
            let parsed: unknown = text;
            try {
              parsed = JSON.parse(text);
            } catch {
              // plain-text endpoints such as /readyz
            }
            resolve({ status: res.statusCode ?? 0, body: parsed });
          });
        },
      );
      req.on("timeout", () => req.destroy(new Error(`${method} ${path} timed out`)));
      req.on("error", reject);
      req.end(payload);
    });
  }

  /** Like request, but a status outside 2xx is an error naming the call. */
  async must(method: string, path: string, body?: unknown, contentType?: string): Promise<unknown> {
    const res = await this.request(method, path, body, contentType);
    if (res.status < 200 || res.status > 299) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body;
  }

  /** Discovery per group version; a kind missing from the cached list is looked up again, as CRDs arrive. */
  async #resourcesOf(apiVersion: string, kind: string): Promise<ApiResource[]> {
    let list = this.#resources.get(apiVersion);
    if (!list?.some((r) => r.kind === kind)) {
      const body = (await this.must("GET", apiVersion.includes("/") ? `/apis/${apiVersion}` : `/api/${apiVersion}`)) as { resources: ApiResource[] };
      list = body.resources.filter((r) => !r.name.includes("/"));
      this.#resources.set(apiVersion, list);
    }
    return list;
  }

  /** Whether the server serves `kind` in `apiVersion` (discovery, uncached on a miss). */
  async serves(apiVersion: string, kind: string): Promise<boolean> {
    this.#resources.delete(apiVersion);
    const res = await this.request("GET", apiVersion.includes("/") ? `/apis/${apiVersion}` : `/api/${apiVersion}`);
    if (res.status !== 200) return false;
    return (res.body as { resources: ApiResource[] }).resources.some((r) => r.kind === kind);
  }

  /** The REST path of an object (or of its collection when `name` is omitted). */
  async pathOf(apiVersion: string, kind: string, namespace?: string, name?: string): Promise<string> {
    const resource = (await this.#resourcesOf(apiVersion, kind)).find((r) => r.kind === kind);
    if (!resource) throw new Error(`the server does not serve ${kind} in ${apiVersion}`);
    const base = apiVersion.includes("/") ? `/apis/${apiVersion}` : `/api/${apiVersion}`;
    const ns = resource.namespaced && namespace ? `/namespaces/${namespace}` : "";
    return `${base}${ns}/${resource.name}${name ? `/${name}` : ""}`;
  }

  async get(apiVersion: string, kind: string, namespace: string | undefined, name: string): Promise<LiveObject | undefined> {
    const res = await this.request("GET", await this.pathOf(apiVersion, kind, namespace, name));
    if (res.status === 404) return undefined;
    if (res.status !== 200) throw new Error(`GET ${kind} ${namespace ?? ""}/${name}: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body as LiveObject;
  }

  async list(apiVersion: string, kind: string): Promise<LiveObject[]> {
    const body = (await this.must("GET", await this.pathOf(apiVersion, kind))) as { items: LiveObject[] };
    return body.items.map((item) => ({ ...item, apiVersion, kind }));
  }

  /** Merge-patches the status subresource, as an operator or a controller would. */
  async patchStatus(apiVersion: string, kind: string, namespace: string | undefined, name: string, status: Record<string, unknown>): Promise<void> {
    const path = `${await this.pathOf(apiVersion, kind, namespace, name)}/status`;
    await this.must("PATCH", path, { status }, "application/merge-patch+json");
  }

  /**
   * Requests the API server counted (`apiserver_request_total`), by "VERB resource", leaving out a sync
   * worker's own bookkeeping (its state ConfigMap, Events, the ClusterVersion view, the Lease) and status
   * writes (the tests' operator players report statuses).
   */
  async requestCounts(): Promise<Map<string, number>> {
    const text = (await this.request("GET", "/metrics")).body as string;
    const counts = new Map<string, number>();
    for (const line of text.split("\n")) {
      if (!line.startsWith("apiserver_request_total{")) continue;
      const labels: Record<string, string> = Object.fromEntries([...line.matchAll(/(\w+)="([^"]*)"/g)].map((m): [string, string] => [m[1] ?? "", m[2] ?? ""]));
      const resource = labels["resource"] ?? "";
      const bookkeeping = ["events", "leases", "clusterversions"].includes(resource) || (resource === "configmaps" && labels["verb"] === "PUT");
      if (bookkeeping || labels["subresource"] === "status") continue;
      const key = `${labels["verb"] ?? ""} ${resource}`;
      counts.set(key, (counts.get(key) ?? 0) + Number(line.slice(line.lastIndexOf(" ") + 1)));
    }
    return counts;
  }

  /** Server-side apply as kubectl does (field manager kubectl), refusing fields the schema does not know; throws naming the object. */
  async applyStrict(obj: { apiVersion: string; kind: string; metadata: { name: string; namespace?: string } }, dryRun: boolean): Promise<void> {
    const path = await this.pathOf(obj.apiVersion, obj.kind, obj.metadata.namespace, obj.metadata.name);
    const res = await this.request(
      "PATCH",
      `${path}?fieldManager=kubectl&force=true&fieldValidation=Strict${dryRun ? "&dryRun=All" : ""}`,
      obj,
      "application/apply-patch+yaml",
    );
    if (res.status < 200 || res.status >= 300)
      throw new Error(`${obj.kind} ${obj.metadata.name}${dryRun ? " (dry run)" : ""}: HTTP ${res.status} ${JSON.stringify(res.body)}`);
  }

  /** Server-side apply under the given field manager (the tests' own objects, such as CRDs). */
  async apply(obj: { apiVersion: string; kind: string; metadata: { name: string; namespace?: string } }, manager: string): Promise<LiveObject> {
    const path = await this.pathOf(obj.apiVersion, obj.kind, obj.metadata.namespace, obj.metadata.name);
    return (await this.must("PATCH", `${path}?fieldManager=${manager}&force=true`, obj, "application/apply-patch+yaml")) as LiveObject;
  }
}
