import { readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { pino } from "pino";
import { ApiServer } from "./api/index.js";
import { createEmbeddedCluster } from "./cluster/embedded/index.js";
import { preconditionCluster } from "./cluster/preconditions.js";
import type { CompiledServeOptions } from "./config/index.js";
import { DirectoryRetriever, goArch, nodePayloadFs, ThreadedPayloadLoader } from "./payload/index.js";
import { builtInPreconditions } from "./policy/index.js";
import { collectDefaultMetrics, Registry } from "prom-client";
import { ClusterVersionTracker, SnapshotStore, ThrottledNotifier, type ServiceStatus } from "./status/index.js";
import { apiMetrics, coalescedSnapshots, startMetricsServer, startTracing, traceLogMixin, workerMetrics } from "./telemetry/index.js";
import { describeStatus, EMPTY_STATUS, OperatorStartTimes, SyncWorker, systemClock } from "./worker/index.js";

export interface RunningService {
  /** The bound gRPC address. */
  readonly address: string;
  /** The bound admin HTTP address, or "" when disabled. */
  readonly adminAddress: string;
  /** The bound `/metrics` address (`--metrics-listen`), or "" when disabled. */
  readonly metricsAddress: string;
  /** Health NOT_SERVING, streams ended, worker stopped, servers closed. */
  stop(): Promise<void>;
}

/** Composition root: builds the dependencies from compiled options and starts serving. */
export async function startService(options: CompiledServeOptions): Promise<RunningService> {
  const version = (JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as { version: string }).version;
  const tracing = await startTracing(process.env, version);
  // Log lines written inside a span carry its ids; without tracing there is no mixin to run.
  const log = pino({ level: process.env["LOG_LEVEL"] ?? "info", ...(tracing.tracer ? { mixin: traceLogMixin } : {}) }, pino.destination(2));
  const lifetime = new AbortController();
  const clock = systemClock;
  const operatorStartTimes = new OperatorStartTimes(() => clock.now());
  const tracker = new ClusterVersionTracker(() => clock.now(), (name) => operatorStartTimes.get(name));
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const store = new SnapshotStore<ServiceStatus>(
    { worker: EMPTY_STATUS, clusterVersion: tracker.status },
    Date.now,
    setImmediate,
    coalescedSnapshots(registry),
  );
  let notify: (message: string) => void = () => undefined;
  const embedded = options.kubeconfig
    ? undefined
    : createEmbeddedCluster({ operatorDelayMs: options.operatorDelayMs, clock, onActivity: (m) => notify(m), operatorStartTimes, tracing: tracing.tracing }, lifetime.signal);
  const eventLog = log.child({ component: "events" });
  // Progress is logged on every edge and otherwise at most every 15 s (the CVO's notifier settings).
  const progressLog = log.child({ component: "status" });
  const statusLog = new ThrottledNotifier(15_000, 2, clock, (status) => progressLog.info(describeStatus(status)));
  // Only a real cluster loads the Kubernetes client.
  const kube = embedded
    ? undefined
    : (await import("./cluster/kube/index.js")).createKubeCluster(options.kubeconfig, { operatorStartTimes, tracing: tracing.tracing }, lifetime.signal, (err) =>
        eventLog.debug({ err }, "event not recorded in the cluster"),
      );
  const applier = embedded?.applier ?? kube!.applier;
  const clusterClient = embedded?.client ?? kube!.client;
  const architecture = goArch(process.arch);
  const loader = new ThreadedPayloadLoader({
    exclude: options.exclude,
    featureSet: options.featureSet,
    clusterProfile: options.clusterProfile,
    knownCapabilities: options.knownCapabilities,
    architecture,
  });
  loader.warm();
  const worker = new SyncWorker({
    retriever: new DirectoryRetriever(nodePayloadFs),
    loadPayload: (directory, releaseImage) => loader.load(directory, releaseImage),
    applier,
    clock,
    random: Math.random,
    log: log.child({ component: "worker" }),
    minimumReconcileIntervalMs: options.reconcileIntervalMs,
    backoff: { durationMs: 10_000, factor: 1.3, jitter: 0.1, steps: options.backoffSteps, capMs: 15_000 },
    onStatus: (status) => {
      store.publish({ worker: status, clusterVersion: tracker.observe(status) });
      statusLog.push(status);
    },
    metrics: workerMetrics(registry, () => clock.now().getTime()),
    tracing: tracing.tracing,
    events: {
      event: (type, reason, message) => {
        if (type === "Warning") eventLog.warn({ reason }, message);
        else eventLog.info({ reason }, message);
        kube?.events.event(type, reason, message);
      },
    },
    operatorStartTimes,
    // Without a ClusterVersion in the cluster (the embedded one, plain Kubernetes) they pass.
    preconditions: builtInPreconditions(preconditionCluster(clusterClient)),
  });
  notify = (message) => worker.notify(message);

  const api = new ApiServer({
    worker,
    store,
    chooseState: (image) => tracker.chooseState(image),
    log: log.child({ component: "api" }),
    metrics: apiMetrics(registry),
    ...(tracing.tracer ? { tracer: tracing.tracer } : {}),
  });
  const address = await api.listen(options.listen);
  const loop = worker.start(options.maxWorkers, lifetime.signal);
  const admin = options.adminListen ? await startAdmin(options.adminListen, {
        ready: () => !lifetime.signal.aborted,
        metrics: registry,
        ...(embedded ? { objects: () => embedded.store.list() } : {}),
      }) : undefined;
  const metricsServer = options.metricsListen ? await startMetricsServer(options.metricsListen, registry) : undefined;
  log.info({ address, reconcileIntervalMs: options.reconcileIntervalMs, traceExporters: tracing.exporters }, "serving");

  return {
    address,
    adminAddress: admin ? formatAddress(admin.address() as AddressInfo) : "",
    metricsAddress: metricsServer?.address ?? "",
    stop: async () => {
      await api.shutdown(5_000);
      lifetime.abort();
      await loop;
      statusLog.stop();
      await loader.close();
      await new Promise<void>((resolve) => (admin ? admin.close(() => resolve()) : resolve()));
      await metricsServer?.close();
      // Last, so the spans of the final pass and of the shutdown are exported.
      await tracing.shutdown();
    },
  };
}

function formatAddress(info: AddressInfo): string {
  return info.family === "IPv6" ? `[${info.address}]:${info.port}` : `${info.address}:${info.port}`;
}

interface AdminEndpoints {
  readonly ready: () => boolean;
  readonly metrics: Registry;
  readonly objects?: () => unknown[];
}

/** Liveness, readiness, Prometheus metrics and (on the embedded cluster) a read-only view of its objects. */
async function startAdmin(address: string, { ready, metrics, objects }: AdminEndpoints): Promise<Server> {
  const server = createServer((req, res) => {
    const send = (code: number, body: string, type = "text/plain"): void => {
      res.writeHead(code, { "content-type": type }).end(body);
    };
    if (req.url === "/healthz") return send(200, "ok");
    if (req.url === "/readyz") return ready() ? send(200, "ok") : send(503, "shutting down");
    if (req.url === "/metrics") {
      void metrics.metrics().then((text) => send(200, text, metrics.contentType));
      return;
    }
    if (req.url === "/debug/embedded/objects" && objects) return send(200, JSON.stringify(objects()), "application/json");
    return send(404, "not found");
  });
  const colon = address.lastIndexOf(":");
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(Number(address.slice(colon + 1)), address.slice(0, colon), resolve);
  });
  return server;
}
