/**
 * OpenTelemetry tracing configured from the standard `OTEL_*` variables, and the adapter that gives the
 * pure worker its injected {@link Tracing} without the worker importing OpenTelemetry.
 */
import { context, diag, DiagConsoleLogger, DiagLogLevel, SpanStatusCode, trace, type Attributes, type Span, type Tracer } from "@opentelemetry/api";
import { detectResources, envDetector, resourceFromAttributes } from "@opentelemetry/resources";
import { BatchSpanProcessor, ConsoleSpanExporter, SimpleSpanProcessor, type SpanExporter, type SpanProcessor } from "@opentelemetry/sdk-trace-base";
import { NodeTracerProvider } from "@opentelemetry/sdk-trace-node";
import { ATTR_SERVICE_NAME, ATTR_SERVICE_VERSION } from "@opentelemetry/semantic-conventions";
import { type SpanAttributes, type Tracing, type WorkerSpan, NO_TRACING } from "../core/index.js";

/** What `startTracing` set up; `tracer` is undefined when tracing is off. */
export interface TracingSetup {
  /** For the gRPC edge's server spans; undefined when off, so the edge skips tracing entirely. */
  readonly tracer: Tracer | undefined;
  /** For the worker: {@link NO_TRACING} when off. */
  readonly tracing: Tracing;
  /** The exporters in use, e.g. `["otlp:grpc"]`, for the start-up log line. */
  readonly exporters: readonly string[];
  /** Flushes pending spans and stops exporting. */
  shutdown(): Promise<void>;
}

export type OtlpProtocol = "grpc" | "http/protobuf" | "http/json";

/** Reads an environment variable, treating empty as unset (as the OTel spec says). */
function env(vars: NodeJS.ProcessEnv, name: string): string | undefined {
  const value = vars[name]?.trim();
  return value ? value : undefined;
}

/**
 * The exporters the variables ask for. Deliberate deviation from the spec's default (`otlp`): with neither
 * `OTEL_TRACES_EXPORTER` nor an OTLP endpoint set, tracing is off, so a plain `serve` neither pays for spans
 * nor retries a collector on localhost that nobody started.
 */
export function tracesExporters(vars: NodeJS.ProcessEnv): string[] {
  if (env(vars, "OTEL_SDK_DISABLED")?.toLowerCase() === "true") return [];
  const listed = env(vars, "OTEL_TRACES_EXPORTER");
  if (listed === undefined) {
    const endpoint = env(vars, "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") ?? env(vars, "OTEL_EXPORTER_OTLP_ENDPOINT");
    return endpoint ? ["otlp"] : [];
  }
  const names = listed
    .split(",")
    .map((name) => name.trim().toLowerCase())
    .filter((name) => name !== "");
  return names.includes("none") ? [] : [...new Set(names)];
}

/** `OTEL_EXPORTER_OTLP_TRACES_PROTOCOL`, then `OTEL_EXPORTER_OTLP_PROTOCOL`, default `http/protobuf`. */
export function otlpProtocol(vars: NodeJS.ProcessEnv): OtlpProtocol {
  const value = env(vars, "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL") ?? env(vars, "OTEL_EXPORTER_OTLP_PROTOCOL") ?? "http/protobuf";
  if (value === "grpc" || value === "http/protobuf" || value === "http/json") return value;
  throw new Error(`OTEL_EXPORTER_OTLP_PROTOCOL must be grpc, http/protobuf or http/json, not "${value}"`);
}

// Exporters are imported on demand: each pulls in its transport, which a service with tracing off never needs.
async function otlpExporter(protocol: OtlpProtocol): Promise<SpanExporter> {
  // Every OTLP exporter reads its endpoint, headers, timeout and compression from the OTEL_EXPORTER_OTLP_* variables.
  switch (protocol) {
    case "grpc":
      return new (await import("@opentelemetry/exporter-trace-otlp-grpc")).OTLPTraceExporter();
    case "http/json":
      return new (await import("@opentelemetry/exporter-trace-otlp-http")).OTLPTraceExporter();
    default:
      return new (await import("@opentelemetry/exporter-trace-otlp-proto")).OTLPTraceExporter();
  }
}

/**
 * Sets up tracing from the environment: exporters (`OTEL_TRACES_EXPORTER` = otlp | console | none, OTLP over
 * `OTEL_EXPORTER_OTLP_PROTOCOL`), sampler (`OTEL_TRACES_SAMPLER[_ARG]`, read by the SDK), resource
 * (`OTEL_SERVICE_NAME`, `OTEL_RESOURCE_ATTRIBUTES`), W3C trace-context propagation, and the
 * AsyncLocalStorage context manager that makes nested spans children and lets log lines find their span.
 * Registers the provider globally (propagation needs the global API); call once per process.
 */
export async function startTracing(vars: NodeJS.ProcessEnv, serviceVersion: string): Promise<TracingSetup> {
  const exporters = tracesExporters(vars);
  if (exporters.length === 0) return { tracer: undefined, tracing: NO_TRACING, exporters, shutdown: async () => undefined };
  // Export failures (collector down) are otherwise silent; warnings go to stderr like the rest of the log.
  diag.setLogger(new DiagConsoleLogger(), DiagLogLevel.WARN);
  const spanProcessors: SpanProcessor[] = [];
  const used: string[] = [];
  for (const name of exporters) {
    if (name === "otlp") {
      const protocol = otlpProtocol(vars);
      // Batched (OTEL_BSP_* tune it) so exporting stays off the sync's path.
      spanProcessors.push(new BatchSpanProcessor(await otlpExporter(protocol)));
      used.push(`otlp:${protocol}`);
    } else if (name === "console") {
      spanProcessors.push(new SimpleSpanProcessor(new ConsoleSpanExporter()));
      used.push("console");
    } else {
      diag.warn(`OTEL_TRACES_EXPORTER "${name}" is not supported here (otlp, console, none); ignored`);
    }
  }
  const resource = resourceFromAttributes({
    [ATTR_SERVICE_NAME]: env(vars, "OTEL_SERVICE_NAME") ?? "syncworker",
    [ATTR_SERVICE_VERSION]: serviceVersion,
  }).merge(detectResources({ detectors: [envDetector] }));
  const provider = new NodeTracerProvider({ resource, spanProcessors });
  provider.register();
  const tracer = provider.getTracer("syncworker", serviceVersion);
  return { tracer, tracing: otelTracing(tracer), exporters: used, shutdown: () => provider.shutdown() };
}

/** Drops undefined values, which OpenTelemetry would reject with a warning per attribute. */
export function cleanAttributes(attributes: SpanAttributes): Attributes {
  const out: Attributes = {};
  for (const key in attributes) {
    const value = attributes[key];
    if (value !== undefined) out[key] = value;
  }
  return out;
}

function workerSpan(span: Span): WorkerSpan {
  return {
    ref: span.spanContext(),
    setAttributes: (attributes) => void span.setAttributes(cleanAttributes(attributes)),
    fail: (err) => failSpan(span, err),
  };
}

/** Records `err` on `span` and marks it failed. */
export function failSpan(span: Span, err: unknown): void {
  const error = err instanceof Error ? err : new Error(String(err));
  span.recordException(error);
  span.setStatus({ code: SpanStatusCode.ERROR, message: error.message });
}

/** The worker's {@link Tracing} on an OpenTelemetry tracer: each span is active while its function runs. */
export function otelTracing(tracer: Tracer): Tracing {
  return {
    enabled: true,
    span: (name, attributes, fn, options) =>
      tracer.startActiveSpan(
        name,
        { attributes: cleanAttributes(attributes), links: options?.links?.map((link) => ({ context: link })) ?? [] },
        async (span) => {
          try {
            return await fn(workerSpan(span));
          } catch (err) {
            failSpan(span, err);
            throw err;
          } finally {
            span.end();
          }
        },
      ),
  };
}

/**
 * A pino mixin adding `trace_id` and `span_id` to every line written while a span is active. Installed only
 * when tracing is on, so logging costs nothing extra otherwise.
 */
export function traceLogMixin(): Record<string, string> {
  const span = trace.getSpan(context.active());
  if (!span) return {};
  const { traceId, spanId, traceFlags } = span.spanContext();
  return { trace_id: traceId, span_id: spanId, trace_flags: `0${traceFlags.toString(16)}` };
}
