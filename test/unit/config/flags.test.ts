import { test } from "node:test";
import assert from "node:assert/strict";
import { Command } from "commander";
import {
  applyDefaults,
  compileRenderOptions,
  compileServeOptions,
  KUBE_CLIENT_DEFAULTS,
  REGISTRY_FLAGS,
  RENDER_FLAGS,
  SERVE_FLAGS,
  ValueError,
  type Flag,
} from "../../../src/config/index.js";
import { addFlags, givenOptions } from "../../../src/cli/flag-table.js";
import { DEFAULT_PULL_LIMITS } from "../../../src/retrieval/registry/limits.js";

const TABLES: [string, Readonly<Record<string, Flag<unknown>>>][] = [
  ["registry", REGISTRY_FLAGS],
  ["serve", SERVE_FLAGS],
  ["render", RENDER_FLAGS],
];

test("every table key is the camel-cased long flag name, the field commander fills", () => {
  for (const [name, table] of TABLES) {
    for (const [field, flag] of Object.entries(table)) {
      const long = /--([a-z-]+)/.exec(flag.flags)?.[1] ?? "";
      assert.equal(
        long.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase()),
        field,
        `${name}: ${flag.flags}`,
      );
    }
  }
});

test("applyDefaults fills exactly the absent fields whose flag has a default, and keeps given ones", () => {
  const filled: Record<string, unknown> = applyDefaults(SERVE_FLAGS, { maxWorkers: 2 });
  for (const [field, flag] of Object.entries(SERVE_FLAGS) as [string, Flag<unknown>][]) {
    if (field === "maxWorkers") assert.equal(filled[field], 2);
    else assert.deepEqual(filled[field], flag.default, field);
  }
});

test("serve's compiled options take every default from the table: limits, durations and sizes as the payload owners declare them", () => {
  const c = compileServeOptions({}, () => 0, "/state");
  assert.equal(`${c.listen.host}:${c.listen.port}`, SERVE_FLAGS.listen.default);
  assert.deepEqual([c.maxWorkers, c.backoff.steps, c.maxWatchesPerClient, c.operatorDelayMs, c.payloadLoadTimeoutMs], [16, 3, 100, 500, 120_000]);
  assert.deepEqual(c.registry.limits, DEFAULT_PULL_LIMITS);
  assert.equal(c.kube.timeoutMs, KUBE_CLIENT_DEFAULTS.timeoutMs);
  assert.deepEqual([c.leaderElect, c.debugEndpoints, c.payloadRoots, c.registry.insecureHosts, c.verification.signatureStores], [false, false, [], [], []]);
});

test("the CLI hands the compiler only what the user gave; --help still shows the table's defaults", () => {
  let given: Record<string, unknown> = {};
  const command = addFlags(new Command("serve").exitOverride(), SERVE_FLAGS).action((_o, c: Command) => void (given = givenOptions(c)));
  command.parse(["--max-workers", "4", "--payload-root", "/a", "--payload-root", "/b"], { from: "user" });
  assert.deepEqual(given, { maxWorkers: 4, payloadRoot: ["/a", "/b"] });
  const help = command.helpInformation({ error: false });
  assert.match(help, /--max-workers <n> +parallelism of an update \(default: 16\)/);
  assert.match(help, /every capability this build\s+knows/);
});

test("a value the table's parser refuses is a usage error naming the flag", () => {
  const command = addFlags(new Command("serve").exitOverride().configureOutput({ outputError: () => undefined }), SERVE_FLAGS).action(() => undefined);
  assert.throws(
    () => command.parse(["--max-workers", "many"], { from: "user" }),
    (err: Error & { code?: string }) =>
      err.code === "commander.invalidArgument" && err.message.includes("--max-workers") && err.message.includes('"many" is not an integer'),
  );
});

test("a value the compiler refuses names the flag, for serve and render alike", () => {
  const names = (fn: () => unknown, option: string): void =>
    assert.throws(fn, (err: unknown) => err instanceof ValueError && err.option === option && err.message.startsWith(`--${option}: `));
  names(() => compileServeOptions({ kubeconfig: "/k", kubeTimeout: "soon" }, () => 0), "kube-timeout");
  names(() => compileServeOptions({ featureSet: "Preview" }, () => 0, "/state"), "feature-set");
  names(() => compileRenderOptions({ image: "/p", featureSet: "Preview" }), "feature-set");
  names(() => compileRenderOptions({ image: "/p", capabilities: "A+B" }), "capabilities");
});

test("render and serve read the payload flags alike: profile, feature set, exclusion and capabilities", () => {
  const serve = compileServeOptions({ clusterProfile: "single-node-developer", featureSet: "TechPreviewNoUpgrade", exclude: "x" }, () => 0, "/state").load;
  const render = compileRenderOptions({ image: "/p", profile: "single-node-developer", featureSet: "TechPreviewNoUpgrade", exclude: "x" }).load;
  const { limits: _limits, ...read } = serve;
  assert.deepEqual(render, read);
  const defaults = compileRenderOptions({ image: "/p" });
  assert.deepEqual(
    [defaults.load.clusterProfile, defaults.load.featureSet, defaults.releaseImage, defaults.output],
    ["self-managed-high-availability", "Default", "/p", "index"],
  );
  assert.deepEqual(compileRenderOptions({ image: "/p", capabilities: "" }).load.enabledCapabilities, [], '"" enables none');
});
