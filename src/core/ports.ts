/**
 * The small interfaces the pure folders reach the world through (time, randomness, logs, traces, events),
 * injected by the composition root so tests run on fakes, with the no-op values that stand for "none".
 */
import { setTimeout as delay } from "node:timers/promises";

/** Wall clock and timers, injected so tests run on fake time. */
export interface Clock {
  now(): Date;
  /** Resolves after `ms`, or rejects with the signal's reason when it aborts first. */
  sleep(ms: number, signal: AbortSignal): Promise<void>;
}

/** The real clock; the composition root injects it, tests inject a manual one. */
export const systemClock: Clock = {
  now: () => new Date(),
  sleep: async (ms, signal) => {
    await delay(ms, undefined, { signal });
  },
};

/** A source of uniform numbers in [0, 1), injected for jitter. */
export type Random = () => number;

/** Minimal logger; pino satisfies it. */
export interface Logger {
  debug(msg: string): void;
  info(msg: string): void;
  warn(msg: string): void;
}

export const NO_LOG: Logger = { debug: () => undefined, info: () => undefined, warn: () => undefined };

/** Records what the CVO reports as Kubernetes Events on its ClusterVersion. */
export interface EventRecorder {
  event(type: "Normal" | "Warning", reason: string, message: string): void;
}

export const NO_EVENTS: EventRecorder = { event: () => undefined };

/**
 * A span's identity (the W3C trace context of an OpenTelemetry SpanContext, structurally), so an
 * Update call's span can be carried into the sync it causes and linked from there.
 */
export interface SpanRef {
  readonly traceId: string;
  readonly spanId: string;
  readonly traceFlags: number;
}

/** Span attribute values; `undefined` entries are dropped, so call sites can pass optional fields. */
export type SpanAttributes = Readonly<Record<string, string | number | boolean | undefined>>;

/** The running span handed to a traced function. */
export interface WorkerSpan {
  /** The span's identity, for what refers to it from outside the trace (an event's `traceparent`); none when tracing is off. */
  readonly ref?: SpanRef;
  setAttributes(attributes: SpanAttributes): void;
  /** Records `err` as an exception and marks the span failed (a thrown error does this too). */
  fail(err: unknown): void;
}

/**
 * Tracing, injected so the pure folders never import OpenTelemetry. A span started inside `fn` is a
 * child of the span `fn` runs in; the adapter in src/telemetry carries that context. Tracing off is
 * {@link NO_TRACING}: `fn` runs directly, and callers check `enabled` before building costly attributes.
 */
export interface Tracing {
  readonly enabled: boolean;
  /** Runs `fn` inside a new span that ends when `fn` settles; a rejection marks it failed and passes through. */
  span<T>(name: string, attributes: SpanAttributes, fn: (span: WorkerSpan) => Promise<T>, options?: { readonly links?: readonly SpanRef[] }): Promise<T>;
}

/** The span handed to `fn` when tracing is off. */
export const NO_SPAN: WorkerSpan = { setAttributes: () => undefined, fail: () => undefined };
export const NO_TRACING: Tracing = { enabled: false, span: (_name, _attributes, fn) => fn(NO_SPAN) };
