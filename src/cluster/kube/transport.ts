import type * as https from "node:https";
import type { KubeConfig } from "@kubernetes/client-node";
import { Agent, errors as undiciErrors, ProxyAgent, type Dispatcher } from "undici";
import { AdaptivePace, retryAfterMs, TokenBucket, type CompiledKubeClientOptions } from "./http.js";
import { sleep } from "../../core/index.js";

/** An answer of the API server: its status code and body text. */
export interface KubeResponse {
  readonly status: number;
  readonly text: string;
}

/** A watch that ended before its stream began (the server answered with an error status). */
export class WatchRefusedError extends Error {
  constructor(
    readonly statusCode: number,
    message: string,
  ) {
    super(message);
    this.name = "WatchRefusedError";
  }
}

/** What every request carries from the kubeconfig: auth headers and a connection pool with its TLS identity. */
interface Credentials {
  readonly headers: Readonly<Record<string, string>>;
  readonly dispatcher: Dispatcher;
  readonly identity: string;
  readonly until: number;
}

/**
 * How long the kubeconfig's credentials are reused before it is asked again: client-go re-reads a token
 * file at most once a minute (client-node's file and exec auth cache as long themselves), and kubelet
 * rotates projected tokens long before they expire. Asking per request read the CA and key files each time.
 */
const CREDENTIALS_TTL_MS = 60_000;

/** TLS material as text, to tell one identity from another (a Buffer, a string, or a list of them). */
function pemText(value: unknown): string {
  if (Array.isArray(value)) return value.map(pemText).join(",");
  if (Buffer.isBuffer(value)) return value.toString("base64");
  return typeof value === "string" ? value : "";
}

/** 429 and the 5xx an API server returns while overloaded, restarting or timing out; not 501. */
function retryable(status: number): boolean {
  return status === 429 || (status >= 500 && status !== 501);
}

/**
 * The HTTP transport to one API server, with what client-go gives every Go client: credentials and TLS
 * from the kubeconfig, a rate limit or an adaptive pace, retries of throttled and transient failures
 * honouring Retry-After, a per-request timeout, a user agent, and warm keep-alive connections. A profile
 * of bench apply showed client-node's fetch path (node-fetch streams, a new agent and the kubeconfig's
 * files read again for every request) as the largest cost of a sync, so requests go through undici;
 * client-node still interprets the kubeconfig. HTTP/1.1, not HTTP/2 as client-go: with undici's HTTP/2
 * the same sync spent 7.8 s of CPU against 4.8 s (Node's http2 core costs more per request than a pool
 * of warm HTTP/1.1 connections saves).
 */
export class KubeTransport {
  readonly #server: string;
  readonly #pace: { take(signal?: AbortSignal): Promise<void>; throttled?(): void; readonly limit?: number | undefined };
  #loaded: Credentials | undefined;
  #loading: Promise<Credentials> | undefined;
  #closed = false;

  constructor(
    private readonly kubeConfig: KubeConfig,
    private readonly options: CompiledKubeClientOptions,
  ) {
    const cluster = kubeConfig.getCurrentCluster();
    if (!cluster) throw new Error("the kubeconfig has no current cluster");
    this.#server = cluster.server.replace(/\/+$/, "");
    this.#pace = options.qps === undefined ? new AdaptivePace() : new TokenBucket(options.qps, options.burst ?? options.qps);
  }

  /**
   * One request, retried on 429, 5xx or a dropped connection up to `maxRetries` times. The retries are
   * short: an outage longer than them reaches the caller, whose own backoff retries the whole operation.
   */
  async request(method: string, path: string, signal: AbortSignal, body?: string, contentType = "application/json"): Promise<KubeResponse> {
    for (let attempt = 0; ; attempt++) {
      await this.#pace.take(signal);
      const credentials = await this.#current();
      let delay: number;
      const sent = performance.now();
      try {
        const response = await credentials.dispatcher.request({
          origin: this.#server,
          path,
          method: method,
          headers: {
            ...credentials.headers,
            accept: "application/json",
            "user-agent": this.options.userAgent,
            ...(body === undefined ? {} : { "content-type": contentType }),
          },
          body,
          signal,
          headersTimeout: this.options.timeoutMs,
          bodyTimeout: this.options.timeoutMs,
        });
        const text = await response.body.text();
        this.options.onAnswer(method, response.statusCode, (performance.now() - sent) / 1000);
        if (response.statusCode === 429) {
          this.#pace.throttled?.();
          this.options.onThrottled(this.#pace.limit);
        }
        if (!retryable(response.statusCode) || attempt >= this.options.maxRetries) return { status: response.statusCode, text };
        const retryAfter = response.headers["retry-after"];
        delay = retryAfterMs(Array.isArray(retryAfter) ? retryAfter[0] : retryAfter) ?? this.#backoff(attempt);
      } catch (err) {
        signal.throwIfAborted();
        const timedOut = err instanceof undiciErrors.HeadersTimeoutError || err instanceof undiciErrors.BodyTimeoutError;
        if (attempt >= this.options.maxRetries) throw timedOut ? new Error(`request timed out after ${this.options.timeoutMs}ms`, { cause: err }) : err;
        delay = this.#backoff(attempt);
      }
      await sleep(delay, signal);
    }
  }

  /**
   * A watch stream of `path` (a collection) with `query`: every event line is handed to `onEvent` as it
   * arrives; resolves when the server ends the stream, rejects with {@link WatchRefusedError} when it
   * refuses it. Aborting `signal` ends it quietly.
   */
  async watch(
    path: string,
    query: Readonly<Record<string, string>>,
    onEvent: (type: string, object: Record<string, unknown>) => void,
    signal: AbortSignal,
  ): Promise<void> {
    await this.#pace.take(signal);
    const credentials = await this.#current();
    const search = new URLSearchParams({ ...query, watch: "true" }).toString();
    let response: Dispatcher.ResponseData;
    try {
      response = await credentials.dispatcher.request({
        origin: this.#server,
        path: `${path}?${search}`,
        method: "GET",
        headers: { ...credentials.headers, accept: "application/json", "user-agent": this.options.userAgent },
        signal,
        headersTimeout: this.options.timeoutMs,
        // Quiet collections send nothing for minutes between bookmarks.
        bodyTimeout: 0,
      });
    } catch (err) {
      if (signal.aborted) return;
      throw err;
    }
    if (response.statusCode !== 200) {
      const text = await response.body.text().catch(() => "");
      let message = text.slice(0, 500);
      try {
        message = (JSON.parse(text) as { message?: string }).message ?? message;
      } catch {
        // not a Status: the text itself
      }
      throw new WatchRefusedError(response.statusCode, `watch ${path}: HTTP ${response.statusCode}: ${message}`);
    }
    let pending = "";
    try {
      for await (const chunk of response.body as AsyncIterable<Buffer>) {
        pending += chunk.toString("utf8");
        let newline: number;
        while ((newline = pending.indexOf("\n")) >= 0) {
          const line = pending.slice(0, newline);
          pending = pending.slice(newline + 1);
          if (!line.trim()) continue;
          const event = JSON.parse(line) as { type: string; object: Record<string, unknown> };
          onEvent(event.type, event.object);
        }
      }
    } catch (err) {
      if (signal.aborted) return;
      throw err;
    }
  }

  /** Closes every connection; requests after this fail. */
  async close(): Promise<void> {
    this.#closed = true;
    await this.#loading?.catch(() => undefined);
    await this.#loaded?.dispatcher.destroy();
  }

  #backoff(attempt: number): number {
    return this.options.retryBaseMs * 2 ** attempt * (0.9 + Math.random() * 0.2);
  }

  async #current(): Promise<Credentials> {
    if (this.#closed) throw new Error("the kube client is closed");
    const loaded = this.#loaded;
    if (loaded && Date.now() < loaded.until) return loaded;
    this.#loading ??= this.#read(loaded)
      .then((credentials) => (this.#loaded = credentials))
      .finally(() => (this.#loading = undefined));
    return this.#loading;
  }

  /** Reads the kubeconfig's credentials; the previous connection pool is kept when the TLS identity is the same. */
  async #read(previous: Credentials | undefined): Promise<Credentials> {
    const opts: https.RequestOptions = {};
    await this.kubeConfig.applyToHTTPSOptions(opts);
    // client-node builds an https.Agent we do not use.
    (opts.agent as https.Agent | undefined)?.destroy();
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(opts.headers ?? {})) if (value !== undefined) headers[name.toLowerCase()] = String(value);
    if (opts.auth) headers["authorization"] = `Basic ${Buffer.from(opts.auth).toString("base64")}`;
    const tls = {
      ca: opts.ca,
      cert: opts.cert,
      key: opts.key,
      pfx: opts.pfx,
      passphrase: opts.passphrase,
      servername: opts.servername,
      rejectUnauthorized: opts.rejectUnauthorized,
    };
    const proxy = this.kubeConfig.getCurrentCluster()?.proxyUrl;
    const identity = [tls.ca, tls.cert, tls.key, tls.pfx, tls.servername, String(tls.rejectUnauthorized), proxy ?? ""].map(pemText).join("\0");
    let dispatcher = previous?.dispatcher;
    if (!dispatcher || previous?.identity !== identity) {
      void previous?.dispatcher.close();
      dispatcher = proxy
        ? new ProxyAgent({ uri: proxy, requestTls: tls as ProxyAgent.Options["requestTls"] })
        : new Agent({ connect: tls as Agent.Options["connect"], keepAliveTimeout: 30_000 });
    }
    return { headers, dispatcher, identity, until: Date.now() + CREDENTIALS_TTL_MS };
  }
}
