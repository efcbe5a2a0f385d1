import { KUBE_CLIENT_DEFAULTS } from "../../config/index.js";
import { sleep } from "../../core/index.js";

/** Client behaviour towards the API server; an unset field takes config's {@link KUBE_CLIENT_DEFAULTS}. */
export interface KubeClientOptions {
  /**
   * Sustained requests per second (token bucket refill), as client-go's `QPS`. Unset: no fixed ceiling;
   * the client adapts to the server's throttling instead ({@link AdaptivePace}).
   */
  readonly qps?: number;
  /** Requests allowed at once above the sustained rate, as client-go's `Burst` (with `qps`; default 2 × qps). */
  readonly burst?: number;
  /** Per-request timeout. */
  readonly timeoutMs?: number;
  /** Retries of one request on 429, 5xx or a dropped connection before the failure reaches the applier. */
  readonly maxRetries?: number;
  /** First retry delay when the server gives no Retry-After; doubled per attempt. */
  readonly retryBaseMs?: number;
  readonly userAgent?: string;
  /** Told of every 429 answer, with the rate ceiling the client paces itself at now (undefined: a fixed `qps`). */
  readonly onThrottled?: (ceiling: number | undefined) => void;
  /** Told of every answer and how long the server took to give it (client-go's `rest_client_request_duration_seconds`). */
  readonly onAnswer?: (method: string, statusCode: number, seconds: number) => void;
}

export interface CompiledKubeClientOptions {
  /** undefined: adaptive, no fixed ceiling. */
  readonly qps: number | undefined;
  readonly burst: number | undefined;
  readonly timeoutMs: number;
  readonly maxRetries: number;
  readonly retryBaseMs: number;
  readonly userAgent: string;
  readonly onThrottled: (ceiling: number | undefined) => void;
  readonly onAnswer: (method: string, statusCode: number, seconds: number) => void;
}

/** Applies {@link KUBE_CLIENT_DEFAULTS} and checks the values. */
export function compileKubeClientOptions(options: KubeClientOptions = {}): Readonly<CompiledKubeClientOptions> {
  const compiled: CompiledKubeClientOptions = {
    qps: options.qps,
    burst: options.burst ?? (options.qps === undefined ? undefined : Math.max(1, Math.ceil(2 * options.qps))),
    timeoutMs: options.timeoutMs ?? KUBE_CLIENT_DEFAULTS.timeoutMs,
    maxRetries: options.maxRetries ?? KUBE_CLIENT_DEFAULTS.maxRetries,
    retryBaseMs: options.retryBaseMs ?? KUBE_CLIENT_DEFAULTS.retryBaseMs,
    userAgent: options.userAgent ?? KUBE_CLIENT_DEFAULTS.userAgent,
    onThrottled: options.onThrottled ?? (() => undefined),
    onAnswer: options.onAnswer ?? (() => undefined),
  };
  for (const key of ["qps", "burst", "timeoutMs", "retryBaseMs"] as const) {
    const value = compiled[key];
    if (value !== undefined && !(value > 0)) throw new RangeError(`kube client option ${key} must be positive, got ${value}`);
  }
  if (options.burst !== undefined && options.qps === undefined) throw new RangeError("kube client option burst needs qps");
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

/**
 * The client's pace without a configured QPS: no ceiling until the server keeps throttling. A 429 that refuses a
 * small share of what was sent in the last second (under {@link THROTTLED_SHARE}) is retried after its Retry-After
 * and changes nothing else: API Priority and Fairness sheds a burst that way now and then (bench apply saw one 429
 * in ~400 requests at the start of a sync on a fresh kube-apiserver, and a ceiling set by it made the 1,000-manifest
 * sync 2.9× slower). A larger share makes half the rate achieved over the last second the ceiling (at least
 * {@link MIN_QPS}; at most one decrease a second, since concurrent requests are refused together); every second
 * without one raises it by a tenth, and past {@link LIFT_QPS} the ceiling is lifted again: additive-increase,
 * multiplicative-decrease, as TCP paces itself against a congested link.
 */
export class AdaptivePace {
  static readonly MIN_QPS = 5;
  static readonly LIFT_QPS = 2_000;
  static readonly THROTTLED_SHARE = 0.05;
  #limit: number | undefined;
  #bucket: TokenBucket | undefined;
  #raisedAt = 0;
  #decreasedAt = Number.NEGATIVE_INFINITY;
  /** Send times within the last second. */
  #recent: number[] = [];
  /** 429 answers within the last second, while there is no ceiling. */
  #refusals: number[] = [];

  constructor(private readonly now: () => number = performance.now.bind(performance)) {}

  /** The current ceiling in requests per second; undefined when there is none. */
  get limit(): number | undefined {
    return this.#limit;
  }

  async take(signal?: AbortSignal): Promise<void> {
    const t = this.now();
    this.#raise(t);
    await this.#bucket?.take(signal);
    this.#recent.push(this.now());
  }

  /**
   * The server answered 429. Requests in flight together get their 429s together: one decrease a second counts
   * them once. Without a ceiling, only a share of refusals of {@link THROTTLED_SHARE} or more sets one.
   */
  throttled(): void {
    const t = this.now();
    this.#recent = this.#recent.filter((at) => at > t - 1000);
    if (this.#limit === undefined) {
      this.#refusals = [...this.#refusals.filter((at) => at > t - 1000), t];
      if (this.#refusals.length < AdaptivePace.THROTTLED_SHARE * this.#recent.length) return;
      this.#refusals = [];
    } else if (t - this.#decreasedAt < 1000) return;
    this.#decreasedAt = t;
    const achieved = Math.max(this.#recent.length, AdaptivePace.MIN_QPS * 2);
    this.#setLimit(Math.max(AdaptivePace.MIN_QPS, Math.min(this.#limit ?? Infinity, achieved) / 2));
    this.#raisedAt = t;
  }

  #raise(t: number): void {
    if (this.#recent.length > 256) this.#recent = this.#recent.filter((at) => at > t - 1000);
    if (this.#limit === undefined || t - this.#raisedAt < 1000) return;
    const seconds = Math.floor((t - this.#raisedAt) / 1000);
    const raised = this.#limit * 1.1 ** seconds;
    this.#raisedAt += seconds * 1000;
    this.#setLimit(raised > AdaptivePace.LIFT_QPS ? undefined : raised);
  }

  /** A ceiling (its bucket holds a second's worth), or none. */
  #setLimit(limit: number | undefined): void {
    this.#limit = limit;
    this.#bucket = limit === undefined ? undefined : new TokenBucket(limit, Math.max(1, Math.ceil(limit)), this.now);
  }
}

/** Seconds or an HTTP date, as RFC 9110 allows; capped so a confused server cannot stall a sync. */
export function retryAfterMs(value: string | undefined, capMs = 30_000): number | undefined {
  if (!value) return undefined;
  const seconds = Number(value);
  const ms = Number.isFinite(seconds) ? seconds * 1000 : Date.parse(value) - Date.now();
  return Number.isFinite(ms) ? Math.min(Math.max(ms, 0), capMs) : undefined;
}
