import { readFileSync, realpathSync, statSync } from "node:fs";
import { isIP } from "node:net";
import { hostname } from "node:os";
import { resolve } from "node:path";
import { defaultAuthFile, defaultPayloadCache } from "../retrieval/index.js";
import { redactCredentials } from "../status/text.js";
import type { PullLimits } from "../retrieval/registry/limits.js";
import type { Backoff } from "../graph/index.js";
import { formatHostPort, parseHostPort, type HostPort } from "./address.js";
import { applyDefaults, REGISTRY_FLAGS, SERVE_FLAGS, type RegistryFlags, type ServeOptions, type WithDefaults } from "./flags.js";
import { compileLoadOptions, type CompiledLoadOptions } from "./load-options.js";
import { KUBE_CLIENT_DEFAULTS, TUNING } from "./tuning.js";
import { parseByteSize, parseDuration, positiveInteger, positiveNumber } from "./units.js";
import { ValueError } from "./value-error.js";
import { parseMaintenanceWindow, type MaintenanceWindow } from "../policy/index.js";

export interface CompiledServeOptions {
  readonly listen: HostPort;
  /** Undefined: not served. */
  readonly adminListen: HostPort | undefined;
  readonly metricsListen: HostPort | undefined;
  readonly kubeconfig: string;
  readonly reconcileIntervalMs: number;
  readonly operatorDelayMs: number;
  readonly maxWorkers: number;
  /** How payloads are read, as `render` reads them. */
  readonly load: CompiledLoadOptions;
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
  readonly registry: RegistryOptions;
  readonly verification: VerificationOptions;
  readonly debugEndpoints: boolean;
  readonly maxWatchesPerClient: number;
  /** Blast-radius limits of updates that set none; absent fields are unlimited. */
  readonly limits: { readonly maxDeletions?: number; readonly maxChangedPercent?: number };
  /** Deadlines of updates that set none, in milliseconds; absent fields are none. */
  readonly deadlines: { readonly progressMs?: number; readonly totalMs?: number };
  /** When updates may run; empty: any time. */
  readonly maintenanceWindows: readonly MaintenanceWindow[];
  /** Reconcile passes wait for a window too. */
  readonly reconcileInWindowsOnly: boolean;
  /** `--health-rules`: the file's path and text, compiled at start-up; undefined: none. */
  readonly healthRules?: { readonly file: string; readonly text: string };
  /** `--event-sink` and its options; undefined: no events are sent. */
  readonly events?: EventOptions;
}

/** Where CloudEvents go and how (`--event-*`). */
export interface EventOptions {
  readonly sinks: readonly string[];
  readonly mode: "binary" | "structured";
  readonly source: string;
  readonly ca?: string;
  readonly token?: string;
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

/** The pull bounds of `serve`'s flags. */
function compilePullLimits(o: DefaultedServeOptions): PullLimits {
  const duration = (option: string, text: string): number => positiveNumber(option, parseDuration(option, text));
  return Object.freeze({
    maxResponseBytes: parseByteSize("registry-max-response", o.registryMaxResponse),
    maxLayerBytes: parseByteSize("registry-max-layer", o.registryMaxLayer),
    maxPayloadBytes: parseByteSize("payload-max-bytes", o.payloadMaxBytes),
    maxPayloadFiles: positiveInteger("payload-max-files", o.payloadMaxFiles),
    maxCacheBytes: parseByteSize("payload-cache-max", o.payloadCacheMax),
    pullTimeoutMs: duration("registry-pull-timeout", o.registryPullTimeout),
    stallTimeoutMs: duration("registry-stall-timeout", o.registryStallTimeout),
  });
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
export function compileSecurity(
  options: Pick<ServeOptions, "tlsCert" | "tlsKey" | "clientCa" | "tokenFile" | "authn" | "insecure">,
  listen: HostPort,
  kubeconfig: string,
  exposes = "call Update",
): SecurityOptions {
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
      `${formatHostPort(listen)} is not a loopback address and nothing authenticates callers, so anyone who can reach it could ${exposes}: ` +
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
    throw new ValueError(
      "payload-root",
      `is required: ${formatHostPort(listen)} is not a loopback address, and without a root an Update could name any directory of this host`,
    );
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
export function compileRegistryAccess(flags: RegistryFlags, env: NodeJS.ProcessEnv = process.env): RegistryAccess {
  const options = applyDefaults(REGISTRY_FLAGS, flags);
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
  const insecureHosts = options.insecureRegistry.map((host) => {
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
function compileVerification(options: DefaultedServeOptions): VerificationOptions {
  const stores = options.signatureStore.map((text) => {
    let url: URL;
    try {
      url = new URL(text);
    } catch {
      throw new ValueError("signature-store", `"${redactCredentials(text)}" is not a URL`);
    }
    if (!["http:", "https:", "file:"].includes(url.protocol))
      throw new ValueError("signature-store", `"${redactCredentials(text)}" is not an http, https or file URL`);
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

/** Serve's options with every flag default applied. */
type DefaultedServeOptions = WithDefaults<ServeOptions, typeof SERVE_FLAGS & typeof REGISTRY_FLAGS>;

/**
 * Applies the defaults of {@link SERVE_FLAGS} and validates once; everything downstream reads the frozen result.
 * @param defaultStateDir where the state file goes without --state-dir (resolved by the caller from the environment)
 * @param env where the path and registry defaults come from ({@link PATH_ENV}, `REGISTRY_AUTH_FILE`, `DOCKER_CONFIG`, `XDG_CACHE_HOME`)
 */
export function compileServeOptions(
  options: ServeOptions,
  random: () => number,
  defaultStateDir = "",
  env: NodeJS.ProcessEnv = process.env,
): Readonly<CompiledServeOptions> {
  const o: DefaultedServeOptions = applyDefaults({ ...REGISTRY_FLAGS, ...SERVE_FLAGS }, options);
  const kubeconfig = o.kubeconfig ?? "";
  if (o.leaderElect && !kubeconfig) throw new ValueError("leader-elect", "needs --kubeconfig: the embedded cluster runs in one process and needs no election");
  if (o.stateDir !== undefined && kubeconfig)
    throw new ValueError("state-dir", "is for the embedded cluster; with --kubeconfig the state is a ConfigMap in --namespace");
  if (o.namespace !== undefined && !kubeconfig) throw new ValueError("namespace", "needs --kubeconfig; the embedded cluster keeps its state in --state-dir");
  if (o.kubeBurst !== undefined && o.kubeQps === undefined)
    throw new ValueError("kube-burst", "needs --kube-qps: without a fixed rate the client adapts to the server");
  const stateDir = o.stateDir ?? (env[PATH_ENV.stateDir] || defaultStateDir);
  if (!kubeconfig && !stateDir) throw new ValueError("state-dir", "is required: no default state directory could be determined");
  // Unset, the interval is drawn at random in [2m, 4m), as upstream.
  const reconcileIntervalMs = o.reconcileInterval === undefined ? 120_000 * (1 + random()) : parseDuration("reconcile-interval", o.reconcileInterval);
  if (reconcileIntervalMs <= 0) throw new ValueError("reconcile-interval", "must be positive");
  const listen = parseHostPort("listen", o.listen);
  return Object.freeze({
    listen,
    adminListen: o.adminListen ? parseHostPort("admin-listen", o.adminListen) : undefined,
    metricsListen: o.metricsListen ? parseHostPort("metrics-listen", o.metricsListen) : undefined,
    kubeconfig,
    reconcileIntervalMs,
    operatorDelayMs: parseDuration("operator-delay", o.operatorDelay),
    maxWorkers: positiveInteger("max-workers", o.maxWorkers),
    load: compileLoadOptions({
      exclude: o.exclude,
      clusterProfile: o.clusterProfile,
      featureSet: o.featureSet,
      knownCapabilities: o.knownCapabilities,
      limits: Object.freeze({
        maxAliasBytes: parseByteSize("payload-max-alias-bytes", o.payloadMaxAliasBytes),
        maxDepth: positiveInteger("payload-max-depth", o.payloadMaxDepth),
      }),
    }),
    backoff: Object.freeze({ ...TUNING.manifestBackoff, steps: positiveInteger("backoff-steps", o.backoffSteps) }),
    installBackoff: TUNING.installBackoff,
    progressIntervalMs: TUNING.progressIntervalMs,
    admitTimeoutMs: TUNING.admitTimeoutMs,
    shutdownGraceMs: TUNING.shutdownGraceMs,
    stateDir: kubeconfig ? "" : stateDir,
    namespace: namespaceName(o.namespace ?? ""),
    leaderElect: o.leaderElect,
    kube: Object.freeze({
      ...KUBE_CLIENT_DEFAULTS,
      ...(o.kubeQps !== undefined ? { qps: positiveNumber("kube-qps", o.kubeQps) } : {}),
      ...(o.kubeBurst !== undefined ? { burst: positiveInteger("kube-burst", o.kubeBurst) } : {}),
      timeoutMs: positiveNumber("kube-timeout", parseDuration("kube-timeout", o.kubeTimeout)),
    }),
    security: compileSecurity(o, listen, kubeconfig),
    payloadRoots: payloadRoots(o.payloadRoot, listen),
    payloadLoadTimeoutMs: positiveNumber("payload-load-timeout", parseDuration("payload-load-timeout", o.payloadLoadTimeout)),
    registry: Object.freeze({ cacheDir: payloadCacheDir(o.payloadCache, env), ...compileRegistryAccess(o, env), limits: compilePullLimits(o) }),
    verification: compileVerification(o),
    debugEndpoints: o.debugEndpoints,
    maxWatchesPerClient: positiveInteger("max-watches-per-client", o.maxWatchesPerClient),
    limits: blastRadiusLimits(o),
    deadlines: updateDeadlines(o),
    maintenanceWindows: Object.freeze(
      o.maintenanceWindow.map((text) => {
        try {
          return parseMaintenanceWindow(text, (duration) => parseDuration("maintenance-window", duration));
        } catch (err) {
          if (err instanceof ValueError) throw err;
          throw new ValueError("maintenance-window", err instanceof Error ? err.message : String(err));
        }
      }),
    ),
    reconcileInWindowsOnly: o.maintenanceWindowReconcile,
    ...(o.healthRules === undefined ? {} : { healthRules: Object.freeze({ file: o.healthRules, text: readText("health-rules", o.healthRules) }) }),
    ...(o.eventSink.length === 0 ? {} : { events: compileEvents(o) }),
  });
}

/** `--event-sink` URLs (http or https only) with their mode, source and credentials, checked. */
function compileEvents(o: DefaultedServeOptions): EventOptions {
  o.eventSink.forEach((text, i) => {
    let url: URL;
    try {
      url = new URL(text);
    } catch {
      throw new ValueError("event-sink", `${JSON.stringify(text)} (the ${ordinal(i)}) is not a URL`);
    }
    if (url.protocol !== "http:" && url.protocol !== "https:") throw new ValueError("event-sink", `${text}: only http and https sinks are supported`);
  });
  if (o.eventMode !== "binary" && o.eventMode !== "structured") throw new ValueError("event-mode", `${JSON.stringify(o.eventMode)}: binary or structured`);
  const token = o.eventSinkTokenFile === undefined ? undefined : readText("event-sink-token-file", o.eventSinkTokenFile).trim();
  if (token === "") throw new ValueError("event-sink-token-file", `${o.eventSinkTokenFile} is empty`);
  return Object.freeze({
    sinks: Object.freeze([...o.eventSink]),
    mode: o.eventMode,
    source: o.eventSource ?? `/syncworker/${hostname()}`,
    ...(o.eventSinkCa === undefined ? {} : { ca: readText("event-sink-ca", o.eventSinkCa) }),
    ...(token === undefined ? {} : { token }),
  });
}

const ordinal = (i: number): string => `${i + 1}${["st", "nd", "rd"][i] ?? "th"}`;

/** A file a flag names, or a {@link ValueError} naming the flag, the file and why it cannot be read. */
function readText(option: string, file: string): string {
  try {
    return readFileSync(file, "utf8");
  } catch (err) {
    throw new ValueError(option, `cannot read ${file}: ${err instanceof Error ? err.message : String(err)}`);
  }
}

/** `--progress-deadline` and `--total-deadline`, checked; an absent one is none. */
function updateDeadlines({ progressDeadline, totalDeadline }: ServeOptions): CompiledServeOptions["deadlines"] {
  const ms = (option: string, text: string | undefined): number | undefined =>
    text === undefined ? undefined : positiveNumber(option, parseDuration(option, text));
  const progressMs = ms("progress-deadline", progressDeadline);
  const totalMs = ms("total-deadline", totalDeadline);
  return Object.freeze({ ...(progressMs === undefined ? {} : { progressMs }), ...(totalMs === undefined ? {} : { totalMs }) });
}
