/**
 * The one declaration of every flag of `serve` and `render` (and of the registry flags the commands that pull
 * share): how it is spelled, explained, parsed and defaulted, keyed by the options field it sets. The CLI builds
 * its commander options from these tables; the compilers apply their defaults, once, with {@link applyDefaults}.
 */
import { DEFAULT_CLUSTER_PROFILE, DEFAULT_FEATURE_SET, DEFAULT_PAYLOAD_LIMITS } from "../payload/index.js";
import { DEFAULT_PULL_LIMITS } from "../retrieval/registry/limits.js";
import { KNOWN_CAPABILITIES } from "../policy/index.js";
import { KUBE_CLIENT_DEFAULTS } from "./tuning.js";
import { formatByteSize, formatDuration } from "./units.js";

/** One flag. Its options field is the table key, which must be the camel-cased long name (commander's key). */
export interface Flag<T> {
  /** Commander's spelling: `--name <value>`, `-o, --name <value>`, or `--name` for a switch. */
  readonly flags: string;
  readonly help: string;
  /** Reads one occurrence, given the value so far (a repeatable flag collects); absent: the text itself. Throws to refuse it. */
  parse?(text: string, previous: T | undefined): T;
  /** What an absent flag means; shown in --help, applied by the compiler. */
  readonly default?: T;
  /** How --help words the default, where its value would not say it well. */
  readonly shownDefault?: string;
  readonly choices?: readonly string[];
  readonly required?: boolean;
}

/** A flag for every field of `O`. */
export type FlagTable<O> = { readonly [K in keyof O]-?: Flag<Exclude<O[K], undefined>> };

/** `O` with the fields whose flag has a default no longer optional. */
export type WithDefaults<O, Table> = O & {
  readonly [K in keyof Table & keyof O as Table[K] extends { readonly default: unknown } ? K : never]-?: Exclude<O[K], undefined>;
};

/** Fills every absent field whose flag has a default; the one place a flag's default is applied. */
export function applyDefaults<O extends object, Table extends Partial<FlagTable<O>>>(table: Table, options: O): WithDefaults<O, Table> {
  const filled = { ...options } as Record<string, unknown>;
  for (const [field, flag] of Object.entries<Flag<unknown> | undefined>(table)) {
    if (filled[field] === undefined && flag?.default !== undefined) filled[field] = flag.default;
  }
  return filled as WithDefaults<O, Table>;
}

/** A whole number; the CLI turns the refusal into a usage error naming the flag. */
export function integer(text: string): number {
  const n = Number(text);
  if (!Number.isInteger(n)) throw new Error(`"${text}" is not an integer`);
  return n;
}

/** A comma-separated list; empty items are dropped. */
export function list(text: string): string[] {
  return text
    .split(",")
    .map((item) => item.trim())
    .filter((item) => item !== "");
}

/** A repeatable flag: each occurrence adds one item. */
function repeated(text: string, previous: readonly string[] | undefined): string[] {
  return [...(previous ?? []), text];
}

/** The registry flags (`--pull-secret`, `--registry-ca`, `--insecure-registry`), read by config's `compileRegistryAccess`. */
export interface RegistryFlags {
  /**
   * Registry credentials: a Docker config.json (an OpenShift pull secret). Default: `$REGISTRY_AUTH_FILE`, else
   * `$DOCKER_CONFIG/config.json`, else `~/.docker/config.json`, when it exists.
   */
  pullSecret?: string;
  /** CA certificates (PEM) trusted for registries besides the system's. */
  registryCa?: string;
  /** Registries (`host[:port]`, loopback only) spoken to over plain HTTP: for local tests. */
  insecureRegistry?: readonly string[];
}

export const REGISTRY_FLAGS = {
  pullSecret: {
    flags: "--pull-secret <file>",
    help: "registry credentials, a Docker config.json (default: $REGISTRY_AUTH_FILE, $DOCKER_CONFIG/config.json, ~/.docker/config.json)",
  },
  registryCa: { flags: "--registry-ca <file>", help: "CA certificates (PEM) trusted for registries besides the system's" },
  insecureRegistry: {
    flags: "--insecure-registry <host[:port]>",
    help: "a loopback registry spoken to over plain HTTP, for tests (repeatable)",
    parse: repeated,
    default: [],
  },
} satisfies FlagTable<RegistryFlags>;

/**
 * Options of `syncworker serve`, as a user gives them (flags or code); an absent one takes its default from
 * {@link SERVE_FLAGS}.
 */
export interface ServeOptions extends RegistryFlags {
  /** gRPC address `HOST:PORT`; port 0 picks a free port. */
  listen?: string;
  /** HTTP address for /healthz, /readyz and debug endpoints; empty disables it. */
  adminListen?: string;
  /** HTTP address serving Prometheus `/metrics` alone (port 0 picks a free port); empty disables it. */
  metricsListen?: string;
  /** A kubeconfig to drive a real cluster; without it the embedded cluster is the target. */
  kubeconfig?: string;
  /** Minimum time between reconcile passes, e.g. "3m" or "500ms"; default: random in [2m, 4m) as upstream. */
  reconcileInterval?: string;
  /** How long simulated operators of the embedded cluster take to report, e.g. "300ms". */
  operatorDelay?: string;
  /** Parallelism of an update; install and reconcile choose their own, as upstream. */
  maxWorkers?: number;
  /** Exclusion id: manifests annotated `exclude.release.openshift.io/<id>=true` are skipped. */
  exclude?: string;
  /** Cluster profile; manifests need `include.release.openshift.io/<profile>=true`. */
  clusterProfile?: string;
  /**
   * The cluster's feature set (tech preview is `TechPreviewNoUpgrade`): manifests
   * annotated `release.openshift.io/feature-set` must list it.
   */
  featureSet?: string;
  /**
   * Capabilities known when loading a payload (every capability this build knows unless set). Manifests
   * naming another capability are dropped at load time, as the CVO does; list a newer release's names here
   * to keep them.
   */
  knownCapabilities?: readonly string[];
  /** Manifest retries: steps of the backoff (1 = a single attempt). */
  backoffSteps?: number;
  /** Embedded cluster: the directory of the state file (default `$SYNCWORKER_STATE_DIR`, else under the user's state directory). */
  stateDir?: string;
  /** Real cluster: the namespace of the state object and the Lease (default: the pod's, else openshift-cluster-version). */
  namespace?: string;
  /** Real cluster: elect one leader among replicas with a Lease; only the leader applies. */
  leaderElect?: boolean;
  /** Real cluster: a fixed client rate limit (requests per second); default none, the client adapts to 429s. */
  kubeQps?: number;
  /** Real cluster: requests above `kubeQps` allowed at once (default 2 × qps). */
  kubeBurst?: number;
  /** Real cluster: the timeout of one request to the API server, e.g. "60s". */
  kubeTimeout?: string;
  /** Server TLS: the certificate chain (PEM) the gRPC server presents; with `tlsKey`. */
  tlsCert?: string;
  /** Server TLS: the private key (PEM) of `tlsCert`. */
  tlsKey?: string;
  /** mTLS: CA bundle (PEM); every SyncWorker call needs a client certificate signed by it. Needs `tlsCert`. */
  clientCa?: string;
  /** Static bearer tokens, one `token,user,role` line each (role `reader` or `writer`); implies `authn: "static"`. */
  tokenFile?: string;
  /**
   * How bearer tokens are checked: `none`, `static` (`tokenFile`) or `kube` (TokenReview and SubjectAccessReview
   * on the `kubeconfig` cluster). Default: `static` with a token file, else `none`.
   */
  authn?: string;
  /** Listen beyond loopback although nothing authenticates callers. */
  insecure?: boolean;
  /**
   * Directories a payload image must resolve under (symbolic links followed). Required when `listen` is not a
   * loopback address; none on loopback: any directory, for development.
   */
  payloadRoot?: readonly string[];
  /** How long one payload load may take, e.g. "2m"; a load still running then fails. */
  payloadLoadTimeout?: string;
  /**
   * Bytes YAML aliases (and merge keys, and manifest template substitutions) may add when one payload is expanded,
   * e.g. "16Mi": a few bytes of alias can repeat a large value, and a payload beyond this is refused
   * naming the file.
   */
  payloadMaxAliasBytes?: string;
  /** Nesting of mappings and sequences one payload document may have; deeper is refused naming the file. */
  payloadMaxDepth?: number;
  /**
   * Where release images pulled from registries are extracted, by manifest digest (default: `$SYNCWORKER_PAYLOAD_CACHE`,
   * else `payloads` under the user's cache directory, `$XDG_CACHE_HOME/syncworker` or `~/.cache/syncworker`).
   */
  payloadCache?: string;
  /** Disk the payload cache may use, e.g. "1Gi"; least recently used entries are removed beyond it. */
  payloadCacheMax?: string;
  /** Bytes of all payload files one image may extract to, e.g. "256Mi". */
  payloadMaxBytes?: string;
  /** Payload entries one image may extract. */
  payloadMaxFiles?: number;
  /** Bytes of a registry's manifest, index, token or error body read, e.g. "4Mi". */
  registryMaxResponse?: string;
  /** A layer declared larger, e.g. "1Gi", is refused before it is downloaded. */
  registryMaxLayer?: string;
  /** How long one pull may take, e.g. "10m". */
  registryPullTimeout?: string;
  /** How long a registry may send nothing during a pull, e.g. "30s". */
  registryStallTimeout?: string;
  /**
   * Directory of OpenPGP public keys (armored or binary) release images must be signed with. Each file is a
   * keyring that must have signed, as each `verifier-public-key-*` of the CVO's ConfigMap. None: nothing is verified.
   */
  verificationKeys?: string;
  /** Signature stores in the CVO's layout (`http(s)://` or `file://` URLs), read before the registry; need `verificationKeys`. */
  signatureStore?: readonly string[];
  /** Serve the admin endpoint's /debug routes (the embedded cluster's objects). */
  debugEndpoints?: boolean;
  /** Concurrent StatusWatch streams one client host may hold. */
  maxWatchesPerClient?: number;
  /** Default blast-radius limit: the most objects one update may delete (default: unlimited). */
  maxDeletions?: number;
  /** Default blast-radius limit: the most objects one update may change, as a percentage of its payload (default: unlimited). */
  maxChangedPercent?: number;
  /** Default deadline: no manifest applied for this long marks an update Failing (default: none). */
  progressDeadline?: string;
  /** Default deadline: an update not complete within this long is marked Failing (default: none). */
  totalDeadline?: string;
  /** When updates may run: `allow|deny CRON for DURATION in TIME_ZONE` (repeatable; default: any time). */
  maintenanceWindow?: string[];
  /** Reconcile passes of an applied release also wait for a maintenance window (default: they go on). */
  maintenanceWindowReconcile?: boolean;
  /** A YAML file of CEL health rules per API group or kind (default: none). */
  healthRules?: string;
  /** HTTP(S) URLs that receive a CloudEvent for each step of an update (repeatable; default: none). */
  eventSink?: string[];
  /** `binary` (default) or `structured` CloudEvents. */
  eventMode?: string;
  /** The events' `source`: which syncworker (default: `/syncworker/` and the host name). */
  eventSource?: string;
  /** CA certificates (PEM) trusted for https event sinks besides the system's. */
  eventSinkCa?: string;
  /** A file holding a bearer token sent to every event sink. */
  eventSinkTokenFile?: string;
}

/** Shared by `serve` and `render`, which read a payload alike. */
const PAYLOAD_FLAGS = {
  exclude: { flags: "--exclude <id>", help: "skip manifests annotated exclude.release.openshift.io/<id>=true", default: "" },
  featureSet: {
    flags: "--feature-set <set>",
    help: "cluster feature set: Default, TechPreviewNoUpgrade, DevPreviewNoUpgrade or CustomNoUpgrade",
    default: DEFAULT_FEATURE_SET,
  },
  payloadCache: {
    flags: "--payload-cache <dir>",
    help: "where release images pulled from registries are extracted (default: $SYNCWORKER_PAYLOAD_CACHE, else $XDG_CACHE_HOME/syncworker/payloads)",
  },
} satisfies FlagTable<Pick<ServeOptions, "exclude" | "featureSet" | "payloadCache">>;

/** `serve` and `render` spell the cluster profile flag differently; it means the same. */
function clusterProfileFlag(flags: string): Flag<string> & { readonly default: string } {
  return { flags, help: "cluster profile", default: DEFAULT_CLUSTER_PROFILE };
}

/** The flags of `serve` besides the registry ones, in --help order. */
export const SERVE_FLAGS = {
  listen: { flags: "--listen <host:port>", help: "gRPC address; port 0 picks a free port", default: "127.0.0.1:50051" },
  adminListen: { flags: "--admin-listen <host:port>", help: "HTTP address for the live update page (/), /healthz, /readyz, /metrics and /debug" },
  metricsListen: { flags: "--metrics-listen <host:port>", help: "HTTP address for Prometheus /metrics; port 0 picks a free port" },
  kubeconfig: { flags: "--kubeconfig <path>", help: "drive the cluster of this kubeconfig" },
  reconcileInterval: { flags: "--reconcile-interval <duration>", help: "minimum time between reconcile passes (default: random in [2m, 4m))" },
  operatorDelay: { flags: "--operator-delay <duration>", help: "embedded cluster: time simulated operators take to report", default: "500ms" },
  maxWorkers: { flags: "--max-workers <n>", help: "parallelism of an update", parse: integer, default: 16 },
  backoffSteps: { flags: "--backoff-steps <n>", help: "attempts per manifest before it fails", parse: integer, default: 3 },
  exclude: PAYLOAD_FLAGS.exclude,
  clusterProfile: clusterProfileFlag("--cluster-profile <name>"),
  featureSet: PAYLOAD_FLAGS.featureSet,
  knownCapabilities: {
    flags: "--known-capabilities <a,b,...>",
    help: "capabilities known at payload load",
    parse: list,
    default: KNOWN_CAPABILITIES,
    shownDefault: "every capability this build knows",
  },
  stateDir: {
    flags: "--state-dir <dir>",
    help: "embedded cluster: where the state survives restarts (default: $SYNCWORKER_STATE_DIR, else $XDG_STATE_HOME/syncworker or ~/.local/state/syncworker)",
  },
  namespace: {
    flags: "--namespace <name>",
    help: "real cluster: namespace of the state ConfigMap and the Lease (default: the pod's own, else openshift-cluster-version)",
  },
  leaderElect: { flags: "--leader-elect", help: "real cluster: run as one of several replicas; only the Lease holder applies", default: false },
  kubeQps: {
    flags: "--kube-qps <n>",
    help: "real cluster: a fixed client rate limit in requests per second (default: none, adapt to the server's 429s)",
    parse: Number,
  },
  kubeBurst: { flags: "--kube-burst <n>", help: "real cluster: requests above --kube-qps allowed at once (default 2 x qps)", parse: integer },
  kubeTimeout: {
    flags: "--kube-timeout <duration>",
    help: "real cluster: timeout of one request to the API server",
    default: formatDuration(KUBE_CLIENT_DEFAULTS.timeoutMs),
  },
  tlsCert: { flags: "--tls-cert <file>", help: "serve TLS with this certificate chain (PEM); with --tls-key" },
  tlsKey: { flags: "--tls-key <file>", help: "private key (PEM) of --tls-cert" },
  clientCa: { flags: "--client-ca <file>", help: "mTLS: every SyncWorker call needs a client certificate signed by this CA (PEM)" },
  tokenFile: { flags: "--token-file <file>", help: "bearer tokens, one token,user,role line each (role reader or writer)" },
  authn: {
    flags: "--authn <mode>",
    help: "how bearer tokens are checked: none, static (--token-file) or kube (TokenReview and SubjectAccessReview on the --kubeconfig cluster)",
  },
  insecure: { flags: "--insecure", help: "listen beyond loopback although nothing authenticates callers", default: false },
  payloadRoot: {
    flags: "--payload-root <dir>",
    help: "a directory payload images must resolve under (repeatable; required beyond loopback)",
    parse: repeated,
    default: [],
  },
  payloadLoadTimeout: { flags: "--payload-load-timeout <duration>", help: "how long one payload load may take", default: "2m" },
  payloadMaxAliasBytes: {
    flags: "--payload-max-alias-bytes <size>",
    help: "bytes YAML aliases and manifest template substitutions may add to one payload (e.g. 512Ki, 16Mi)",
    default: formatByteSize(DEFAULT_PAYLOAD_LIMITS.maxAliasBytes),
  },
  payloadMaxDepth: {
    flags: "--payload-max-depth <n>",
    help: "nesting of mappings and sequences one payload document may have",
    parse: integer,
    default: DEFAULT_PAYLOAD_LIMITS.maxDepth,
  },
  payloadCache: PAYLOAD_FLAGS.payloadCache,
  payloadCacheMax: {
    flags: "--payload-cache-max <size>",
    help: "disk the payload cache may use; least recently used entries are removed beyond it",
    default: formatByteSize(DEFAULT_PULL_LIMITS.maxCacheBytes),
  },
  payloadMaxBytes: {
    flags: "--payload-max-bytes <size>",
    help: "bytes of all payload files one image may extract to",
    default: formatByteSize(DEFAULT_PULL_LIMITS.maxPayloadBytes),
  },
  payloadMaxFiles: {
    flags: "--payload-max-files <n>",
    help: "payload entries one image may extract",
    parse: integer,
    default: DEFAULT_PULL_LIMITS.maxPayloadFiles,
  },
  registryMaxResponse: {
    flags: "--registry-max-response <size>",
    help: "bytes of a registry manifest, index, token or error body read",
    default: formatByteSize(DEFAULT_PULL_LIMITS.maxResponseBytes),
  },
  registryMaxLayer: {
    flags: "--registry-max-layer <size>",
    help: "a layer declared larger is refused before it is downloaded",
    default: formatByteSize(DEFAULT_PULL_LIMITS.maxLayerBytes),
  },
  registryPullTimeout: {
    flags: "--registry-pull-timeout <duration>",
    help: "how long one pull may take",
    default: formatDuration(DEFAULT_PULL_LIMITS.pullTimeoutMs),
  },
  registryStallTimeout: {
    flags: "--registry-stall-timeout <duration>",
    help: "how long a registry may send nothing during a pull",
    default: formatDuration(DEFAULT_PULL_LIMITS.stallTimeoutMs),
  },
  verificationKeys: {
    flags: "--verification-keys <dir>",
    help: "OpenPGP public keys release images must be signed with, one keyring per file, each must sign (default: no verification)",
  },
  signatureStore: {
    flags: "--signature-store <url>",
    help: "a signature store in the CVO's layout, http(s):// or file:// (repeatable; read before the registry's sha256-<hex>.sig tag)",
    parse: repeated,
    default: [],
  },
  debugEndpoints: { flags: "--debug-endpoints", help: "serve the admin endpoint's /debug routes (the embedded cluster's objects)", default: false },
  maxWatchesPerClient: { flags: "--max-watches-per-client <n>", help: "concurrent StatusWatch streams one client host may hold", parse: integer, default: 100 },
  maxDeletions: {
    flags: "--max-deletions <n>",
    help: "default blast-radius limit: the most objects one update may delete (default: unlimited)",
    parse: integer,
  },
  maxChangedPercent: {
    flags: "--max-changed-percent <p>",
    help: "default blast-radius limit: the most objects one update may change, in % of its payload (default: unlimited)",
    parse: Number,
  },
  progressDeadline: {
    flags: "--progress-deadline <duration>",
    help: "default for updates that set none: no manifest applied for this long marks the update Failing (ProgressDeadlineExceeded); time paused does not count (default: none)",
  },
  maintenanceWindow: {
    flags: "--maintenance-window <window>",
    help: 'when updates may run, "allow|deny MIN HOUR DOM MON DOW for DURATION in TIME_ZONE", e.g. "allow 0 2 * * SAT for 4h in Europe/Berlin", or an RFC 5545 RRULE for the cron fields ("allow RRULE:FREQ=WEEKLY;BYDAY=SA;BYHOUR=2 for 4h in Europe/Berlin"); deny windows are change freezes (repeatable; default: any time)',
    parse: repeated,
    default: [],
  },
  healthRules: {
    flags: "--health-rules <file>",
    help: "CEL health rules per API group or kind (current, inProgress, failed) over the live object, for kinds without a built-in readiness check or instead of it (default: none)",
  },
  eventSink: {
    flags: "--event-sink <url>",
    help: "an http(s) URL that receives a CloudEvent for each step of an update: accepted, refused, started, a component blocked or slow, paused, resumed, failed, completed, leadership (repeatable; default: none)",
    parse: repeated,
    default: [],
  },
  eventMode: { flags: "--event-mode <mode>", help: "binary (attributes in ce- headers) or structured (the whole event as JSON)", default: "binary" },
  eventSource: { flags: "--event-source <uri>", help: "the events' source attribute: which syncworker (default: /syncworker/HOSTNAME)" },
  eventSinkCa: { flags: "--event-sink-ca <file>", help: "CA certificates (PEM) trusted for https event sinks besides the system's" },
  eventSinkTokenFile: { flags: "--event-sink-token-file <file>", help: "a file holding a bearer token sent to every event sink" },
  maintenanceWindowReconcile: {
    flags: "--maintenance-window-reconcile",
    help: "reconcile passes of an applied release wait for a maintenance window too (default: they go on outside windows)",
    default: false,
  },
  totalDeadline: {
    flags: "--total-deadline <duration>",
    help: "default for updates that set none: an update not completely applied within this long is marked Failing (TotalDeadlineExceeded) (default: none)",
  },
} satisfies FlagTable<Omit<ServeOptions, keyof RegistryFlags>>;

/** Flags of `syncworker render`, as a user gives them; an absent one takes its default from {@link RENDER_FLAGS}. */
export interface RenderOptions extends RegistryFlags {
  /** Payload directory, relative or absolute, or a `file://` URL; or a release image reference, pulled first. */
  readonly image: string;
  readonly exclude?: string;
  readonly profile?: string;
  readonly featureSet?: string;
  /** Comma-separated enabled capabilities; absent: every known capability (the CVO's load-time view). */
  readonly capabilities?: string;
  /** Pull spec rendered into `manifests/` templates as `.ReleaseImage`; default: the image argument. */
  readonly releaseImage?: string;
  /** Also explain every excluded manifest on stderr. */
  readonly showExcluded?: boolean;
  /** Where a pulled image is extracted (default: serve's payload cache). */
  readonly payloadCache?: string;
  /** `index`: one line per manifest; `yaml`: a YAML stream of the manifests; `json`: a `v1/List` of them. */
  readonly output?: RenderFormat;
}

/** What `render` prints: the `index` of the manifests, or the manifests as a data document. */
export type RenderFormat = "index" | "yaml" | "json";

/** The flags of `render` besides the registry ones, in --help order. */
export const RENDER_FLAGS = {
  image: { flags: "--image <dir|ref>", help: "payload directory (or file:// URL), or a release image reference to pull", required: true },
  exclude: PAYLOAD_FLAGS.exclude,
  profile: clusterProfileFlag("--profile <name>"),
  featureSet: PAYLOAD_FLAGS.featureSet,
  capabilities: { flags: "--capabilities <a,b,...>", help: 'enabled capabilities (default: every known capability; "" for none)' },
  releaseImage: { flags: "--release-image <pullspec>", help: "the .ReleaseImage rendered into manifests/ (default: --image)" },
  showExcluded: { flags: "--show-excluded", help: "explain every excluded manifest on stderr", default: false },
  payloadCache: PAYLOAD_FLAGS.payloadCache,
  output: {
    flags: "-o, --output <format>",
    help: "index: a line per manifest; yaml or json: the manifests themselves",
    choices: ["index", "yaml", "json"],
    default: "index",
  },
} satisfies FlagTable<Omit<RenderOptions, keyof RegistryFlags>>;

/** The flags of `syncworker fleet`, the controller of staged rollouts on a hub cluster. */
export interface FleetFlags extends Pick<ServeOptions, "tlsCert" | "tlsKey" | "clientCa" | "tokenFile" | "authn" | "insecure"> {
  kubeconfig?: string;
  namespace?: string;
  listen?: string;
  adminListen?: string;
  leaderElect?: boolean;
  leaseName?: string;
  workers?: number;
  resync?: string;
  memberTimeout?: string;
}

export const FLEET_FLAGS = {
  kubeconfig: { flags: "--kubeconfig <path>", help: "the hub cluster's kubeconfig, or in-cluster", default: "in-cluster" },
  namespace: {
    flags: "--namespace <name>",
    help: "namespace of the MemberClusters, ReleaseRollouts, their Secrets and the Lease (default: $POD_NAMESPACE, else default)",
  },
  listen: { flags: "--listen <host:port>", help: "gRPC address of FleetWatch; port 0 picks a free port", default: "127.0.0.1:50052" },
  adminListen: { flags: "--admin-listen <host:port>", help: "HTTP address for /healthz, /readyz and /metrics" },
  leaderElect: { flags: "--leader-elect", help: "run as one of several replicas; only the Lease holder drives members", default: false },
  leaseName: { flags: "--lease-name <name>", help: "the Lease replicas elect a leader with", default: "syncworker-fleet-leader" },
  workers: { flags: "--workers <n>", help: "rollouts reconciled at once", parse: integer, default: 4 },
  resync: { flags: "--resync <duration>", help: "every rollout is planned again at least this often", default: "30s" },
  memberTimeout: { flags: "--member-timeout <duration>", help: "deadline of a call to a member's syncworker", default: "30s" },
  // FleetWatch's callers, as serve's: a token's user needs verb watch on releaserollouts.fleet.syncworker.io with --authn kube.
  tlsCert: SERVE_FLAGS.tlsCert,
  tlsKey: SERVE_FLAGS.tlsKey,
  clientCa: { ...SERVE_FLAGS.clientCa, help: "mTLS: every FleetWatch call needs a client certificate signed by this CA (PEM)" },
  tokenFile: SERVE_FLAGS.tokenFile,
  authn: {
    ...SERVE_FLAGS.authn,
    help: "how bearer tokens are checked: none, static (--token-file) or kube (TokenReview, and SubjectAccessReview for watch on releaserollouts)",
  },
  insecure: SERVE_FLAGS.insecure,
} satisfies FlagTable<FleetFlags>;
