/**
 * One `--event-sink`: CloudEvents POSTed over HTTP(S) in the order they were made, at least once. A bounded queue
 * sits between the service and the sink, so a slow or dead sink never slows the worker: when it is full the oldest
 * event is dropped (counted and logged), and the newest, which says where the update stands now, is kept. A
 * failed delivery (network error, timeout, 408, 429, 5xx) is retried with exponential back-off, holding the events
 * behind it; a sink that refuses an event (any other 4xx) will refuse it again, so that one is dropped.
 * Hand-written around the SDK's HTTP binding because the SDK's own `httpTransport` sends once: no queue, no retry,
 * no CA of the sink's, no way to tell a refusal from an outage.
 */
import { HTTP, type CloudEvent } from "cloudevents";

/** Every event carries JSON data. */
export type JsonEvent = CloudEvent<Readonly<Record<string, unknown>>>;
import { Agent, request, type Dispatcher } from "undici";
import { sleep, type Logger, type Random } from "../core/index.js";

/** What the sink's deliveries are measured by (`syncworker_event_*` metrics). */
export interface EventSinkMetrics {
  /** Delivered: the time from the status the event is about to the sink's acknowledgement. */
  delivered(sink: string, seconds: number): void;
  /** A delivery attempt failed and will be retried. */
  retried(sink: string): void;
  /** Lost: pushed out of a full queue, or refused by the sink. */
  dropped(sink: string, why: "queue-full" | "refused"): void;
  queued(sink: string, length: number): void;
}

export interface EventSinkOptions {
  readonly url: string;
  /** Binary mode (attributes in `ce-` headers) is the default; structured sends the whole event as JSON. */
  readonly mode: "binary" | "structured";
  /** Sent as `Authorization: Bearer …`. */
  readonly token?: string;
  /** CA certificates (PEM) trusted for an https sink besides the system's. */
  readonly ca?: string;
  /** Events held for the sink at most. */
  readonly capacity: number;
  readonly attemptTimeoutMs: number;
  readonly backoff: { readonly initialMs: number; readonly maxMs: number };
  readonly log: Pick<Logger, "info" | "warn">;
  readonly metrics: EventSinkMetrics;
  readonly random: Random;
}

interface Queued {
  readonly event: JsonEvent;
  /** Wall-clock milliseconds of the snapshot the event was made from. */
  readonly madeAt: number;
}

export class EventSink {
  readonly #o: EventSinkOptions;
  readonly #queue: Queued[] = [];
  readonly #dispatcher: Dispatcher | undefined;
  /** Wakes the delivery loop when an event arrives while it waits for one. */
  #wake: (() => void) | undefined;

  constructor(options: EventSinkOptions) {
    this.#o = options;
    this.#dispatcher = options.ca ? new Agent({ connect: { ca: options.ca } }) : undefined;
  }

  get url(): string {
    return this.#o.url;
  }

  /** Queues `event`; never waits. */
  push(event: JsonEvent, madeAt: number): void {
    if (this.#queue.length >= this.#o.capacity) {
      const dropped = this.#queue.shift();
      this.#o.metrics.dropped(this.#o.url, "queue-full");
      this.#o.log.warn(`event sink ${this.#o.url}: queue full (${this.#o.capacity}), dropped ${dropped?.event.type} ${dropped?.event.id}`);
    }
    this.#queue.push({ event, madeAt });
    this.#o.metrics.queued(this.#o.url, this.#queue.length);
    this.#wake?.();
  }

  /** Delivers until `signal` aborts; then the events still queued are given up. */
  async run(signal: AbortSignal): Promise<void> {
    let backoffMs = this.#o.backoff.initialMs;
    while (!signal.aborted) {
      const head = this.#queue[0];
      if (!head) {
        await new Promise<void>((resolve) => {
          this.#wake = resolve;
          signal.addEventListener("abort", () => resolve(), { once: true });
        });
        this.#wake = undefined;
        continue;
      }
      const outcome = await this.#send(head.event, signal);
      if (signal.aborted) break;
      if (outcome === "retry") {
        this.#o.metrics.retried(this.#o.url);
        // Full jitter around the doubled delay, so sinks that failed together do not retry together.
        await sleep(backoffMs * (0.5 + this.#o.random() / 2), signal).catch(() => undefined);
        backoffMs = Math.min(backoffMs * 2, this.#o.backoff.maxMs);
        continue;
      }
      backoffMs = this.#o.backoff.initialMs;
      // The head may have been pushed out of a full queue while it was being sent.
      if (this.#queue[0] === head) this.#queue.shift();
      this.#o.metrics.queued(this.#o.url, this.#queue.length);
      if (outcome === "delivered") this.#o.metrics.delivered(this.#o.url, Math.max(0, Date.now() - head.madeAt) / 1000);
      else this.#o.metrics.dropped(this.#o.url, "refused");
    }
    if (this.#queue.length > 0) this.#o.log.warn(`event sink ${this.#o.url}: stopping with ${this.#queue.length} events not delivered`);
    await this.#dispatcher?.close();
  }

  async #send(event: JsonEvent, signal: AbortSignal): Promise<"delivered" | "refused" | "retry"> {
    const message = this.#o.mode === "structured" ? HTTP.structured(event) : HTTP.binary(event);
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(message.headers)) if (value !== undefined) headers[name] = String(value);
    if (this.#o.token) headers["authorization"] = `Bearer ${this.#o.token}`;
    try {
      const response = await request(this.#o.url, {
        method: "POST",
        headers,
        body: typeof message.body === "string" ? message.body : JSON.stringify(message.body),
        signal: AbortSignal.any([signal, AbortSignal.timeout(this.#o.attemptTimeoutMs)]),
        ...(this.#dispatcher ? { dispatcher: this.#dispatcher } : {}),
      });
      const text = await response.body.text();
      const code = response.statusCode;
      if (code >= 200 && code < 300) return "delivered";
      if (code === 408 || code === 429 || code >= 500) {
        this.#o.log.warn(`event sink ${this.#o.url}: HTTP ${code} for ${event.type} ${event.id}; retrying`);
        return "retry";
      }
      this.#o.log.warn(`event sink ${this.#o.url}: HTTP ${code} for ${event.type} ${event.id}, dropped: ${text.slice(0, 200)}`);
      return "refused";
    } catch (err) {
      if (!signal.aborted)
        this.#o.log.warn(`event sink ${this.#o.url}: ${event.type} ${event.id} not delivered (${err instanceof Error ? err.message : String(err)}); retrying`);
      return "retry";
    }
  }
}
