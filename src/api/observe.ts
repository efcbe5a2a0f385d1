/**
 * Server-side observation of every SyncWorker call: a span with the gRPC semantic-convention attributes,
 * parented on the caller's W3C trace context (`traceparent` metadata), and call metrics by method and code.
 * Done by hand rather than with the grpc-js auto-instrumentation, which under ESM needs a loader preload.
 */
import {
  context,
  propagation,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Context,
  type Span,
  type TextMapGetter,
  type Tracer,
} from "@opentelemetry/api";
import { status as Status, type Metadata } from "@grpc/grpc-js";
import type { SpanRef } from "../core/index.js";

/** The call metrics the edge reports; the composition root backs them with the injected registry. */
export interface ApiMetrics {
  /** A call finished with `code` (a grpc status name such as `OK`) after `seconds`. */
  handled(service: string, method: string, type: "unary" | "server_stream", code: string, seconds: number): void;
  /** StatusWatch streams opened (+1) and closed (-1). */
  watchStreams(delta: 1 | -1): void;
  /** A status snapshot was written to one StatusWatch stream `seconds` after it was published. */
  watchDelivered(seconds: number): void;
}

export const NO_API_METRICS: ApiMetrics = { handled: () => undefined, watchStreams: () => undefined, watchDelivered: () => undefined };

/** The part of a grpc-js call the observer reads. */
export interface ObservedCall {
  readonly metadata: Metadata;
  getPeer(): string;
}

/** One call in progress; `end` is idempotent because grpc-js may report a stream's end twice. */
export interface CallScope {
  /** The server span, for linking work the call causes; undefined when tracing is off. */
  readonly span: SpanRef | undefined;
  /** Runs `fn` with the call's span active, so spans and log lines inside are its children. */
  run<T>(fn: () => T): T;
  end(code: Status, message?: string): void;
}

const metadataGetter: TextMapGetter<Metadata> = {
  keys: (carrier) => Object.keys(carrier.getMap()),
  get: (carrier, key) => {
    const values = carrier.get(key).filter((v): v is string => typeof v === "string");
    return values.length === 0 ? undefined : values.length === 1 ? values[0] : values;
  },
};

// The semantic conventions mark a server span failed only for codes that mean the server is at fault.
const SERVER_ERRORS = new Set([Status.UNKNOWN, Status.DEADLINE_EXCEEDED, Status.UNIMPLEMENTED, Status.INTERNAL, Status.UNAVAILABLE, Status.DATA_LOSS]);

/** `ipv4:127.0.0.1:5000`, `[::1]:5000` or `127.0.0.1:5000` → address and port. */
function splitPeer(peer: string): { address: string; port: number | undefined } {
  const bare = peer.replace(/^ipv[46]:/, "");
  const colon = bare.lastIndexOf(":");
  if (colon < 0) return { address: bare, port: undefined };
  const port = Number(bare.slice(colon + 1));
  return { address: bare.slice(0, colon).replace(/^\[(.*)\]$/, "$1"), port: Number.isInteger(port) ? port : undefined };
}

/** Observes calls of one service; with no tracer only the metrics are kept (no OpenTelemetry calls at all). */
export class CallObserver {
  constructor(
    private readonly service: string,
    private readonly tracer: Tracer | undefined,
    private readonly metrics: ApiMetrics,
  ) {}

  /** Starts observing a call of `method` (the proto method name, e.g. `Update`). */
  begin(method: string, type: "unary" | "server_stream", call: ObservedCall): CallScope {
    const started = process.hrtime.bigint();
    const { span, ctx } = this.tracer ? this.#startSpan(this.tracer, method, call) : { span: undefined, ctx: undefined };
    let ended = false;
    return {
      span: span?.spanContext(),
      run: (fn) => (ctx ? context.with(ctx, fn) : fn()),
      end: (code, message) => {
        if (ended) return;
        ended = true;
        const name = Status[code] ?? String(code);
        this.metrics.handled(this.service, method, type, name, Number(process.hrtime.bigint() - started) / 1e9);
        if (!span) return;
        span.setAttribute("rpc.grpc.status_code", code);
        if (SERVER_ERRORS.has(code)) span.setStatus({ code: SpanStatusCode.ERROR, ...(message ? { message } : {}) });
        span.end();
      },
    };
  }

  #startSpan(tracer: Tracer, method: string, call: ObservedCall): { span: Span; ctx: Context } {
    const parent = propagation.extract(ROOT_CONTEXT, call.metadata, metadataGetter);
    const peer = splitPeer(call.getPeer());
    const span = tracer.startSpan(
      `${this.service}/${method}`,
      {
        kind: SpanKind.SERVER,
        attributes: {
          "rpc.system": "grpc",
          "rpc.service": this.service,
          "rpc.method": method,
          "network.peer.address": peer.address,
          ...(peer.port !== undefined ? { "network.peer.port": peer.port } : {}),
        },
      },
      parent,
    );
    return { span, ctx: trace.setSpan(parent, span) };
  }
}
