/**
 * A real Jaeger v2 all-in-one (memory storage) for tracing tests: built once from its Go module by
 * scripts/build-jaeger.sh (cached outside the repository by version), started on free loopback ports,
 * read back through its JSON query API.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { goToolBinary } from "./go-tool.js";
import { freePort } from "./ports.js";

/** A span as the query API returns it (`/api/traces`). */
export interface JaegerSpan {
  readonly traceID: string;
  readonly spanID: string;
  readonly operationName: string;
  readonly references: readonly { readonly refType: "CHILD_OF" | "FOLLOWS_FROM"; readonly traceID: string; readonly spanID: string }[];
  readonly tags: readonly { readonly key: string; readonly type: string; readonly value: string | number | boolean }[];
  readonly processID: string;
}

export interface JaegerTrace {
  readonly traceID: string;
  readonly spans: readonly JaegerSpan[];
}

export interface Jaeger {
  /** `127.0.0.1:PORT` of the OTLP gRPC receiver. */
  readonly otlpGrpc: string;
  /** `http://127.0.0.1:PORT` of the OTLP HTTP receiver (exporters append `/v1/traces`). */
  readonly otlpHttp: string;
  /** `http://127.0.0.1:PORT` of the query API. */
  readonly query: string;
  /** Every trace of `service` in the last hour (up to `limit`). */
  traces(service: string, limit?: number): Promise<JaegerTrace[]>;
  /** One trace by id, or undefined while it is not stored yet. */
  trace(traceId: string): Promise<JaegerTrace | undefined>;
  /** Everything Jaeger logged, for failure messages. */
  readonly log: () => string;
  stop(): Promise<void>;
}

/** The cached binary's path; builds it first if this machine never did (minutes, progress on stderr). */
export function jaegerBinary(): Promise<string> {
  return goToolBinary("build-jaeger.sh");
}

/** The all-in-one's pipeline trimmed to OTLP in, memory out, every listener on loopback (test-infra.md D.2). */
function config(ports: { grpc: number; http: number; query: number; queryGrpc: number; health: number }): string {
  return `service:
  extensions: [jaeger_storage, jaeger_query, healthcheckv2]
  pipelines:
    traces:
      receivers: [otlp]
      processors: [batch]
      exporters: [jaeger_storage_exporter]
  telemetry:
    resource:
      service.name: jaeger
    metrics:
      level: none
    logs:
      level: warn
extensions:
  jaeger_storage:
    backends:
      mem:
        memory:
          max_traces: 100000
  jaeger_query:
    storage:
      traces: mem
    http:
      endpoint: 127.0.0.1:${ports.query}
    grpc:
      endpoint: 127.0.0.1:${ports.queryGrpc}
  healthcheckv2:
    use_v2: true
    http:
      endpoint: 127.0.0.1:${ports.health}
receivers:
  otlp:
    protocols:
      grpc:
        endpoint: 127.0.0.1:${ports.grpc}
      http:
        endpoint: 127.0.0.1:${ports.http}
processors:
  batch:
    timeout: 100ms
exporters:
  jaeger_storage_exporter:
    trace_storage: mem
`;
}

/** Starts Jaeger and waits until its query API answers; killed when the test process exits. */
export async function startJaeger(): Promise<Jaeger> {
  const binary = await jaegerBinary();
  const ports = { grpc: await freePort(), http: await freePort(), query: await freePort(), queryGrpc: await freePort(), health: await freePort() };
  const dir = await mkdtemp(join(tmpdir(), "syncworker-jaeger-"));
  const configPath = join(dir, "jaeger.yaml");
  await writeFile(configPath, config(ports));
  const child: ChildProcess = spawn(binary, ["--config", configPath], { stdio: ["ignore", "pipe", "pipe"] });
  const kill = (): void => void child.kill("SIGKILL");
  process.once("exit", kill);
  let log = "";
  child.stdout?.on("data", (chunk: Buffer) => (log += chunk.toString()));
  child.stderr?.on("data", (chunk: Buffer) => (log += chunk.toString()));
  const query = `http://127.0.0.1:${ports.query}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`jaeger exited with ${child.exitCode}: ${log}`);
    const ok = await fetch(`${query}/api/services`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) break;
    if (Date.now() > deadline) throw new Error(`jaeger did not answer on ${query} within 60s: ${log}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const getJson = async <T>(path: string): Promise<T | undefined> => {
    const res = await fetch(`${query}${path}`);
    if (res.status === 404) return undefined;
    if (!res.ok) throw new Error(`GET ${path}: ${res.status} ${await res.text()}`);
    return (await res.json()) as T;
  };
  return {
    otlpGrpc: `127.0.0.1:${ports.grpc}`,
    otlpHttp: `http://127.0.0.1:${ports.http}`,
    query,
    traces: async (service, limit = 1000) =>
      (await getJson<{ data: JaegerTrace[] | null }>(`/api/traces?service=${encodeURIComponent(service)}&lookback=1h&limit=${limit}`))?.data ?? [],
    trace: async (traceId) => (await getJson<{ data: JaegerTrace[] | null }>(`/api/traces/${traceId}`))?.data?.[0],
    log: () => log,
    stop: async () => {
      process.off("exit", kill);
      if (child.exitCode === null) {
        const exited = once(child, "exit");
        child.kill("SIGTERM");
        await exited;
      }
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** The value of a span tag, or undefined. */
export function tag(span: JaegerSpan, key: string): string | number | boolean | undefined {
  return span.tags.find((t) => t.key === key)?.value;
}

/** Polls `probe` every 100 ms until it returns a value, failing with `what` after `timeoutMs`. */
export async function eventually<T>(what: string, timeoutMs: number, probe: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`${what}: not seen within ${timeoutMs}ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
