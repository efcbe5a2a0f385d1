/**
 * Composition root of `syncworker fleet`: the hub's informers and Lease, a connection to every member's syncworker,
 * the controller that leads while this replica holds the Lease, and the admin endpoints.
 */
import { pino } from "pino";
import { Registry } from "prom-client";
import { CachedTokenAuthority, KubeTokenAuthority, serverCredentials, StaticTokens, type AccessControlOptions, type TokenAuthority } from "./api/index.js";
import { MemberConnections, type MemberEndpoint } from "./api/fleet-members.js";
import { fleetPageRoutes } from "./api/fleet-page.js";
import { FleetApiServer } from "./api/fleet-server.js";
import type { FleetSource } from "./api/fleet-views.js";
import { KubeFleetHub } from "./cluster/kube/fleet-hub.js";
import { KubeAccessReviews, KubeLeaseClient, KubeObjectClient, WatchedObjects, loadKubeConfig } from "./cluster/kube/index.js";
import { bindListener, replicaIdentity, type CompiledFleetOptions } from "./config/index.js";
import { asError, systemClock, type Logger } from "./core/index.js";
import { FLEET_GROUP, FleetController, MEMBER_KIND } from "./fleet/index.js";
import { DEFAULT_LEASE_TIMING, LeaderElector } from "./service/index.js";
import { redactCredentials } from "./status/index.js";
import { fleetMetrics, kubeClientMetrics, liveCacheMetrics, processMetrics, startAdminServer, type HttpEndpoint } from "./telemetry/index.js";

export interface RunningFleet {
  /** The bound gRPC address of FleetWatch. */
  readonly address: string;
  /** The bound admin HTTP address, or "" without `--admin-listen`. */
  readonly adminAddress: string;
  stop(): Promise<void>;
}

/** Wait after a member could not be reached before the controller calls it again. */
const MEMBER_RETRY_MS = 2_000;
/** Members' progress reaches the rollout's status (and `kubectl get`) at most this often; states change at once. */
const PROGRESS_WRITE_MS = 2_000;

export async function startFleet(options: CompiledFleetOptions): Promise<RunningFleet> {
  // Read before anything starts, so a bad certificate or token file stops start-up naming it.
  const { security } = options;
  const credentials = serverCredentials(security.tlsCert ? { cert: security.tlsCert, key: security.tlsKey, clientCa: security.clientCa } : undefined);
  const staticTokens = security.authn === "static" ? StaticTokens.load(security.tokenFile) : undefined;
  const log = pino({ level: process.env["LOG_LEVEL"] ?? "info", hooks: { streamWrite: redactCredentials } }, pino.destination(2));
  const clock = systemClock;
  const registry = new Registry();
  processMetrics(registry);
  const me = replicaIdentity();
  const lifetime = new AbortController();
  const { namespace } = options;

  const client = new KubeObjectClient(loadKubeConfig(options.kubeconfig), kubeClientMetrics(registry));
  const live = new WatchedObjects(client, lifetime.signal, liveCacheMetrics(registry), (err) => log.warn({ err }, "watching the fleet's resources"));
  const hub = new KubeFleetHub(client, live, namespace);
  // With --authn kube, a token's user may watch the fleet when RBAC lets it watch the rollouts.
  const tokens: TokenAuthority | undefined =
    security.authn === "kube"
      ? new CachedTokenAuthority(new KubeTokenAuthority(new KubeAccessReviews(client, namespace), { group: FLEET_GROUP, resource: "releaserollouts" }), () =>
          clock.now().getTime(),
        )
      : staticTokens;
  const access: AccessControlOptions = { requireClientCertificate: security.clientCa !== "", ...(tokens ? { tokens } : {}) };
  // Every replica watches every member, so a standby that takes over already knows where each one stands.
  const members: MemberConnections = new MemberConnections(namespace, {
    clock,
    log: log.child({ component: "members" }),
    callTimeoutMs: options.memberTimeoutMs,
    changed: (ns, name) => {
      controller.memberChanged(ns, name);
      notifyWatchers();
    },
  });
  const controller = new FleetController({
    hub,
    members,
    metrics: fleetMetrics(registry),
    clock,
    log: log.child({ component: "controller" }),
    resyncMs: options.resyncMs,
    retryMs: MEMBER_RETRY_MS,
    progressWriteMs: PROGRESS_WRITE_MS,
    workers: options.workers,
  });

  // FleetWatch streams hear of every change of a rollout or a member.
  const watchers = new Set<() => void>();
  const notifyWatchers = (): void => {
    for (const changed of watchers) changed();
  };
  const source: FleetSource = {
    rollouts: (ns) => hub.rollouts().filter((r) => r.namespace === ns),
    rollout: (ns, name) => hub.rollout(ns, name),
    member: (name) => members.member(name),
    subscribe: (changed) => {
      watchers.add(changed);
      return () => watchers.delete(changed);
    },
  };
  const api = new FleetApiServer(source, namespace, access, credentials);

  // One sync at a time, so an older read of the Secrets never replaces a newer one.
  let syncing = Promise.resolve();
  const connectMembers = (): void => {
    syncing = syncing
      .then(() => endpoints(hub, lifetime.signal, log))
      .then(
        (found) => members.sync(found),
        (err: unknown) => {
          if (!lifetime.signal.aborted) log.warn({ err }, "reading the MemberClusters");
        },
      );
  };
  live.events = {
    changed: (ref) => {
      if (ref.group === FLEET_GROUP && ref.kind === MEMBER_KIND) connectMembers();
      else controller.enqueue(ref.namespace, ref.name);
      notifyWatchers();
    },
    relisted: (ref) => {
      if (ref.kind === MEMBER_KIND) connectMembers();
      else for (const r of hub.rollouts()) controller.enqueue(r.namespace, r.name);
    },
  };
  // Secrets are read when a MemberCluster changes and again at each resync, so a rotated token is taken up.
  const secretsRefresh = setInterval(connectMembers, options.resyncMs);

  let role = "standby";
  const election = options.leaderElect
    ? new LeaderElector(
        new KubeLeaseClient(client, namespace, options.leaseName),
        me,
        clock,
        Math.random,
        DEFAULT_LEASE_TIMING,
        log.child({ component: "leader-election" }),
      )
    : undefined;
  const lead = async (term: AbortSignal): Promise<void> => {
    role = "leader";
    log.info({ identity: me }, "leading the fleet");
    try {
      await controller.run(term);
    } finally {
      role = "standby";
    }
  };
  const running = (
    election ? election.run({ lead, newLeader: (holder) => log.info({ holder }, "fleet leader") }, lifetime.signal) : lead(lifetime.signal)
  ).catch((err: unknown) => {
    if (!lifetime.signal.aborted) log.error({ err }, "the fleet controller stopped");
  });

  let admin: HttpEndpoint | undefined;
  let address = "";
  const stop = async (): Promise<void> => {
    await api.shutdown(5_000);
    lifetime.abort();
    clearInterval(secretsRefresh);
    await running;
    members.close();
    await admin?.close();
  };
  try {
    address = await bindListener("listen", options.listen, () => api.listen(options.listen));
    const { adminListen } = options;
    admin = adminListen
      ? await bindListener("admin-listen", adminListen, () =>
          startAdminServer(adminListen, {
            ready: () => (lifetime.signal.aborted ? undefined : role),
            metrics: registry,
            page: fleetPageRoutes({ source, namespace, access, log: log.child({ component: "page" }) }),
          }),
        )
      : undefined;
  } catch (err) {
    await stop().catch((stopErr: unknown) => log.warn({ err: stopErr }, "stopping after a failed start"));
    throw err;
  }
  log.info({ address, namespace, identity: me, leaderElect: options.leaderElect }, "fleet controller running");
  return { address, adminAddress: admin?.address ?? "", stop };
}

/**
 * How to reach each MemberCluster's syncworker: its address, and the TLS material and token its Secrets hold. A member
 * whose Secret cannot be read is left out (and logged, naming it): the others are still reached.
 */
async function endpoints(hub: KubeFleetHub, signal: AbortSignal, log: Logger): Promise<Map<string, MemberEndpoint>> {
  const found = new Map<string, MemberEndpoint>();
  const secret = async (member: string, name: string): Promise<Record<string, Buffer>> => {
    const data = await hub.secret(name, signal);
    if (!data) throw new Error(`MemberCluster ${member}: Secret ${hub.namespace}/${name} not found`);
    return data;
  };
  for (const name of hub.members(hub.namespace).map((m) => m.name)) {
    const member = hub.memberEndpoint(name);
    if (!member) continue;
    const { spec } = member;
    try {
      const tlsSecret = spec.tls?.secretRef ? await secret(name, spec.tls.secretRef.name) : undefined;
      const tokenSecret = spec.tokenSecretRef ? await secret(name, spec.tokenSecretRef.name) : undefined;
      const key = spec.tokenSecretRef?.key ?? "token";
      const token = tokenSecret?.[key]?.toString("utf8").trim();
      if (tokenSecret && !token) throw new Error(`MemberCluster ${name}: Secret ${spec.tokenSecretRef?.name ?? ""} has no "${key}"`);
      const tls = spec.tls
        ? {
            ca: tlsSecret?.["ca.crt"],
            cert: tlsSecret?.["tls.crt"],
            key: tlsSecret?.["tls.key"],
            ...(spec.tls.serverName ? { serverName: spec.tls.serverName } : {}),
          }
        : undefined;
      // The version changes with anything that needs a new connection, and nothing else: not the resourceVersion,
      // which every status write moves (a reconnect would forget the member's snapshot).
      const version = JSON.stringify([member.uid, spec, tls ? Object.values(tls).map(String) : [], token ?? ""]);
      found.set(name, { address: spec.address, ...(tls ? { tls } : {}), ...(token ? { token } : {}), version });
    } catch (err) {
      if (signal.aborted) throw err;
      log.warn(`cannot reach MemberCluster ${name} yet: ${asError(err).message}`);
    }
  }
  return found;
}
