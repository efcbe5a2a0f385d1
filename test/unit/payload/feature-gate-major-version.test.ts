// Manifests filtered by the cluster's enabled feature gates and the payload's major version, as library-go's
// `Manifest.Include` does at HEAD (its TestCheckFeatureGates and TestMajorVersionFiltering tables, in our words).
import { test } from "node:test";
import assert from "node:assert/strict";
import { exclusionReason, type IncludeFilter } from "../../../src/payload/include.js";
import { loadUpdate, type LoadOptions } from "../../../src/payload/load.js";
import type { KubeObject } from "../../../src/payload/manifest.js";
import { manifestOf, memoryFs, SKELETON, testObject } from "./helpers.js";

const FG = "release.openshift.io/feature-gate";
const FS = "release.openshift.io/feature-set";
const MV = "release.openshift.io/major-version";
const configMap = (annotations: Record<string, string>): KubeObject => ({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "x", annotations } });
const featureGate = (annotations: Record<string, string>): KubeObject => ({
  apiVersion: "config.openshift.io/v1",
  kind: "FeatureGate",
  metadata: { name: "cluster", annotations },
});

const GATE_CASES: { name: string; enabled: string[]; value?: string; want: string | undefined }[] = [
  { name: "no feature-gate annotation includes", enabled: ["gate1"], want: undefined },
  { name: "an empty list includes", enabled: ["gate1"], value: "", want: undefined },
  { name: "a required gate that is enabled includes", enabled: ["TechPreviewFeatureGate", "gate2"], value: "TechPreviewFeatureGate", want: undefined },
  {
    name: "a required gate that is not enabled excludes",
    enabled: ["gate1"],
    value: "TechPreviewFeatureGate",
    want: "feature gate TechPreviewFeatureGate is required but not enabled",
  },
  { name: "a -gate that is not enabled includes", enabled: ["gate1"], value: "-TechPreviewFeatureGate", want: undefined },
  {
    name: "a -gate that is enabled excludes",
    enabled: ["TechPreviewFeatureGate"],
    value: "-TechPreviewFeatureGate",
    want: "feature gate TechPreviewFeatureGate is enabled but manifest requires it to be disabled",
  },
  { name: "every requirement of a list satisfied includes", enabled: ["gate1", "gate2"], value: "gate1,gate2,-gate3", want: undefined },
  {
    name: "a list needs every listed gate (AND, not OR)",
    enabled: ["gate1"],
    value: "gate1,gate2,-gate3",
    want: "feature gate gate2 is required but not enabled",
  },
  {
    name: "a list with an enabled -gate excludes",
    enabled: ["gate1", "gate2", "gate3"],
    value: "gate1,gate2,-gate3",
    want: "feature gate gate3 is enabled but manifest requires it to be disabled",
  },
  { name: "blanks around entries are trimmed", enabled: ["gate1", "gate2"], value: " gate1 , gate2 , -gate3 ", want: undefined },
  { name: "empty entries are ignored", enabled: ["gate1"], value: "gate1,,", want: undefined },
  {
    name: "the seed's TechPreviewNoUpgrade value is now a gate name",
    enabled: [],
    value: "TechPreviewNoUpgrade",
    want: "feature gate TechPreviewNoUpgrade is required but not enabled",
  },
];
for (const tc of GATE_CASES) {
  test(`feature gates: ${tc.name}`, () => {
    const obj = configMap(tc.value === undefined ? {} : { [FG]: tc.value });
    assert.equal(exclusionReason(manifestOf(obj), { enabledFeatureGates: new Set(tc.enabled) }), tc.want);
  });
}

test("feature gates: without enabled gates in the filter (apply time) the annotation is not checked", () => {
  assert.equal(exclusionReason(manifestOf(configMap({ [FG]: "gate1" })), {}), undefined);
});

test("feature gates: a feature-set and a feature-gate annotation together are an error only when both are filtered", () => {
  const obj = manifestOf(configMap({ [FS]: "Default", [FG]: "gate1" }));
  const both = "both feature set and feature gate annotations are present: manifests may specify either a feature set or a feature gate, but not both";
  assert.equal(exclusionReason(obj, { featureSet: "", enabledFeatureGates: new Set(["gate1"]) }), both);
  assert.equal(exclusionReason(obj, { featureSet: "" }), undefined);
  assert.equal(exclusionReason(obj, { enabledFeatureGates: new Set(["gate1"]) }), undefined);
});

const MAJOR_CASES: { name: string; value?: string; major: bigint; want: string | undefined }[] = [
  { name: "no major-version annotation includes", major: 4n, want: undefined },
  { name: "a matching version includes", value: "4", major: 4n, want: undefined },
  { name: "a non-matching version excludes", value: "5", major: 4n, want: "major version 4 does not match any required versions" },
  { name: "any listed version matches", value: "5,6,4", major: 4n, want: undefined },
  { name: "none of several listed versions matches", value: "5,6,7", major: 4n, want: "major version 4 does not match any required versions" },
  { name: "a matching -N excludes", value: "-4", major: 4n, want: "major version 4 matches excluded version 4" },
  { name: "a non-matching -N includes", value: "-5,-6", major: 4n, want: undefined },
  { name: "a matching inclusion beside another exclusion includes", value: "4,-5", major: 4n, want: undefined },
  { name: "N and -N together exclude whatever the version", value: "5,-5,4", major: 4n, want: "inclusion and exclusion requirements overlap: [5]" },
  { name: "a non-matching inclusion beside an exclusion excludes", value: "5,-6", major: 4n, want: "major version 4 does not match any required versions" },
  { name: "blanks and empty entries are ignored", value: " 4 ,, -6 ", major: 4n, want: undefined },
  {
    name: "an invalid inclusion excludes",
    value: "abc",
    major: 4n,
    want: 'invalid included major version "abc" in annotation: strconv.ParseUint: parsing "abc": invalid syntax',
  },
  {
    name: "an invalid exclusion excludes",
    value: "-abc",
    major: 4n,
    want: 'invalid excluded major version "abc" in annotation: strconv.ParseUint: parsing "abc": invalid syntax',
  },
  { name: "version zero matches", value: "0", major: 0n, want: undefined },
  { name: "an excluded version in a real-world list", value: "4,5,-3", major: 3n, want: "major version 3 matches excluded version 3" },
];
for (const tc of MAJOR_CASES) {
  test(`major version: ${tc.name}`, () => {
    const obj = featureGate(tc.value === undefined ? {} : { [MV]: tc.value });
    assert.equal(exclusionReason(manifestOf(obj), { majorVersion: tc.major }), tc.want);
  });
}

test("major version: only FeatureGates and CustomResourceDefinitions may carry the annotation", () => {
  const crd: KubeObject = { apiVersion: "apiextensions.k8s.io/v1", kind: "CustomResourceDefinition", metadata: { name: "x", annotations: { [MV]: "4" } } };
  assert.equal(exclusionReason(manifestOf(crd), { majorVersion: 4n }), undefined);
  assert.equal(
    exclusionReason(manifestOf(configMap({ [MV]: "4" })), { majorVersion: 4n }),
    "major version filtering is only supported for feature gates and custom resources",
  );
  assert.equal(exclusionReason(manifestOf(configMap({ [MV]: "4" })), {}), undefined, "without a major version the check is skipped");
});

test("major version: a failing gate check is reported before the version check", () => {
  const filter: IncludeFilter = { enabledFeatureGates: new Set(), majorVersion: 4n };
  assert.equal(exclusionReason(manifestOf(featureGate({ [FG]: "gate1", [MV]: "5" })), filter), "feature gate gate1 is required but not enabled");
  assert.equal(exclusionReason(manifestOf(featureGate({ [FG]: "-gate1", [MV]: "5" })), filter), "major version 4 does not match any required versions");
});

const IN_PROFILE = '    include.release.openshift.io/self-managed-high-availability: "true"\n';
const annotated = (name: string, kind: string, apiVersion: string, extra: string): string =>
  testObject(name)
    .replace("kind: Test\napiVersion: v1", `kind: ${kind}\napiVersion: ${apiVersion}`)
    .replace(IN_PROFILE, IN_PROFILE + extra);

test("loading filters by the enabled gates and by the major version of the payload's own release-metadata", async () => {
  const fs = memoryFs({
    ...SKELETON, // version 1.0.0-abc: major 1
    "release-manifests/a.yaml": annotated("needs-gate", "Test", "v1", `    ${FG}: gate1\n`),
    "release-manifests/b.yaml": annotated("without-gate", "Test", "v1", `    ${FG}: -gate1\n`),
    "release-manifests/c.yaml": annotated("major-1", "FeatureGate", "config.openshift.io/v1", `    ${MV}: "1"\n`),
    "release-manifests/d.yaml": annotated("not-major-1", "FeatureGate", "config.openshift.io/v1", `    ${MV}: "-1"\n`),
  });
  const opts: LoadOptions = { knownCapabilities: [], architecture: "amd64" };
  const names = async (o: LoadOptions): Promise<(string | undefined)[]> => (await loadUpdate("/p", "img", o, fs)).manifests.map((m) => m.obj.metadata?.name);
  assert.deepEqual(await names(opts), ["without-gate", "major-1"], "no gates enabled by default");
  assert.deepEqual(await names({ ...opts, enabledFeatureGates: new Set(["gate1"]) }), ["needs-gate", "major-1"]);
});
