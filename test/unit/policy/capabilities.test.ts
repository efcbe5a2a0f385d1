import assert from "node:assert/strict";
import { test } from "node:test";
import {
  CAPABILITY_SETS,
  enabledFeatureGates,
  implicitlyEnabledCapabilities,
  isKnownCapabilitySet,
  KNOWN_CAPABILITIES,
  knownCapabilities,
  setCapabilities,
  setFromImplicitlyEnabled,
  unknownCapabilities,
  type ClusterCapabilities,
} from "../../../src/policy/index.js";
import { manifest } from "../../harness/worker-harness.js";

const m = (kind: string, caps: string) =>
  manifest("f", { apiVersion: "v1", kind, metadata: { name: "x", annotations: { "capability.openshift.io/name": caps } } });
const caps = (known: string[], enabled: string[], implicit: string[] = []): ClusterCapabilities => ({
  known: new Set(known),
  enabled: new Set(enabled),
  implicitlyEnabled: implicit,
});

for (const tc of [
  { name: "basic", current: [m("Test", "cap1")], updated: [m("Test", "cap2")], caps: caps(["cap1", "cap2"], ["cap1"]), want: ["cap2"] },
  { name: "different resource", current: [m("Test", "cap1")], updated: [m("Diff", "cap2")], caps: caps(["cap1", "cap2"], ["cap1"]), want: [] },
  { name: "current not enabled", current: [m("Test", "cap1")], updated: [m("Test", "cap2")], caps: caps(["cap2"], ["cap2"]), want: [] },
  { name: "new cap already enabled", current: [m("Test", "cap1")], updated: [m("Test", "cap2")], caps: caps(["cap1", "cap2"], ["cap1", "cap2"]), want: [] },
  { name: "already implicit", current: [m("Test", "cap1")], updated: [m("Test", "cap2")], caps: caps(["cap1", "cap2"], ["cap1"], ["cap2"]), want: ["cap2"] },
  {
    name: "two manifests, same new cap",
    current: [m("Test", "cap1"), m("Test", "cap1")],
    updated: [m("Test", "cap2"), m("Test", "cap2")],
    caps: caps(["cap1", "cap2"], ["cap1"]),
    want: ["cap2"],
  },
]) {
  test(`implicitly enabled capabilities: ${tc.name}`, () => assert.deepEqual(implicitlyEnabledCapabilities(tc.updated, tc.current, tc.caps), tc.want));
}

test("capabilities: baseline plus additional; previously enabled ones stay on implicitly", () => {
  const c = setCapabilities({ baselineCapabilitySet: "None", additionalEnabledCapabilities: ["baremetal"] }, new Set(["baremetal", "marketplace"]));
  assert.deepEqual([...c.enabled].sort(), ["baremetal", "marketplace"]);
  assert.deepEqual(c.implicitlyEnabled, ["marketplace"]);
  assert.ok(
    setCapabilities({ baselineCapabilitySet: "", additionalEnabledCapabilities: [] }, new Set()).enabled.has("Console"),
    "default baseline is vCurrent",
  );
});

// Each baseline set as openshift/api spells it out, set by set (written out, not derived, so a wrong
// row in our table fails here).
const V4_11 = ["baremetal", "marketplace", "openshift-samples", "MachineAPI"];
const V4_12 = [...V4_11, "Console", "Insights", "Storage", "CSISnapshot"];
const V4_13 = [...V4_12, "NodeTuning"];
const V4_14 = [...V4_13, "Build", "DeploymentConfig", "ImageRegistry"];
const V4_15 = [...V4_14, "OperatorLifecycleManager", "CloudCredential"];
const V4_16 = [...V4_15, "Ingress", "CloudControllerManager"];
const V4_18 = [...V4_16, "OperatorLifecycleManagerV1"];
const GATED = ["CompatibilityRequirements", "ClusterAPI"];
const ALL_GATES = new Set(["CRDCompatibilityRequirementOperator", "ClusterAPIMachineManagement"]);
for (const tc of [
  { set: "None", want: [] },
  { set: "v4.11", want: V4_11 },
  { set: "v4.12", want: V4_12 },
  { set: "v4.13", want: V4_13 },
  { set: "v4.14", want: V4_14 },
  { set: "v4.15", want: V4_15 },
  { set: "v4.16", want: V4_16 },
  { set: "v4.17", want: V4_16 },
  { set: "v4.18", want: V4_18 },
  { set: "vCurrent", want: [...V4_18, ...GATED] },
]) {
  test(`capability set ${tc.set} holds exactly what openshift/api defines`, () => {
    assert.deepEqual([...(CAPABILITY_SETS.get(tc.set) ?? ["missing"])].sort(), [...tc.want].sort());
    const c = setCapabilities({ baselineCapabilitySet: tc.set, additionalEnabledCapabilities: [] }, new Set(), ALL_GATES);
    assert.deepEqual([...c.enabled].sort(), [...tc.want].sort());
  });
}

test("capability sets: the known list is every capability of vCurrent, and only the upstream set names are accepted", () => {
  assert.deepEqual([...KNOWN_CAPABILITIES].sort(), [...V4_18, ...GATED].sort());
  assert.deepEqual([...CAPABILITY_SETS.keys()], ["None", "v4.11", "v4.12", "v4.13", "v4.14", "v4.15", "v4.16", "v4.17", "v4.18", "vCurrent"]);
  assert.equal(isKnownCapabilitySet("v4.19"), false);
  assert.equal(isKnownCapabilitySet(""), true, "empty means the default, vCurrent");
});

for (const tc of [
  {
    name: "default baseline, all gates on",
    spec: { baselineCapabilitySet: "", additionalEnabledCapabilities: [] },
    prior: [],
    gates: ALL_GATES,
    known: [...V4_18, ...GATED],
    enabled: [...V4_18, ...GATED],
    implicit: [],
  },
  {
    name: "default baseline, no gates",
    spec: { baselineCapabilitySet: "", additionalEnabledCapabilities: [] },
    prior: [],
    gates: new Set<string>(),
    known: V4_18,
    enabled: V4_18,
    implicit: [],
  },
  {
    name: "vCurrent, only the requirement operator's gate",
    spec: { baselineCapabilitySet: "vCurrent", additionalEnabledCapabilities: [] },
    prior: [],
    gates: new Set(["CRDCompatibilityRequirementOperator"]),
    known: [...V4_18, "CompatibilityRequirements"],
    enabled: [...V4_18, "CompatibilityRequirements"],
    implicit: [],
  },
  {
    name: "gated capability asked for while its gate is off",
    spec: { baselineCapabilitySet: "None", additionalEnabledCapabilities: ["ClusterAPI", "Console"] },
    prior: [],
    gates: new Set<string>(),
    known: V4_18,
    enabled: ["Console"],
    implicit: [],
  },
  {
    name: "gated capability enabled before, gate now off",
    spec: { baselineCapabilitySet: "None", additionalEnabledCapabilities: [] },
    prior: ["ClusterAPI", "Build"],
    gates: new Set<string>(),
    known: V4_18,
    enabled: ["Build"],
    implicit: ["Build"],
  },
  {
    name: "v4.11 with additional, all gates on",
    spec: { baselineCapabilitySet: "v4.11", additionalEnabledCapabilities: ["Console", "ClusterAPI"] },
    prior: [],
    gates: ALL_GATES,
    known: [...V4_18, ...GATED],
    enabled: [...V4_11, "Console", "ClusterAPI"],
    implicit: [],
  },
]) {
  test(`capabilities with feature gates: ${tc.name}`, () => {
    const c = setCapabilities(tc.spec, new Set(tc.prior), tc.gates);
    assert.deepEqual([...c.known].sort(), [...tc.known].sort());
    assert.deepEqual([...c.enabled].sort(), [...tc.enabled].sort());
    assert.deepEqual([...c.implicitlyEnabled].sort(), [...tc.implicit].sort());
  });
}

test("feature sets: tech and dev preview enable the capability gates, the default set none", () => {
  for (const set of ["TechPreviewNoUpgrade", "DevPreviewNoUpgrade"]) assert.deepEqual([...enabledFeatureGates(set)].sort(), [...ALL_GATES].sort());
  assert.equal(enabledFeatureGates("Default").size, 0);
  assert.deepEqual(knownCapabilities(enabledFeatureGates("Default")), [...V4_18].sort());
});

test("names this release does not know are never enabled: not from the spec, a prior state, or a payload's implicit list", () => {
  const c = setCapabilities({ baselineCapabilitySet: "None", additionalEnabledCapabilities: ["Console", "Invented"] }, new Set(["Build", "AlsoInvented"]));
  assert.deepEqual([...c.enabled].sort(), ["Build", "Console"]);
  assert.deepEqual(c.implicitlyEnabled, ["Build"]);
  const implicit = setFromImplicitlyEnabled(["Insights", "FromAnAnnotation"], c);
  assert.deepEqual([...implicit.enabled].sort(), ["Build", "Console", "Insights"]);
  assert.deepEqual(implicit.implicitlyEnabled, ["Insights"]);
  assert.deepEqual(unknownCapabilities(["Console", "X", "Y", "X"]), ["X", "Y"]);
});
