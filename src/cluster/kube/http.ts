import { IsomorphicFetchHttpLibrary, type PromiseHttpLibrary, type RequestContext, type ResponseContext } from "@kubernetes/client-node";

/** Client behaviour towards the API server; every field has a default in `compileKubeClientOptions`. */
export interface KubeClientOptions {
  /** Sustained requests per second (token bucket refill), as client-go's `QPS`. */
  readonly qps?: number;
  /** Requests allowed at once above the sustained rate, as client-go's `Burst`. */
  readonly burst?: number;
  /** Per-request timeout; large CRDs (hundreds of KiB of schema) take seconds to admit on a busy server. */
  readonly timeoutMs?: number;
  /** Retries of one request on 429, 5xx or a dropped connection before the failure reaches the applier. */
  readonly maxRetries?: number;
  /** First retry delay when the server gives no Retry-After; doubled per attempt. */
  readonly retryBaseMs?: number;
  readonly userAgent?: string;
}

export type CompiledKubeClientOptions = Readonly<Required<KubeClientOptions>>;

/**
 * Defaults: 200 QPS / 400 burst, well above the CVO's clients (20/40, 40/80 while initializing),
 * because server-side apply sends one request per manifest, so at 50 QPS a 1,000-manifest no-op
 * reconcile took 18 s (bench apply); the API server's own priority and fairness, which answers 429
 * with Retry-After, is the real limit. 60 s per request; 4 retries.
 */
export function compileKubeClientOptions(options: KubeClientOptions = {}): CompiledKubeClientOptions {
  const compiled = {
    qps: options.qps ?? 200,
    burst: options.burst ?? 400,
    timeoutMs: options.timeoutMs ?? 60_000,
    maxRetries: options.maxRetries ?? 4,
    retryBaseMs: options.retryBaseMs ?? 250,
    userAgent: options.userAgent ?? `syncworker/0.1.0 (${process.platform}/${process.arch}) node/${process.versions.node}`,
  };
  for (const key of ["qps", "burst", "timeoutMs", "retryBaseMs"] as const) {
    if (!(compiled[key] > 0)) throw new RangeError(`kube client option ${key} must be positive, got ${compiled[key]}`);
  }
  if (!(compiled.maxRetries >= 0)) throw new RangeError(`kube client option maxRetries must be >= 0, got ${compiled.maxRetries}`);
  return Object.freeze(compiled);
}

/** A token bucket shared by every request of one client, so parallel workers cannot exceed the rate together. */
export class TokenBucket {
  #tokens: number;
  #last: number;
  #queue: Promise<void> = Promise.resolve();

  constructor(
    private readonly qps: number,
    private readonly burst: number,
    private readonly now: () => number = performance.now.bind(performance),
  ) {
    this.#tokens = burst;
    this.#last = now();
  }

  /** Waits for a token; callers are served in arrival order. */
  take(signal?: AbortSignal): Promise<void> {
    const turn = this.#queue.then(() => this.#wait(signal));
    this.#queue = turn.catch(() => undefined);
    return turn;
  }

  async #wait(signal: AbortSignal | undefined): Promise<void> {
    const t = this.now();
    this.#tokens = Math.min(this.burst, this.#tokens + ((t - this.#last) * this.qps) / 1000);
    this.#last = t;
    if (this.#tokens < 1) {
      await sleep(((1 - this.#tokens) * 1000) / this.qps, signal);
      this.#tokens = 1;
      this.#last = this.now();
    }
    this.#tokens -= 1;
  }
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    signal?.throwIfAborted();
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal?.reason as Error);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/** Seconds or an HTTP date, as RFC 9110 allows; capped so a confused server cannot stall a sync. */
export function retryAfterMs(value: string | undefined, capMs = 30_000): number | undefined {
  if (!value) return undefined;
  const seconds = Number(value);
  const ms = Number.isFinite(seconds) ? seconds * 1000 : Date.parse(value) - Date.now();
  return Number.isFinite(ms) ? Math.min(Math.max(ms, 0), capMs) : undefined;
}

/** 429 and the 5xx an API server returns while overloaded, restarting or timing out; not 501. */
function retryable(status: number): boolean {
  return status === 429 || (status >= 500 && status !== 501);
}

/**
 * Wraps client-node's fetch library with what client-go gives every Go client: a rate limit, retries
 * of throttled and transient failures honouring Retry-After, a per-request timeout and a user agent.
 * The retries are short: an outage longer than them reaches the worker, which reports it and retries
 * the whole manifest with its own backoff.
 */
export class HygienicHttpLibrary implements PromiseHttpLibrary {
  readonly #inner = new IsomorphicFetchHttpLibrary();
  readonly #bucket: TokenBucket;

  constructor(private readonly options: CompiledKubeClientOptions) {
    this.#bucket = new TokenBucket(options.qps, options.burst);
  }

  async send(request: RequestContext): Promise<ResponseContext> {
    request.setHeaderParam("User-Agent", this.options.userAgent);
    const caller = request.getSignal();
    for (let attempt = 0; ; attempt++) {
      await this.#bucket.take(caller);
      const timeout = AbortSignal.timeout(this.options.timeoutMs);
      request.setSignal(caller ? AbortSignal.any([caller, timeout]) : timeout);
      let delay: number;
      try {
        const response = await this.#inner.send(request).toPromise();
        if (!retryable(response.httpStatusCode) || attempt >= this.options.maxRetries) return response;
        delay = retryAfterMs(response.headers["retry-after"]) ?? this.#backoff(attempt);
        // Drain the body so the connection returns to the pool.
        await response.body.text().catch(() => "");
      } catch (err) {
        if (caller?.aborted || attempt >= this.options.maxRetries) throw timeout.aborted ? new Error(`request timed out after ${this.options.timeoutMs}ms`, { cause: err }) : err;
        delay = this.#backoff(attempt);
      } finally {
        request.setSignal(caller as AbortSignal);
      }
      await sleep(delay, caller);
    }
  }

  #backoff(attempt: number): number {
    return this.options.retryBaseMs * 2 ** attempt * (0.9 + Math.random() * 0.2);
  }
}
