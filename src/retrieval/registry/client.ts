/**
 * A client of the OCI distribution API (https://github.com/opencontainers/distribution-spec) over undici.
 * Written here rather than taken from a library: the npm registry clients are either Docker-daemon clients or
 * unmaintained, and a release pull needs only a handful of calls (manifest, blob, and for `push-payload` the
 * monolithic upload), with the token challenge flow, a custom CA and digests checked by the caller.
 */
import { rootCertificates } from "node:tls";
import type { Readable } from "node:stream";
import { Agent, request, type Dispatcher } from "undici";
import { basicAuthorization, credentialsFor, parseChallenge, type Challenge, type Credentials } from "./auth.js";
import { DEFAULT_PULL_LIMITS, type PullLimits } from "./limits.js";
import type { ImageReference } from "./reference.js";

/** How a {@link RegistryClient} reaches registries. */
export interface RegistryClientOptions {
  /** Docker config.json with credentials; "" for anonymous pulls. */
  readonly authFile: string;
  /** A missing `authFile` means anonymous (the default locations) instead of an error (an explicit `--pull-secret`). */
  readonly authFileOptional: boolean;
  /** Extra trusted CA certificates (PEM), added to Node's bundled roots. */
  readonly caPem?: string;
  /** `host[:port]`s spoken to over plain HTTP (loopback only, checked by the options). */
  readonly insecureHosts?: readonly string[];
  /** Response size and stall bounds; {@link DEFAULT_PULL_LIMITS} when absent. */
  readonly limits?: Pick<PullLimits, "maxResponseBytes" | "stallTimeoutMs">;
}

/** A manifest as served: its bytes (which the digest is computed over) and media type. */
export interface FetchedManifest {
  readonly mediaType: string;
  readonly bytes: Buffer;
}

/** Every manifest type a release image may come as: OCI and Docker v2 schema 2, single or multi-architecture. */
export const MANIFEST_TYPES = [
  "application/vnd.oci.image.index.v1+json",
  "application/vnd.oci.image.manifest.v1+json",
  "application/vnd.docker.distribution.manifest.list.v2+json",
  "application/vnd.docker.distribution.manifest.v2+json",
] as const;

type Action = "pull" | "pull,push";
type Response = Dispatcher.ResponseData;
/** A response and the request it answers (`GET https://…`), which errors about its body name. */
interface Sent {
  readonly res: Response;
  readonly request: string;
}

const MAX_REDIRECTS = 5;

/**
 * Talks to registries for one service. Bearer tokens are kept per registry and scope until they are refused,
 * so a pull asks the token server once. Safe to share between concurrent pulls.
 */
export class RegistryClient {
  readonly #agent: Agent;
  readonly #tokens = new Map<string, string>();
  readonly #limits: Pick<PullLimits, "maxResponseBytes" | "stallTimeoutMs">;

  constructor(private readonly options: RegistryClientOptions) {
    this.#limits = options.limits ?? DEFAULT_PULL_LIMITS;
    // undici's headers and body timeouts are the stall timeout: no response, or no body bytes, for that long.
    const stall = this.#limits.stallTimeoutMs;
    this.#agent = new Agent({ connect: options.caPem ? { ca: [...rootCertificates, options.caPem] } : {}, headersTimeout: stall, bodyTimeout: stall });
  }

  /** GET a manifest by tag or digest, at most `--registry-max-response` bytes. The caller checks the digest. */
  async manifest(ref: ImageReference, tagOrDigest: string, signal: AbortSignal): Promise<FetchedManifest> {
    const { res, request } = await this.#send(ref, "pull", "GET", `manifests/${tagOrDigest}`, { accept: MANIFEST_TYPES.join(", ") }, undefined, signal);
    const bytes = await this.#body(res, request, "refuse");
    const mediaType = String(res.headers["content-type"] ?? "")
      .split(";")[0]!
      .trim();
    return { mediaType, bytes };
  }

  /**
   * GET a blob as a stream, following the storage redirects registries use, and the request it came from (which
   * errors while reading it name). The caller bounds its size and checks the digest.
   */
  async blob(ref: ImageReference, digest: string, signal: AbortSignal): Promise<{ body: Readable; request: string }> {
    const { res, request } = await this.#send(ref, "pull", "GET", `blobs/${digest}`, {}, undefined, signal);
    return { body: res.body, request };
  }

  /** The text of an error from reading a response, naming the stall timeout when that is what ended it. */
  describe(err: unknown): string {
    const code = (err as { code?: unknown } | undefined)?.code;
    if (code === "UND_ERR_HEADERS_TIMEOUT" || code === "UND_ERR_BODY_TIMEOUT") {
      return `the registry sent nothing for ${this.#limits.stallTimeoutMs / 1000}s (--registry-stall-timeout)`;
    }
    return errorText(err);
  }

  /**
   * Reads a response body of at most `--registry-max-response` bytes: a longer one is refused (`refuse`) or, for an
   * error text, cut there (`cut`); its declared length is checked before anything is read.
   */
  async #body(res: Response, request: string, over: "refuse" | "cut"): Promise<Buffer> {
    const limit = this.#limits.maxResponseBytes;
    const tooLong = (size: string): Error => new Error(`${request}: the response body is ${size}, more than --registry-max-response allows (${limit} bytes)`);
    const declared = Number(res.headers["content-length"]);
    if (over === "refuse" && declared > limit) {
      res.body.destroy();
      throw tooLong(`${declared} bytes`);
    }
    const chunks: Buffer[] = [];
    let size = 0;
    try {
      for await (const chunk of res.body as AsyncIterable<Buffer>) {
        size += chunk.length;
        if (size > limit) {
          res.body.destroy();
          if (over === "refuse") throw tooLong(`over ${limit} bytes`);
          chunks.push(chunk.subarray(0, chunk.length - (size - limit)));
          break;
        }
        chunks.push(chunk);
      }
    } catch (err) {
      if (size > limit) throw err;
      throw new Error(`${request}: reading the response: ${this.describe(err)}`, { cause: err });
    }
    return Buffer.concat(chunks);
  }

  /** Uploads a blob in one request (POST then PUT), unless the registry already has it. */
  async pushBlob(ref: ImageReference, digest: string, bytes: Buffer, signal: AbortSignal): Promise<void> {
    const { res: head } = await this.#send(ref, "pull,push", "HEAD", `blobs/${digest}`, {}, undefined, signal, [404]);
    await head.body.dump();
    if (head.statusCode === 200) return;
    const { res: start } = await this.#send(ref, "pull,push", "POST", "blobs/uploads/", {}, undefined, signal);
    await start.body.dump();
    const location = new URL(String(start.headers["location"] ?? ""), this.#base(ref));
    location.searchParams.set("digest", digest);
    const { res: put } = await this.#send(ref, "pull,push", "PUT", location.href, { "content-type": "application/octet-stream" }, bytes, signal);
    await put.body.dump();
  }

  /** PUTs a manifest under a tag or its digest. */
  async pushManifest(ref: ImageReference, tagOrDigest: string, mediaType: string, bytes: Buffer, signal: AbortSignal): Promise<void> {
    const { res } = await this.#send(ref, "pull,push", "PUT", `manifests/${tagOrDigest}`, { "content-type": mediaType }, bytes, signal);
    await res.body.dump();
  }

  async close(): Promise<void> {
    await this.#agent.close();
  }

  #base(ref: ImageReference): string {
    const scheme = this.options.insecureHosts?.includes(ref.registry) ? "http" : "https";
    return `${scheme}://${ref.registry}/v2/${ref.repository}/`;
  }

  /**
   * Sends one request, answering the registry's challenge once (a bearer token from its realm, or basic
   * credentials) and following redirects; any status other than 2xx (or one of `allowed`) is an Error that
   * names the request and the registry's own error text.
   */
  async #send(
    ref: ImageReference,
    action: Action,
    method: Dispatcher.HttpMethod,
    path: string,
    headers: Record<string, string>,
    body: Buffer | undefined,
    signal: AbortSignal,
    allowed: readonly number[] = [],
  ): Promise<Sent> {
    const tokenKey = `${ref.registry}\n${ref.repository}\n${action}`;
    let url = new URL(path, this.#base(ref));
    let authorization = this.#tokens.get(tokenKey);
    let challenged = false;
    let anonymous = false;
    for (let redirects = 0; ;) {
      const sameRegistry = url.host === ref.registry;
      const res = await this.#request(url, method, { ...headers, ...(authorization && sameRegistry ? { authorization } : {}) }, body, signal);
      if (res.statusCode === 401 && sameRegistry && !challenged) {
        challenged = true;
        const challenge = parseChallenge(String(res.headers["www-authenticate"] ?? ""));
        await res.body.dump();
        ({ authorization, anonymous } = await this.#authorize(ref, action, challenge, signal));
        this.#tokens.set(tokenKey, authorization);
        continue;
      }
      const location = res.headers["location"];
      if (res.statusCode >= 300 && res.statusCode < 400 && typeof location === "string" && method !== "POST") {
        await res.body.dump();
        if (++redirects > MAX_REDIRECTS) throw new Error(`${method} ${url.href}: more than ${MAX_REDIRECTS} redirects`);
        url = new URL(location, url);
        continue;
      }
      if ((res.statusCode >= 200 && res.statusCode < 300) || allowed.includes(res.statusCode)) return { res, request: `${method} ${url.href}` };
      if (res.statusCode === 401) this.#tokens.delete(tokenKey);
      const failure = `${method} ${url.href}: ${res.statusCode} ${await this.#errorText(res, `${method} ${url.href}`)}`;
      // An anonymous token that grants nothing: the registry wants credentials we do not have.
      if (res.statusCode === 401 && anonymous) throw new Error(`${this.#noCredentials(ref).message}: ${failure}`);
      throw new Error(failure);
    }
  }

  async #request(url: URL, method: Dispatcher.HttpMethod, headers: Record<string, string>, body: Buffer | undefined, signal: AbortSignal): Promise<Response> {
    try {
      return await request(url, { method, headers, body, signal, dispatcher: this.#agent });
    } catch (err) {
      if (signal.aborted) throw err;
      throw new Error(`${method} ${url.href}: ${this.describe(err)}`, { cause: err });
    }
  }

  /** The Authorization value that answers `challenge` for `ref` and `action`, and whether it carries no credentials. */
  async #authorize(
    ref: ImageReference,
    action: Action,
    challenge: Challenge | undefined,
    signal: AbortSignal,
  ): Promise<{ authorization: string; anonymous: boolean }> {
    const credentials = await credentialsFor(this.options.authFile, ref.registry, this.options.authFileOptional);
    if (challenge?.scheme === "basic") {
      if (!credentials) throw this.#noCredentials(ref);
      return { authorization: basicAuthorization(credentials), anonymous: false };
    }
    const realm = challenge?.scheme === "bearer" ? challenge.params["realm"] : undefined;
    if (!realm) throw new Error(`registry ${ref.registry} answered 401 without a bearer or basic challenge`);
    const token = await this.#token(ref, action, realm, challenge?.params["service"], credentials, signal);
    return { authorization: `Bearer ${token}`, anonymous: !credentials };
  }

  /** A token from the challenge's realm (anonymous without credentials, as registries allow for public images). */
  async #token(
    ref: ImageReference,
    action: Action,
    realm: string,
    service: string | undefined,
    credentials: Credentials | undefined,
    signal: AbortSignal,
  ): Promise<string> {
    const url = new URL(realm);
    if (service) url.searchParams.set("service", service);
    url.searchParams.set("scope", `repository:${ref.repository}:${action}`);
    const res = await this.#request(url, "GET", credentials ? { authorization: basicAuthorization(credentials) } : {}, undefined, signal);
    if (res.statusCode === 401 && !credentials) {
      await res.body.dump();
      throw this.#noCredentials(ref);
    }
    const server = `token server ${url.origin}${url.pathname} for ${ref.registry}`;
    if (res.statusCode !== 200) throw new Error(`${server}: ${res.statusCode} ${await this.#errorText(res, `GET ${url.origin}${url.pathname}`)}`);
    let reply: { token?: unknown; access_token?: unknown };
    try {
      reply = JSON.parse((await this.#body(res, `GET ${url.origin}${url.pathname}`, "refuse")).toString("utf8")) as typeof reply;
    } catch (err) {
      throw new Error(`${server}: ${(err as Error).message}`, { cause: err });
    }
    const token = typeof reply.token === "string" && reply.token ? reply.token : reply.access_token;
    if (typeof token !== "string" || token === "") throw new Error(`token server ${url.origin}${url.pathname} for ${ref.registry} returned no token`);
    return token;
  }

  #noCredentials(ref: ImageReference): Error {
    const where = this.options.authFile ? `none for ${ref.registry} in ${this.options.authFile}` : "no pull secret configured";
    return new Error(`registry ${ref.registry} requires authentication and there are no credentials for it (${where}; see --pull-secret)`);
  }

  /**
   * The registry's `{"errors":[{code, message}]}` as `CODE: message; …`, else the body's first 200 characters; only
   * the first `--registry-max-response` bytes are read (a 404 may come with a gigabyte).
   */
  async #errorText(res: Response, request: string): Promise<string> {
    return registryErrorText(
      await this.#body(res, request, "cut").then(
        (b) => b.toString("utf8"),
        () => "",
      ),
    );
  }
}

/** `text`, a registry's error body, as `CODE: message; …` when it is the registry's JSON, else its first 200 characters. */
function registryErrorText(text: string): string {
  try {
    const { errors } = JSON.parse(text) as { errors?: { code?: string; message?: string }[] };
    if (Array.isArray(errors) && errors.length > 0) return errors.map((e) => `${e.code ?? "ERROR"}: ${e.message ?? ""}`).join("; ");
  } catch {
    // Not the registry's JSON error body; the raw text says what there is to say.
  }
  return text.slice(0, 200).trim() || "(no body)";
}

/** undici's connection errors carry the useful part (ECONNREFUSED, certificate problems) in a cause. */
function errorText(err: unknown): string {
  const parts: string[] = [];
  for (let e: unknown = err; e instanceof Error && parts.length < 3; e = e.cause) {
    if (!parts.includes(e.message)) parts.push(e.message);
  }
  return parts.join(": ") || String(err);
}
