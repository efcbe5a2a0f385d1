import { pino } from "pino";
import { Registry } from "prom-client";
import {
  ApiServer,
  CachedTokenAuthority,
  logGrpcTo,
  KubeTokenAuthority,
  pageRoutes,
  serverCredentials,
  StaticTokens,
  type TokenAuthority,
} from "./api/index.js";
import { createEmbeddedCluster, type EmbeddedCluster } from "./cluster/embedded/index.js";
import { ClusterPlanner } from "./cluster/planner.js";
import { preconditionCluster } from "./cluster/preconditions.js";
import { compileHealthRules, type HealthRules } from "./readiness/index.js";
import { bindListener, PACKAGE_VERSION, TUNING, ValueError, replicaIdentity, type CompiledServeOptions, type EventOptions } from "./config/index.js";
import { EventPublisher, EventSink } from "./events/index.js";
import { gvkOf } from "./payload/index.js";
import { DirectoryRetriever, ImageRetriever, nodePayloadFs, RegistryClient, RegistryRetriever, ThreadedPayloadLoader } from "./retrieval/index.js";
import { configureVerifier, loadKeyrings, type Keyring } from "./retrieval/verify/index.js";
import { builtInPreconditions } from "./policy/index.js";
import { DEFAULT_LEASE_TIMING, FileStateStore, LeaderElector, SyncService, type ClusterTarget, type StateStore } from "./service/index.js";
import { redactCredentials, type ServiceStatus, type Snapshot } from "./status/index.js";
import {
  apiMetrics,
  clusterVersionMetrics,
  coalescedSnapshots,
  eventSinkMetrics,
  kubeClientMetrics,
  liveCacheMetrics,
  processMetrics,
  startAdminServer,
  startMetricsServer,
  type HttpEndpoint,
  startTracing,
  traceLogMixin,
  workerMetrics,
} from "./telemetry/index.js";
import { systemClock, isClusterOperator, type Logger } from "./core/index.js";

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

/** The `--event-sink` deliveries, running until `stop`; undefined without sinks. */
function eventPublisher(
  options: EventOptions | undefined,
  me: string,
  registry: Registry,
  log: Logger,
  latest: () => Snapshot<ServiceStatus>,
): { readonly publisher: EventPublisher; stop(): Promise<void> } | undefined {
  if (!options) return undefined;
  const metrics = eventSinkMetrics(registry);
  const sinks = options.sinks.map(
    (url) =>
      new EventSink({
        url,
        mode: options.mode,
        ...(options.token ? { token: options.token } : {}),
        ...(options.ca ? { ca: options.ca } : {}),
        ...TUNING.eventSink,
        log,
        metrics,
        random: Math.random,
      }),
  );
  const running = new AbortController();
  const loops = sinks.map((sink) => sink.run(running.signal));
  return {
    publisher: new EventPublisher(options.source, me, sinks, latest, log),
    stop: async () => {
      running.abort();
      await Promise.all(loops);
    },
  };
}

/** `--verification-keys`' keyrings (none without the flag); a bad or empty key file stops start-up naming it. */
async function verificationKeyrings(dir: string): Promise<Keyring[]> {
  if (dir === "") return [];
  try {
    return await loadKeyrings(dir);
  } catch (err) {
    throw new ValueError("verification-keys", err instanceof Error ? err.message : String(err));
  }
}

/** `--health-rules` compiled (none without the flag); a rule that does not compile stops start-up naming it. */
function compiledHealthRules(given: CompiledServeOptions["healthRules"]): HealthRules | undefined {
  if (!given) return undefined;
  try {
    return compileHealthRules(given.text, given.file);
  } catch (err) {
    throw new ValueError("health-rules", err instanceof Error ? err.message : String(err));
  }
}

/** Composition root: builds the dependencies from compiled options, starts the service and serves it. */
export async function startService(options: CompiledServeOptions): Promise<RunningService> {
  // Read before anything starts, so a bad certificate or token file stops start-up naming it.
  const { security } = options;
  const credentials = serverCredentials(security.tlsCert ? { cert: security.tlsCert, key: security.tlsKey, clientCa: security.clientCa } : undefined);
  const staticTokens = security.authn === "static" ? StaticTokens.load(security.tokenFile) : undefined;
  const keyrings = await verificationKeyrings(options.verification.verificationKeys);
  const healthRules = compiledHealthRules(options.healthRules);
  const tracing = await startTracing(process.env, PACKAGE_VERSION);
  // Log lines written inside a span carry its ids; without tracing there is no mixin to run.
  // Every line is redacted of URL credentials as written: errors quote the URLs they were given (a signature store's).
  const log = pino(
    { level: process.env["LOG_LEVEL"] ?? "info", hooks: { streamWrite: redactCredentials }, ...(tracing.tracer ? { mixin: traceLogMixin } : {}) },
    pino.destination(2),
  );
  logGrpcTo(log.child({ component: "grpc-js" }));
  const lifetime = new AbortController();
  const clock = systemClock;
  const registry = new Registry();
  processMetrics(registry);
  const me = replicaIdentity();

  // Only a real cluster loads the Kubernetes client.
  const kube = options.kubeconfig
    ? await import("./cluster/kube/index.js").then((k) =>
        k.createKubeCluster(
          options.kubeconfig,
          options.namespace || k.defaultNamespace(),
          lifetime.signal,
          {
            event: (err) => log.debug({ err }, "event not recorded in the cluster"),
            stateWatch: (err) => log.warn({ err }, "watching the state object"),
            clusterVersion: (err) => log.warn({ err }, "writing the ClusterVersion view"),
          },
          { ...options.kube, ...kubeClientMetrics(registry) },
        ),
      )
    : undefined;
  const fileState = kube ? undefined : new FileStateStore(options.stateDir);
  fileState?.lock();
  const state: StateStore = kube?.state ?? fileState!;
  let embedded: EmbeddedCluster | undefined;

  const loader = new ThreadedPayloadLoader(options.load, options.payloadLoadTimeoutMs, (message) => log.warn(message));
  loader.warm();
  const registryClient = new RegistryClient(options.registry);
  const verification = configureVerifier(
    { keyrings, signatureStores: options.verification.signatureStores, caPem: options.registry.caPem },
    registryClient,
    () => clock.now(),
  );
  const retriever = new ImageRetriever(
    new DirectoryRetriever(nodePayloadFs, options.payloadRoots),
    new RegistryRetriever({
      client: registryClient,
      cacheDir: options.registry.cacheDir,
      architecture: options.load.architecture,
      verifier: verification.verify,
      limits: options.registry.limits,
    }),
  );
  const events = eventPublisher(options.events, me, registry, log.child({ component: "events" }), () => service.latest());
  const service: SyncService = new SyncService({
    ...(events ? { onSnapshot: (snapshot, trace) => events.publisher.observe(snapshot, trace), onLeader: (leader) => events.publisher.leader(leader) } : {}),
    clock,
    random: Math.random,
    log,
    cluster: ({ onOperatorWait, notify, drift }): ClusterTarget => {
      if (kube) {
        const cache = kube.cache(drift, liveCacheMetrics(registry), (err) => log.warn({ err }, "live-object cache"));
        const applier = kube.applier({ onOperatorWait, tracing: tracing.tracing, cache, ...(healthRules ? { healthRules } : {}) });
        // Without a ClusterVersion in the cluster (plain Kubernetes) the built-in preconditions pass.
        return {
          applier,
          planner: new ClusterPlanner(kube.client),
          preconditions: builtInPreconditions(preconditionCluster(kube.client)),
          events: kube.events,
        };
      }
      embedded = createEmbeddedCluster(
        {
          operatorDelayMs: options.operatorDelayMs,
          clock,
          onActivity: notify,
          onOperatorWait,
          onDrift: drift,
          tracing: tracing.tracing,
          ...(healthRules ? { healthRules } : {}),
        },
        lifetime.signal,
      );
      return {
        applier: embedded.applier,
        planner: new ClusterPlanner(embedded.client),
        preconditions: builtInPreconditions(preconditionCluster(embedded.client)),
      };
    },
    retriever,
    loadPayload: (source, releaseImage, signal) => loader.load(source, releaseImage, signal),
    maxWorkers: options.maxWorkers,
    minimumReconcileIntervalMs: options.reconcileIntervalMs,
    backoff: options.backoff,
    installBackoff: options.installBackoff,
    featureGates: options.load.enabledFeatureGates,
    limits: options.limits,
    maintenanceWindows: options.maintenanceWindows,
    reconcileInWindowsOnly: options.reconcileInWindowsOnly,
    ...(options.deadlines.progressMs !== undefined || options.deadlines.totalMs !== undefined
      ? { deadlines: { ...options.deadlines, onDeadline: "Fail" as const } }
      : {}),
    state,
    ...(kube && options.leaderElect
      ? { election: new LeaderElector(kube.lease, me, clock, Math.random, DEFAULT_LEASE_TIMING, log.child({ component: "leader-election" })) }
      : {}),
    identity: me,
    progressIntervalMs: options.progressIntervalMs,
    metrics: {
      ...workerMetrics(registry, () => clock.now().getTime()),
      // The CVO's own metrics, read from the service's status and the cluster's ClusterOperators at each scrape.
      ...clusterVersionMetrics(registry, {
        status: (): ServiceStatus => service.latest().value,
        operators: () => kube?.clusterOperators() ?? embedded?.store.list().filter((o) => isClusterOperator(gvkOf(o))) ?? [],
        role: () => service.role(),
      }),
    },
    tracing: tracing.tracing,
    onCoalesced: coalescedSnapshots(registry),
  });
  try {
    await service.start();
    // Without an election this process leads from the start; with one, the publisher hears when it does.
    if (events && service.role() === "leader") events.publisher.resync();
  } catch (err) {
    await service.stop();
    await loader.close();
    await fileState?.unlock();
    await tracing.shutdown();
    throw err;
  }

  const tokens: TokenAuthority | undefined =
    kube && security.authn === "kube" ? new CachedTokenAuthority(new KubeTokenAuthority(kube.accessReviews), () => clock.now().getTime()) : staticTokens;
  const access = { requireClientCertificate: security.clientCa !== "", ...(tokens ? { tokens } : {}) };
  const api = new ApiServer({
    service,
    credentials,
    access,
    log: log.child({ component: "api" }),
    metrics: apiMetrics(registry),
    // A tag is resolved here; a registry that does not answer in time leaves it to retrieval to report why.
    admitImage: (image) => retriever.admit(image, AbortSignal.timeout(options.admitTimeoutMs)),
    maxWatchesPerClient: options.maxWatchesPerClient,
    version: PACKAGE_VERSION,
    ...(tracing.tracer ? { tracer: tracing.tracer } : {}),
  });
  let admin: HttpEndpoint | undefined;
  let metricsServer: HttpEndpoint | undefined;
  const stop = async (): Promise<void> => {
    await api.shutdown(options.shutdownGraceMs);
    // The worker stops and saves its last state before the cluster's controllers and clients stop. A failed
    // save is reported (a non-zero exit) once everything else has stopped.
    let unsaved: Error | undefined;
    await service.stop().catch((err: unknown) => (unsaved = err instanceof Error ? err : new Error(String(err))));
    // After the service's last snapshot; what a sink has not taken by now is told again, as the first event of the next start.
    await events?.stop();
    lifetime.abort();
    await loader.close();
    await registryClient.close();
    await verification.close();
    await fileState?.unlock();
    await admin?.close();
    await metricsServer?.close();
    // Last, so the spans of the final pass and of the shutdown are exported.
    await tracing.shutdown();
    if (unsaved !== undefined) throw unsaved;
  };
  let address: string;
  try {
    address = await bindListener("listen", options.listen, () => api.listen(options.listen));
    const { adminListen, metricsListen } = options;
    admin = adminListen
      ? await bindListener("admin-listen", adminListen, () =>
          startAdminServer(adminListen, {
            ready: () => (lifetime.signal.aborted ? undefined : service.role()),
            metrics: registry,
            // The objects may hold what the payloads carried: shown only when asked for.
            ...(embedded && options.debugEndpoints ? { objects: () => embedded!.store.list() } : {}),
            page: pageRoutes({ service, access, log: log.child({ component: "page" }) }),
          }),
        )
      : undefined;
    metricsServer = metricsListen ? await bindListener("metrics-listen", metricsListen, () => startMetricsServer(metricsListen, registry)) : undefined;
  } catch (err) {
    // A port that cannot be bound stops start-up (the error names it): what already runs is stopped, so the
    // process exits instead of serving without that port.
    await stop().catch((stopErr: unknown) => log.warn({ err: stopErr }, "stopping after a failed start"));
    throw err;
  }
  log.info({ address, reconcileIntervalMs: options.reconcileIntervalMs, traceExporters: tracing.exporters, identity: me, state: state.where }, "serving");

  return { address, adminAddress: admin?.address ?? "", metricsAddress: metricsServer?.address ?? "", stop };
}
