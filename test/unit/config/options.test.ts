import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtemp, realpath, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { compileServeOptions, formatHostPort, KUBE_CLIENT_DEFAULTS, PACKAGE_VERSION, TUNING, ValueError } from "../../../src/config/index.js";
import { KNOWN_CAPABILITIES } from "../../../src/policy/index.js";
import { DEFAULT_PULL_LIMITS } from "../../../src/retrieval/registry/limits.js";

const compile = (o: Parameters<typeof compileServeOptions>[0]) => compileServeOptions(o, () => 0, "/var/lib/syncworker-test");

test("payload inclusion options default to the CVO's: no exclusion, HA profile, Default feature set, every known capability", () => {
  const c = compile({});
  assert.equal(c.load.exclude, "");
  assert.equal(c.load.clusterProfile, "self-managed-high-availability");
  assert.equal(c.load.featureSet, "Default");
  assert.deepEqual(c.load.knownCapabilities, [...KNOWN_CAPABILITIES].sort());
  assert.ok(Object.isFrozen(c) && Object.isFrozen(c.load) && Object.isFrozen(c.load.knownCapabilities));
});

const VALID_SETS = ["", "Default", "TechPreviewNoUpgrade", "DevPreviewNoUpgrade", "CustomNoUpgrade"];
for (const featureSet of VALID_SETS) {
  test(`feature set "${featureSet}" is accepted`, () => {
    assert.equal(compile({ featureSet }).load.featureSet, featureSet);
  });
}

const INVALID: [name: string, options: Parameters<typeof compileServeOptions>[0], option: string][] = [
  ["an unknown feature set", { featureSet: "TechPreview" }, "feature-set"],
  ["a feature set in the wrong case", { featureSet: "default" }, "feature-set"],
  ["a capability name joined with +", { knownCapabilities: ["Console+Ingress"] }, "known-capabilities"],
  ["an empty capability name", { knownCapabilities: [""] }, "known-capabilities"],
  ["leader election without a real cluster", { leaderElect: true }, "leader-elect"],
  ["a namespace without a real cluster", { namespace: "ns" }, "namespace"],
  ["a state directory with a real cluster", { kubeconfig: "/k", stateDir: "/s" }, "state-dir"],
  ["a namespace that is not a DNS label", { kubeconfig: "/k", namespace: "Not_A_Name" }, "namespace"],
  ["a burst without a rate", { kubeconfig: "/k", kubeBurst: 10 }, "kube-burst"],
  ["a rate of zero", { kubeconfig: "/k", kubeQps: 0 }, "kube-qps"],
  ["a TLS certificate without its key", { tlsCert: "/c" }, "tls-key"],
  ["a client CA without server TLS", { clientCa: "/ca" }, "client-ca"],
  ["an unknown authn mode", { authn: "ldap" }, "authn"],
  ["static authn without a token file", { authn: "static" }, "authn"],
  ["kube authn without a real cluster", { authn: "kube" }, "authn"],
  ["a token file with kube authn", { kubeconfig: "/k", authn: "kube", tokenFile: "/t" }, "token-file"],
  ["a non-loopback listen address with nothing to authenticate callers", { listen: "0.0.0.0:50051" }, "listen"],
  ["a non-loopback listen address with TLS alone", { listen: "[::]:0", tlsCert: "/c", tlsKey: "/k" }, "listen"],
  ["a non-loopback listen address without a payload root, even --insecure", { listen: "0.0.0.0:0", insecure: true }, "payload-root"],
  ["a payload root that does not exist", { payloadRoot: ["/nonexistent/payloads"] }, "payload-root"],
  ["a payload root that is a file", { payloadRoot: ["/etc/hostname"] }, "payload-root"],
  ["a payload load timeout of zero", { payloadLoadTimeout: "0s" }, "payload-load-timeout"],
  ["an alias byte limit that is not a size", { payloadMaxAliasBytes: "16MB" }, "payload-max-alias-bytes"],
  ["an alias byte limit of zero", { payloadMaxAliasBytes: "0" }, "payload-max-alias-bytes"],
  ["a payload depth of zero", { payloadMaxDepth: 0 }, "payload-max-depth"],
  ["no watches per client", { maxWatchesPerClient: 0 }, "max-watches-per-client"],
  ["a payload size that is not a size", { payloadMaxBytes: "1GB" }, "payload-max-bytes"],
  ["a zero registry response limit", { registryMaxResponse: "0" }, "registry-max-response"],
  ["a zero pull timeout", { registryPullTimeout: "0s" }, "registry-pull-timeout"],
  ["no payload files", { payloadMaxFiles: 0 }, "payload-max-files"],
];
for (const [name, options, option] of INVALID) {
  test(`compileServeOptions rejects ${name}`, () => {
    assert.throws(
      () => compile(options),
      (err: unknown) => err instanceof ValueError && err.option === option,
    );
  });
}

test("payload limits: 16 MiB of alias expansion and 512 levels by default; sizes in bytes, Ki, Mi or Gi", () => {
  assert.deepEqual(compile({}).load.limits, { maxAliasBytes: 16 * 1024 * 1024, maxDepth: 512 });
  assert.deepEqual(compile({ payloadMaxAliasBytes: "512Ki", payloadMaxDepth: 64 }).load.limits, { maxAliasBytes: 512 * 1024, maxDepth: 64 });
  assert.equal(compile({ payloadMaxAliasBytes: "65536" }).load.limits?.maxAliasBytes, 65536);
  assert.equal(compile({ payloadMaxAliasBytes: "1Gi" }).load.limits?.maxAliasBytes, 1024 ** 3);
});

test("input limits: payload roots resolved, a 2m load deadline, debug routes off and 100 watches per client by default", async () => {
  const c = compile({});
  assert.deepEqual([c.payloadRoots, c.payloadLoadTimeoutMs, c.debugEndpoints, c.maxWatchesPerClient], [[], 120_000, false, 100]);
  const root = await mkdtemp(join(tmpdir(), "syncworker-root-"));
  try {
    await symlink(root, `${root}-link`);
    const roots = compile({
      payloadRoot: [`${root}-link`, `${root}/../${basename(root)}`],
      payloadLoadTimeout: "5s",
      debugEndpoints: true,
      maxWatchesPerClient: 3,
    });
    assert.deepEqual(
      [roots.payloadRoots, roots.payloadLoadTimeoutMs, roots.debugEndpoints, roots.maxWatchesPerClient],
      [[await realpath(root), await realpath(root)], 5_000, true, 3],
    );
    assert.ok(Object.isFrozen(roots.payloadRoots));
  } finally {
    await rm(`${root}-link`);
    await rm(root, { recursive: true });
  }
});

test("known capabilities: duplicates collapse, order is sorted; names this build does not know are refused, listed with how many more", () => {
  assert.deepEqual(compile({ knownCapabilities: ["Ingress", "Console", "Ingress"] }).load.knownCapabilities, ["Console", "Ingress"]);
  assert.deepEqual(compile({ knownCapabilities: [] }).load.knownCapabilities, []);
  assert.throws(
    () => compile({ knownCapabilities: ["Console", "NewCap"] }),
    (err: Error) => err instanceof ValueError && err.message.includes('"NewCap"'),
  );
  const invented = Array.from({ length: 20_000 }, (_, i) => `Invented${i}`);
  assert.throws(
    () => compile({ knownCapabilities: invented }),
    (err: Error) => err.message.includes("… and 19950 more") && err.message.length < 2000,
  );
});

test("the state lives in --state-dir on the embedded cluster, and the kube client takes its limits from flags", () => {
  assert.equal(compile({}).stateDir, "/var/lib/syncworker-test");
  const kube = compileServeOptions({ kubeconfig: "/k", leaderElect: true, kubeQps: 50, kubeTimeout: "30s" }, () => 0, "/unused");
  assert.deepEqual([kube.stateDir, kube.namespace, kube.leaderElect], ["", "", true]);
  assert.deepEqual(kube.kube, { ...KUBE_CLIENT_DEFAULTS, qps: 50, timeoutMs: 30_000 });
  assert.deepEqual(compileServeOptions({ kubeconfig: "/k" }, () => 0).kube, KUBE_CLIENT_DEFAULTS, "no fixed rate by default");
});

test("the writable paths come from SYNCWORKER_STATE_DIR and SYNCWORKER_PAYLOAD_CACHE when their flags are absent", () => {
  const env = { SYNCWORKER_STATE_DIR: "/volumes/state", SYNCWORKER_PAYLOAD_CACHE: "/volumes/cache", XDG_CACHE_HOME: "/xdg-cache" };
  const fromEnv = compileServeOptions({}, () => 0, "/home/state", env);
  assert.deepEqual([fromEnv.stateDir, fromEnv.registry.cacheDir], ["/volumes/state", "/volumes/cache"]);
  const fromFlags = compileServeOptions({ stateDir: "/flag/state", payloadCache: "/flag/cache" }, () => 0, "/home/state", env);
  assert.deepEqual([fromFlags.stateDir, fromFlags.registry.cacheDir], ["/flag/state", "/flag/cache"], "a flag wins");
  assert.equal(
    compileServeOptions({ kubeconfig: "/k" }, () => 0, "", env).stateDir,
    "",
    "a real cluster keeps its state in a ConfigMap, whatever the environment says",
  );
  const empty = compileServeOptions({}, () => 0, "/home/state", { SYNCWORKER_STATE_DIR: "", SYNCWORKER_PAYLOAD_CACHE: "", XDG_CACHE_HOME: "/xdg-cache" });
  assert.deepEqual([empty.stateDir, empty.registry.cacheDir], ["/home/state", "/xdg-cache/syncworker/payloads"], "set but empty is unset");
});

test("beyond loopback a client CA, a token file or --authn kube is enough, and --insecure overrides; loopback needs none", () => {
  assert.equal(compile({}).security.authn, "none");
  for (const listen of ["127.0.0.1:0", "127.1.2.3:50051", "localhost:0", "[::1]:0"]) assert.equal(formatHostPort(compile({ listen }).listen), listen);
  const payloadRoot = [tmpdir()];
  assert.equal(compile({ listen: "0.0.0.0:0", tokenFile: "/t", payloadRoot }).security.authn, "static");
  assert.equal(compile({ listen: "10.0.0.1:0", tlsCert: "/c", tlsKey: "/k", clientCa: "/ca", payloadRoot }).security.clientCa, "/ca");
  assert.equal(compileServeOptions({ listen: "0.0.0.0:0", kubeconfig: "/k", authn: "kube", payloadRoot }, () => 0).security.authn, "kube");
  assert.deepEqual(compile({ listen: "0.0.0.0:0", insecure: true, payloadRoot }).listen, { host: "0.0.0.0", port: 0 });
  assert.throws(() => compile({ listen: "[::ffff:127.0.0.1]:0" }), /not a loopback address/, "only plain loopback addresses count");
});

test("pull limits: each flag sets its bound, sizes in bytes or Ki/Mi/Gi, durations as elsewhere", () => {
  const limits = compile({
    registryMaxResponse: "512Ki",
    registryMaxLayer: "2Gi",
    payloadMaxBytes: "64Mi",
    payloadMaxFiles: 500,
    payloadCacheMax: "4096",
    registryPullTimeout: "90s",
    registryStallTimeout: "5s",
  }).registry.limits;
  assert.deepEqual(limits, {
    maxResponseBytes: 512 * 1024,
    maxLayerBytes: 2 * 2 ** 30,
    maxPayloadBytes: 64 * 2 ** 20,
    maxPayloadFiles: 500,
    maxCacheBytes: 4096,
    pullTimeoutMs: 90_000,
    stallTimeoutMs: 5_000,
  });
});

test("registry options: the cache and credentials default from the environment; an explicit pull secret must exist", async () => {
  const env = { XDG_CACHE_HOME: "/xdg-cache", DOCKER_CONFIG: "/docker-config" };
  const defaults = compileServeOptions({}, () => 0, "/var/lib/syncworker-test", env).registry;
  assert.deepEqual(defaults, {
    cacheDir: "/xdg-cache/syncworker/payloads",
    authFile: "/docker-config/config.json",
    authFileOptional: true,
    caPem: "",
    insecureHosts: [],
    limits: DEFAULT_PULL_LIMITS,
  });
  const authFile = compileServeOptions({}, () => 0, "/var/lib/syncworker-test", { REGISTRY_AUTH_FILE: "/run/auth.json" }).registry;
  assert.deepEqual([authFile.authFile, authFile.authFileOptional], ["/run/auth.json", false], "a named REGISTRY_AUTH_FILE must exist when read");
  const dir = await mkdtemp(join(tmpdir(), "syncworker-registry-options-"));
  assert.throws(
    () => compile({ pullSecret: join(dir, "absent.json") }),
    (err: unknown) => err instanceof ValueError && err.option === "pull-secret" && /absent\.json/.test(err.message),
  );
  assert.throws(
    () => compile({ registryCa: join(dir, "absent.pem") }),
    (err: unknown) => err instanceof ValueError && err.option === "registry-ca",
  );
  assert.throws(
    () => compile({ pullSecret: dir }),
    (err: unknown) => err instanceof ValueError && err.option === "pull-secret" && err.message.includes(`${dir} is a directory`),
  );
  await rm(dir, { recursive: true });
});

for (const [host, ok] of [
  ["127.0.0.1:5000", true],
  ["localhost", true],
  ["[::1]:5000", true],
  ["registry.example:5000", false],
  ["10.0.0.1:5000", false],
] as const) {
  test(`--insecure-registry ${host} is ${ok ? "accepted (loopback)" : "refused: plain HTTP is for loopback tests only"}`, () => {
    if (ok) assert.deepEqual(compile({ insecureRegistry: [host] }).registry.insecureHosts, [host]);
    else
      assert.throws(
        () => compile({ insecureRegistry: [host] }),
        (err: unknown) => err instanceof ValueError && err.option === "insecure-registry" && /not a loopback registry/.test(err.message),
      );
  });
}

test("verification options: keys off by default; a key directory resolved; stores are http(s) or file URLs and need keys", async () => {
  assert.deepEqual(compile({}).verification, { verificationKeys: "", signatureStores: [] });
  const dir = await mkdtemp(join(tmpdir(), "syncworker-verification-options-"));
  try {
    const c = compile({ verificationKeys: `${dir}/.`, signatureStore: ["https://mirror.example/signatures", "file:///srv/sigstore"] }).verification;
    assert.equal(c.verificationKeys, dir);
    assert.deepEqual(
      c.signatureStores.map((u) => u.href),
      ["https://mirror.example/signatures", "file:///srv/sigstore"],
    );
    const refused = (options: Parameters<typeof compile>[0], option: string, message: RegExp): void =>
      assert.throws(
        () => compile(options),
        (err: unknown) => err instanceof ValueError && err.option === option && message.test(err.message),
      );
    refused({ signatureStore: ["https://mirror.example/signatures"] }, "signature-store", /needs --verification-keys/);
    refused({ verificationKeys: dir, signatureStore: ["mirror.example/signatures"] }, "signature-store", /is not a URL/);
    refused({ verificationKeys: dir, signatureStore: ["ftp://mirror.example/"] }, "signature-store", /not an http, https or file URL/);
    refused({ verificationKeys: join(dir, "absent") }, "verification-keys", /absent/);
    await writeFile(join(dir, "key.asc"), "");
    refused({ verificationKeys: join(dir, "key.asc") }, "verification-keys", /is not a directory/);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test("tuning values reach the compiled options: the manifest backoff takes --backoff-steps, the kube client names this release", () => {
  const c = compile({ backoffSteps: 5 });
  assert.deepEqual(c.backoff, { ...TUNING.manifestBackoff, steps: 5 });
  assert.deepEqual([c.installBackoff, c.progressIntervalMs, c.admitTimeoutMs, c.shutdownGraceMs], [TUNING.installBackoff, 100, 30_000, 5_000]);
  assert.ok(c.kube.userAgent.startsWith(`syncworker/${PACKAGE_VERSION} (`));
});

test("update deadlines: none by default; --progress-deadline and --total-deadline as durations, refused unless positive", () => {
  assert.deepEqual(compile({}).deadlines, {});
  assert.deepEqual(compile({ progressDeadline: "10m", totalDeadline: "2h" }).deadlines, { progressMs: 600_000, totalMs: 7_200_000 });
  assert.throws(() => compile({ progressDeadline: "soon" }), /--progress-deadline: "soon" is not a duration/);
  assert.throws(() => compile({ totalDeadline: "0s" }), /--total-deadline: must be a positive number/);
});

test("maintenance windows: none by default; each --maintenance-window parsed, a wrong one refused naming the flag and the part", () => {
  assert.deepEqual(compile({}).maintenanceWindows, []);
  assert.equal(compile({}).reconcileInWindowsOnly, false);
  const [window] = compile({ maintenanceWindow: ["allow 0 2 * * SAT for 4h in Europe/Berlin"], maintenanceWindowReconcile: true }).maintenanceWindows;
  assert.deepEqual([window?.kind, window?.cron, window?.durationMs, window?.timeZone], ["allow", "0 2 * * SAT", 4 * 3_600_000, "Europe/Berlin"]);
  assert.throws(() => compile({ maintenanceWindow: ["allow 0 2 * * SAT for 4h in Nowhere"] }), /--maintenance-window: .*"Nowhere" is not an IANA time zone/);
  assert.throws(() => compile({ maintenanceWindow: ["deny 0 2 * * SAT for soon in UTC"] }), /^.*--maintenance-window: "soon" is not a duration/);
});

test("event sinks: http(s) URLs only, binary by default, a source naming the host; a bad URL, mode or token file is refused naming the flag", async () => {
  assert.equal(compile({}).events, undefined, "no sink, no events");
  const events = compile({ eventSink: ["http://sink.example/events", "https://other.example/"] }).events;
  assert.deepEqual(
    { ...events, source: events?.source.startsWith("/syncworker/") },
    { sinks: ["http://sink.example/events", "https://other.example/"], mode: "binary", source: true },
  );
  const dir = await mkdtemp(join(tmpdir(), "syncworker-events-"));
  await writeFile(join(dir, "token"), "s3cret\n");
  await writeFile(join(dir, "empty"), "");
  const full = compile({
    eventSink: ["https://sink.example/"],
    eventMode: "structured",
    eventSource: "urn:cluster:a",
    eventSinkTokenFile: join(dir, "token"),
  }).events;
  assert.deepEqual([full?.mode, full?.source, full?.token], ["structured", "urn:cluster:a", "s3cret"]);
  const refusals: [Parameters<typeof compile>[0], RegExp][] = [
    [{ eventSink: ["http://ok.example/", "not a url"] }, /--event-sink: "not a url" \(the 2nd\) is not a URL/],
    [{ eventSink: ["ftp://sink.example/"] }, /--event-sink: ftp:\/\/sink\.example\/: only http and https sinks are supported/],
    [{ eventSink: ["http://ok.example/"], eventMode: "json" }, /--event-mode: "json": binary or structured/],
    [{ eventSink: ["http://ok.example/"], eventSinkTokenFile: join(dir, "empty") }, /--event-sink-token-file: .*empty is empty/],
  ];
  for (const [flags, message] of refusals) {
    assert.throws(
      () => compile(flags),
      (err: unknown) => err instanceof ValueError && message.test(err.message),
    );
  }
  await rm(dir, { recursive: true });
});
