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
