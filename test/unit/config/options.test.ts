import { test } from "node:test";
import assert from "node:assert/strict";
import { compileServeOptions, ValueError } from "../../../src/config/index.js";
import { KNOWN_CAPABILITIES } from "../../../src/policy/index.js";

const compile = (o: Parameters<typeof compileServeOptions>[0]) => compileServeOptions(o, () => 0, "/var/lib/syncworker-test");

test("payload inclusion options default to the CVO's: no exclusion, HA profile, Default feature set, every known capability", () => {
  const c = compile({});
  assert.equal(c.exclude, "");
  assert.equal(c.clusterProfile, "self-managed-high-availability");
  assert.equal(c.featureSet, "Default");
  assert.deepEqual(c.knownCapabilities, [...KNOWN_CAPABILITIES].sort());
  assert.ok(Object.isFrozen(c) && Object.isFrozen(c.knownCapabilities));
});

const VALID_SETS = ["", "Default", "TechPreviewNoUpgrade", "DevPreviewNoUpgrade", "CustomNoUpgrade"];
for (const featureSet of VALID_SETS) {
  test(`feature set "${featureSet}" is accepted`, () => {
    assert.equal(compile({ featureSet }).featureSet, featureSet);
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
];
for (const [name, options, option] of INVALID) {
  test(`compileServeOptions rejects ${name}`, () => {
    assert.throws(() => compile(options), (err: unknown) => err instanceof ValueError && err.option === option);
  });
}

test("known capabilities may name capabilities newer than this build; duplicates collapse, order is sorted", () => {
  assert.deepEqual(compile({ knownCapabilities: ["NewCap", "Console", "NewCap"] }).knownCapabilities, ["Console", "NewCap"]);
  assert.deepEqual(compile({ knownCapabilities: [] }).knownCapabilities, []);
});

test("the state lives in --state-dir on the embedded cluster, and the kube client takes its limits from flags", () => {
  assert.equal(compile({}).stateDir, "/var/lib/syncworker-test");
  const kube = compileServeOptions({ kubeconfig: "/k", leaderElect: true, kubeQps: 50, kubeTimeout: "30s" }, () => 0, "/unused");
  assert.deepEqual([kube.stateDir, kube.namespace, kube.leaderElect], ["", "", true]);
  assert.deepEqual(kube.kube, { qps: 50, timeoutMs: 30_000 });
  assert.deepEqual(compileServeOptions({ kubeconfig: "/k" }, () => 0).kube, {}, "no fixed rate by default");
});
