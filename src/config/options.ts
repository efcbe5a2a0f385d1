import { readFileSync, realpathSync, statSync } from "node:fs";
import { isIP } from "node:net";
import { resolve } from "node:path";
import { DEFAULT_FEATURE_SET, DEFAULT_PAYLOAD_LIMITS, defaultAuthFile, defaultPayloadCache, KNOWN_FEATURE_SETS, type PayloadLimits } from "../payload/index.js";
import { KNOWN_CAPABILITIES, unknownCapabilities } from "../policy/index.js";
import { listText, redactCredentials } from "../status/text.js";
import { DEFAULT_PULL_LIMITS, type PullLimits } from "../payload/registry/limits.js";
import type { Backoff } from "../graph/index.js";
import { formatHostPort, parseHostPort, type HostPort } from "./address.js";
import { KUBE_CLIENT_DEFAULTS, TUNING } from "./tuning.js";
import { ValueError } from "./value-error.js";

/** Options of `syncworker serve`, as a user gives them (flags or code). */
export interface ServeOptions {
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
   * The cluster's feature set (default `Default`; tech preview is `TechPreviewNoUpgrade`): manifests
   * annotated `release.openshift.io/feature-set` must list it.
   */
  featureSet?: string;
  /**
   * Capabilities known when loading a payload (default: every capability this build knows). Manifests
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
  /** How long one payload load may take, e.g. "2m" (the default); a load still running then fails. */
  payloadLoadTimeout?: string;
  /**
   * Bytes YAML aliases (and merge keys, and manifest template substitutions) may add when one payload is expanded,
   * e.g. "16Mi" (the default): a few bytes of alias can repeat a large value, and a payload beyond this is refused
   * naming the file.
   */
  payloadMaxAliasBytes?: string;
  /** Nesting of mappings and sequences one payload document may have (default 512); deeper is refused naming the file. */
  payloadMaxDepth?: number;
  /**
   * Where release images pulled from registries are extracted, by manifest digest (default: `$SYNCWORKER_PAYLOAD_CACHE`,
   * else `payloads` under the user's cache directory, `$XDG_CACHE_HOME/syncworker` or `~/.cache/syncworker`).
   */
  payloadCache?: string;
  /** Disk the payload cache may use, e.g. "1Gi" (the default); least recently used entries are removed beyond it. */
  payloadCacheMax?: string;
  /** Bytes of all payload files one image may extract to, e.g. "256Mi" (the default). */
  payloadMaxBytes?: string;
  /** Payload entries one image may extract (default 20000). */
  payloadMaxFiles?: number;
  /** Bytes of a registry's manifest, index, token or error body read, e.g. "4Mi" (the default). */
  registryMaxResponse?: string;
  /** A layer declared larger, e.g. "1Gi" (the default), is refused before it is downloaded. */
  registryMaxLayer?: string;
  /** How long one pull may take, e.g. "10m" (the default). */
  registryPullTimeout?: string;
  /** How long a registry may send nothing during a pull, e.g. "30s" (the default). */
  registryStallTimeout?: string;
  /**
   * Registry credentials: a Docker config.json (an OpenShift pull secret). Default: `$REGISTRY_AUTH_FILE`, else
   * `$DOCKER_CONFIG/config.json`, else `~/.docker/config.json`, when it exists.
   */
  pullSecret?: string;
  /** CA certificates (PEM) trusted for registries besides the system's. */
  registryCa?: string;
  /** Registries (`host[:port]`, loopback only) spoken to over plain HTTP: for local tests. */
  insecureRegistry?: readonly string[];
  /**
   * Directory of OpenPGP public keys (armored or binary) release images must be signed with. Each file is a
   * keyring that must have signed, as each `verifier-public-key-*` of the CVO's ConfigMap. None: nothing is verified.
   */
  verificationKeys?: string;
  /** Signature stores in the CVO's layout (`http(s)://` or `file://` URLs), read before the registry; need `verificationKeys`. */
  signatureStore?: readonly string[];
  /** Serve the admin endpoint's /debug routes (the embedded cluster's objects); off by default. */
  debugEndpoints?: boolean;
  /** Concurrent StatusWatch streams one client host may hold (default 100). */
  maxWatchesPerClient?: number;
  /** Default blast-radius limit: the most objects one update may delete (default: unlimited). */
  maxDeletions?: number;
  /** Default blast-radius limit: the most objects one update may change, as a percentage of its payload (default: unlimited). */
  maxChangedPercent?: number;
}

export interface CompiledServeOptions {
  readonly listen: HostPort;
  /** Undefined: not served. */
  readonly adminListen: HostPort | undefined;
  readonly metricsListen: HostPort | undefined;
  readonly kubeconfig: string;
  readonly reconcileIntervalMs: number;
  readonly operatorDelayMs: number;
  readonly maxWorkers: number;
  readonly exclude: string;
  readonly clusterProfile: string;
  readonly featureSet: string;
  readonly knownCapabilities: readonly string[];
  /** Each manifest's retries; `--backoff-steps` sets the steps, the rest is {@link TUNING}'s. */
  readonly backoff: Backoff;
  /** The retries of an install, used when `backoff` allows more than one step. */
  readonly installBackoff: Backoff;
  /** Least time between two snapshots that only advance progress. */
  readonly progressIntervalMs: number;
  /** How long an Update waits for its image's tag to resolve. */
  readonly admitTimeoutMs: number;
  /** How long open calls get to end when the service stops. */
  readonly shutdownGraceMs: number;
  readonly stateDir: string;
  /** "" means the default, resolved where the Kubernetes client lives. */
  readonly namespace: string;
  readonly leaderElect: boolean;
  /** Client behaviour towards the API server: the flags', else {@link KUBE_CLIENT_DEFAULTS}; no `qps`: adaptive. */
  readonly kube: {
    readonly qps?: number;
    readonly burst?: number;
    readonly timeoutMs: number;
    readonly maxRetries: number;
    readonly retryBaseMs: number;
    readonly userAgent: string;
  };
  readonly security: SecurityOptions;
  /** Resolved; empty: any directory. */
  readonly payloadRoots: readonly string[];
  readonly payloadLoadTimeoutMs: number;
  readonly payloadLimits: PayloadLimits;
  readonly registry: RegistryOptions;
  readonly verification: VerificationOptions;
  readonly debugEndpoints: boolean;
  readonly maxWatchesPerClient: number;
  /** Blast-radius limits of updates that set none; absent fields are unlimited. */
  readonly limits: { readonly maxDeletions?: number; readonly maxChangedPercent?: number };
}

/** How release images are pulled. */
export interface RegistryOptions {
  readonly cacheDir: string;
  /** Docker config.json with credentials; "" for none. */
  readonly authFile: string;
  /** True for the default location, whose absence means anonymous pulls; an explicit `--pull-secret` must exist. */
  readonly authFileOptional: boolean;
  /** Extra trusted CAs (PEM text); "" for the system's alone. */
  readonly caPem: string;
  readonly insecureHosts: readonly string[];
  readonly limits: PullLimits;
}

/** How release-image signatures are checked. */
export interface VerificationOptions {
  /** Resolved key directory; "" turns verification off. */
  readonly verificationKeys: string;
  readonly signatureStores: readonly URL[];
}

/** Who may call the gRPC API and over what; "" means not set. */
export interface SecurityOptions {
  readonly tlsCert: string;
  readonly tlsKey: string;
  readonly clientCa: string;
  readonly authn: "none" | "static" | "kube";
  readonly tokenFile: string;
}

const UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

const BYTE_UNITS: Record<string, number> = { "": 1, Ki: 1024, Mi: 1024 ** 2, Gi: 1024 ** 3 };

/** Parses positive byte sizes such as "65536", "512Ki", "16Mi", "1Gi". */
export function parseByteSize(option: string, text: string): number {
  const match = /^(\d+)(Ki|Mi|Gi)?$/.exec(text.trim());
  if (!match?.[1]) throw new ValueError(option, `"${text}" is not a size like 65536, 512Ki, 16Mi or 1Gi`);
  return positiveInteger(option, Number(match[1]) * (BYTE_UNITS[match[2] ?? ""] ?? 1));
}

/** Parses durations such as "250ms", "5s", "2m", "1.5h". */
export function parseDuration(option: string, text: string): number {
  const match = /^(\d+(?:\.\d+)?)(ms|s|m|h)$/.exec(text.trim());
  if (!match?.[1] || !match[2]) throw new ValueError(option, `"${text}" is not a duration like 500ms, 5s or 2m`);
  return Number(match[1]) * (UNITS[match[2]] ?? 1);
}

/** The pull bounds of `serve`'s flags; an absent flag takes {@link DEFAULT_PULL_LIMITS}'. */
function compilePullLimits(options: ServeOptions): PullLimits {
  const size = (option: string, text: string | undefined, fallback: number): number => (text === undefined ? fallback : parseByteSize(option, text));
  const duration = (option: string, text: string | undefined, fallback: number): number =>
    text === undefined ? fallback : positiveNumber(option, parseDuration(option, text));
  const d = DEFAULT_PULL_LIMITS;
  return Object.freeze({
    maxResponseBytes: size("registry-max-response", options.registryMaxResponse, d.maxResponseBytes),
    maxLayerBytes: size("registry-max-layer", options.registryMaxLayer, d.maxLayerBytes),
    maxPayloadBytes: size("payload-max-bytes", options.payloadMaxBytes, d.maxPayloadBytes),
    maxPayloadFiles: positiveInteger("payload-max-files", options.payloadMaxFiles ?? d.maxPayloadFiles),
    maxCacheBytes: size("payload-cache-max", options.payloadCacheMax, d.maxCacheBytes),
    pullTimeoutMs: duration("registry-pull-timeout", options.registryPullTimeout, d.pullTimeoutMs),
    stallTimeoutMs: duration("registry-stall-timeout", options.registryStallTimeout, d.stallTimeoutMs),
  });
}

function positiveNumber(option: string, value: number): number {
  if (!(Number.isFinite(value) && value > 0)) throw new ValueError(option, `must be a positive number, got ${value}`);
  return value;
}

function positiveInteger(option: string, value: number): number {
  if (!Number.isInteger(value) || value < 1) throw new ValueError(option, `must be a positive integer, got ${value}`);
  return value;
}

/** `--max-deletions` and `--max-changed-percent`, checked; an absent one is unlimited. */
function blastRadiusLimits({ maxDeletions, maxChangedPercent }: ServeOptions): CompiledServeOptions["limits"] {
  if (maxDeletions !== undefined && !(Number.isInteger(maxDeletions) && maxDeletions >= 0)) {
    throw new ValueError("max-deletions", `must be a non-negative integer, got ${maxDeletions}`);
  }
  if (maxChangedPercent !== undefined && !(maxChangedPercent >= 0 && maxChangedPercent <= 100)) {
    throw new ValueError("max-changed-percent", `must be a percentage from 0 to 100, got ${maxChangedPercent}`);
  }
  return Object.freeze({ ...(maxDeletions === undefined ? {} : { maxDeletions }), ...(maxChangedPercent === undefined ? {} : { maxChangedPercent }) });
}

/**
 * The environment variables that set the writable paths when their flags are absent: a pod names its volumes
 * there once (deploy/deployment.yaml, the Containerfile) instead of in every command line.
 */
export const PATH_ENV = { stateDir: "SYNCWORKER_STATE_DIR", payloadCache: "SYNCWORKER_PAYLOAD_CACHE" } as const;

/** `--payload-cache`, else `$SYNCWORKER_PAYLOAD_CACHE`, else the user's cache directory; for `serve` and the commands that pull. */
export function payloadCacheDir(flag: string | undefined, env: NodeJS.ProcessEnv = process.env): string {
  return resolve(flag ?? (env[PATH_ENV.payloadCache] || defaultPayloadCache(env)));
}

/** Validates a feature set name ("" and `Default` both mean the default set). */
export function featureSetOption(value: string): string {
  if (value !== "" && !KNOWN_FEATURE_SETS.includes(value)) {
    throw new ValueError("feature-set", `"${value}" is not a feature set; use one of ${KNOWN_FEATURE_SETS.join(", ")}`);
  }
  return value;
}

/** Capability names as annotations spell them: `+` separates names there, so it cannot be part of one. */
export function capabilityNames(option: string, names: readonly string[]): string[] {
  for (const name of names) {
    if (!/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(name)) throw new ValueError(option, `"${name}" is not a capability name`);
  }
  return [...new Set(names)].sort();
}

/** `--known-capabilities`: only names this release knows; one it does not know could never be enabled or shown. */
function knownCapabilitiesOption(names: readonly string[]): string[] {
  const checked = capabilityNames("known-capabilities", names);
  const unknown = unknownCapabilities(checked);
  if (unknown.length > 0) throw new ValueError("known-capabilities", `${listText(unknown.map((name) => `"${name}"`))}: not known to this release (it knows ${KNOWN_CAPABILITIES.join(", ")})`);
  return checked;
}

/** `localhost`, 127.0.0.0/8 or ::1 (a bare host, as parseHostPort gives it): only processes on this host can connect. */
export function isLoopbackHost(host: string): boolean {
  if (host === "localhost") return true;
  if (isIP(host) === 4) return host.startsWith("127.");
  return isIP(host) === 6 && /^(0*:)*:?0*1$/.test(host);
}

/**
 * TLS and authentication options, checked together. Beyond loopback something must tell callers apart (a client
 * certificate or a bearer token): TLS alone encrypts but lets anyone call Update.
 */
function compileSecurity(options: ServeOptions, listen: HostPort, kubeconfig: string): SecurityOptions {
  const { tlsCert = "", tlsKey = "", clientCa = "", tokenFile = "" } = options;
  if (Boolean(tlsCert) !== Boolean(tlsKey)) throw new ValueError(tlsCert ? "tls-key" : "tls-cert", "--tls-cert and --tls-key go together");
  if (clientCa && !tlsCert) throw new ValueError("client-ca", "needs --tls-cert and --tls-key: client certificates are only checked over TLS");
  const authn = options.authn ?? (tokenFile ? "static" : "none");
  if (authn !== "none" && authn !== "static" && authn !== "kube") throw new ValueError("authn", `"${authn}" is not one of none, static, kube`);
  if (authn === "static" && !tokenFile) throw new ValueError("authn", "static needs --token-file");
  if (authn !== "static" && tokenFile) throw new ValueError("token-file", `is for --authn static, not ${authn}`);
  if (authn === "kube" && !kubeconfig) throw new ValueError("authn", "kube needs --kubeconfig: tokens are reviewed by that cluster");
  if (!isLoopbackHost(listen.host) && !clientCa && authn === "none" && !options.insecure) {
    throw new ValueError(
      "listen",
      `${formatHostPort(listen)} is not a loopback address and nothing authenticates callers, so anyone who can reach it could call Update: ` +
        "give --client-ca (with --tls-cert and --tls-key), --token-file or --authn kube, or --insecure to serve it anyway",
    );
  }
  return Object.freeze({ tlsCert, tlsKey, clientCa, authn, tokenFile });
}

/**
 * The payload roots, resolved. Beyond loopback they are required: without them a caller could make the service read
 * any directory of the host.
 */
function payloadRoots(roots: readonly string[], listen: HostPort): readonly string[] {
  if (roots.length === 0 && !isLoopbackHost(listen.host)) {
    throw new ValueError("payload-root", `is required: ${formatHostPort(listen)} is not a loopback address, and without a root an Update could name any directory of this host`);
  }
  return Object.freeze(
    roots.map((root) => {
      let real: string;
      try {
        real = realpathSync(resolve(root));
      } catch (err) {
        throw new ValueError("payload-root", `${root}: ${(err as NodeJS.ErrnoException).code === "ENOENT" ? "no such directory" : String(err)}`);
      }
      if (!statSync(real).isDirectory()) throw new ValueError("payload-root", `${root} is not a directory`);
      return real;
    }),
  );
}

/** How a registry is reached, as the registry flags of `serve` and of the client commands give it. */
export type RegistryAccess = Omit<RegistryOptions, "cacheDir" | "limits">;

/**
 * The one reading of the registry flags (`--pull-secret`, `--registry-ca`, `--insecure-registry`), for `serve` and
 * for the commands that pull or push themselves: a named pull secret and CA must be readable now, and plain HTTP
 * is for loopback registries only.
 */
export function compileRegistryAccess(options: Pick<ServeOptions, "pullSecret" | "registryCa" | "insecureRegistry">, env: NodeJS.ProcessEnv = process.env): RegistryAccess {
  let caPem = "";
  if (options.registryCa) {
    try {
      caPem = readFileSync(options.registryCa, "utf8");
    } catch (err) {
      throw new ValueError("registry-ca", `${options.registryCa}: ${(err as Error).message}`);
    }
    if (!caPem.includes("-----BEGIN CERTIFICATE-----")) throw new ValueError("registry-ca", `${options.registryCa} holds no PEM certificate`);
  }
  if (options.pullSecret !== undefined) {
    let isDirectory: boolean;
    try {
      isDirectory = statSync(options.pullSecret).isDirectory();
    } catch (err) {
      throw new ValueError("pull-secret", `${options.pullSecret}: ${(err as Error).message}`);
    }
    // Read at each pull (a rotated secret takes effect), so a directory would otherwise fail every pull instead.
    if (isDirectory) throw new ValueError("pull-secret", `${options.pullSecret} is a directory, not a Docker config.json file`);
  }
  const insecureHosts = (options.insecureRegistry ?? []).map((host) => {
    const name = /^\[([^\]]+)\](?::\d+)?$/.exec(host)?.[1] ?? host.replace(/:\d+$/, "");
    if (!isLoopbackHost(name)) throw new ValueError("insecure-registry", `${host} is not a loopback registry: plain HTTP is only for local tests`);
    return host;
  });
  return Object.freeze({
    authFile: options.pullSecret ?? defaultAuthFile(env),
    authFileOptional: options.pullSecret === undefined && !env["REGISTRY_AUTH_FILE"],
    caPem,
    insecureHosts: Object.freeze(insecureHosts),
  });
}

/** The key directory must exist now (its keys are read at start-up); a store is an http(s) or file URL and needs keys. */
function compileVerification(options: ServeOptions): VerificationOptions {
  const stores = (options.signatureStore ?? []).map((text) => {
    let url: URL;
    try {
      url = new URL(text);
    } catch {
      throw new ValueError("signature-store", `"${redactCredentials(text)}" is not a URL`);
    }
    if (!["http:", "https:", "file:"].includes(url.protocol)) throw new ValueError("signature-store", `"${redactCredentials(text)}" is not an http, https or file URL`);
    return url;
  });
  const keys = options.verificationKeys ?? "";
  if (keys === "") {
    if (stores.length > 0) throw new ValueError("signature-store", "needs --verification-keys: without keys nothing is verified");
    return Object.freeze({ verificationKeys: "", signatureStores: [] });
  }
  let isDirectory = false;
  try {
    isDirectory = statSync(keys).isDirectory();
  } catch (err) {
    throw new ValueError("verification-keys", `${keys}: ${(err as Error).message}`);
  }
  if (!isDirectory) throw new ValueError("verification-keys", `${keys} is not a directory`);
  return Object.freeze({ verificationKeys: resolve(keys), signatureStores: Object.freeze(stores) });
}

/** A DNS-1123 label, which a namespace name must be. */
function namespaceName(value: string): string {
  if (value !== "" && !/^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/.test(value)) throw new ValueError("namespace", `"${value}" is not a valid namespace name`);
  return value;
}

/**
 * Applies defaults and validates once; everything downstream reads the frozen result.
 * @param defaultStateDir where the state file goes without --state-dir (resolved by the caller from the environment)
 * @param env where the path and registry defaults come from ({@link PATH_ENV}, `REGISTRY_AUTH_FILE`, `DOCKER_CONFIG`, `XDG_CACHE_HOME`)
 */
export function compileServeOptions(options: ServeOptions, random: () => number, defaultStateDir = "", env: NodeJS.ProcessEnv = process.env): Readonly<CompiledServeOptions> {
  const kubeconfig = options.kubeconfig ?? "";
  if (options.leaderElect && !kubeconfig) throw new ValueError("leader-elect", "needs --kubeconfig: the embedded cluster runs in one process and needs no election");
  if (options.stateDir !== undefined && kubeconfig) throw new ValueError("state-dir", "is for the embedded cluster; with --kubeconfig the state is a ConfigMap in --namespace");
  if (options.namespace !== undefined && !kubeconfig) throw new ValueError("namespace", "needs --kubeconfig; the embedded cluster keeps its state in --state-dir");
  if (options.kubeBurst !== undefined && options.kubeQps === undefined) throw new ValueError("kube-burst", "needs --kube-qps: without a fixed rate the client adapts to the server");
  const stateDir = options.stateDir ?? (env[PATH_ENV.stateDir] || defaultStateDir);
  if (!kubeconfig && !stateDir) throw new ValueError("state-dir", "is required: no default state directory could be determined");
  const reconcileIntervalMs =
    options.reconcileInterval === undefined ? 120_000 * (1 + random()) : parseDuration("reconcile-interval", options.reconcileInterval);
  if (reconcileIntervalMs <= 0) throw new ValueError("reconcile-interval", "must be positive");
  const listen = parseHostPort("listen", options.listen ?? "127.0.0.1:50051");
  return Object.freeze({
    listen,
    adminListen: options.adminListen ? parseHostPort("admin-listen", options.adminListen) : undefined,
    metricsListen: options.metricsListen ? parseHostPort("metrics-listen", options.metricsListen) : undefined,
    kubeconfig,
    reconcileIntervalMs,
    operatorDelayMs: parseDuration("operator-delay", options.operatorDelay ?? "500ms"),
    maxWorkers: positiveInteger("max-workers", options.maxWorkers ?? 16),
    exclude: options.exclude ?? "",
    clusterProfile: options.clusterProfile || "self-managed-high-availability",
    featureSet: featureSetOption(options.featureSet ?? DEFAULT_FEATURE_SET),
    knownCapabilities: Object.freeze(knownCapabilitiesOption(options.knownCapabilities ?? KNOWN_CAPABILITIES)),
    backoff: Object.freeze({ ...TUNING.manifestBackoff, steps: positiveInteger("backoff-steps", options.backoffSteps ?? 3) }),
    installBackoff: TUNING.installBackoff,
    progressIntervalMs: TUNING.progressIntervalMs,
    admitTimeoutMs: TUNING.admitTimeoutMs,
    shutdownGraceMs: TUNING.shutdownGraceMs,
    stateDir: kubeconfig ? "" : stateDir,
    namespace: namespaceName(options.namespace ?? ""),
    leaderElect: options.leaderElect ?? false,
    kube: Object.freeze({
      ...KUBE_CLIENT_DEFAULTS,
      ...(options.kubeQps !== undefined ? { qps: positiveNumber("kube-qps", options.kubeQps) } : {}),
      ...(options.kubeBurst !== undefined ? { burst: positiveInteger("kube-burst", options.kubeBurst) } : {}),
      ...(options.kubeTimeout !== undefined ? { timeoutMs: positiveNumber("kube-timeout", parseDuration("kube-timeout", options.kubeTimeout)) } : {}),
    }),
    security: compileSecurity(options, listen, kubeconfig),
    payloadRoots: payloadRoots(options.payloadRoot ?? [], listen),
    payloadLoadTimeoutMs: positiveNumber("payload-load-timeout", parseDuration("payload-load-timeout", options.payloadLoadTimeout ?? "2m")),
    payloadLimits: Object.freeze({
      maxAliasBytes: options.payloadMaxAliasBytes === undefined ? DEFAULT_PAYLOAD_LIMITS.maxAliasBytes : parseByteSize("payload-max-alias-bytes", options.payloadMaxAliasBytes),
      maxDepth: positiveInteger("payload-max-depth", options.payloadMaxDepth ?? DEFAULT_PAYLOAD_LIMITS.maxDepth),
    }),
    registry: Object.freeze({ cacheDir: payloadCacheDir(options.payloadCache, env), ...compileRegistryAccess(options, env), limits: compilePullLimits(options) }),
    verification: compileVerification(options),
    debugEndpoints: options.debugEndpoints ?? false,
    maxWatchesPerClient: positiveInteger("max-watches-per-client", options.maxWatchesPerClient ?? 100),
    limits: blastRadiusLimits(options),
  });
}
