import { test } from "node:test";
import assert from "node:assert/strict";
import { annotationsOf, exclusionReason, manifestCapabilities, type IncludeFilter } from "../../../src/payload/include.js";
import type { KubeObject } from "../../../src/payload/manifest.js";
import { manifestOf } from "./helpers.js";

const PROFILE = "self-managed-high-availability";
const IN_PROFILE = { [`include.release.openshift.io/${PROFILE}`]: "true" };
const LOAD_TIME: IncludeFilter = {
  exclude: "exclude-test",
  featureSet: "",
  enabledFeatureGates: new Set(),
  profile: PROFILE,
  capabilities: { known: ["baremetal", "marketplace", "openshift-samples"], enabled: ["baremetal", "marketplace", "openshift-samples"] },
};
const obj = (annotations?: unknown): KubeObject => ({
  apiVersion: "v1",
  kind: "ConfigMap",
  metadata: { name: "x", ...(annotations === undefined ? {} : { annotations: annotations as Record<string, string> }) },
});

const FS = "release.openshift.io/feature-set";
const FG = "release.openshift.io/feature-gate";
const KNOWN_SETS = "CustomNoUpgrade,Default,DevPreviewNoUpgrade,TechPreviewNoUpgrade";

// Case names start with the rule they exercise (spec §1.5 numbering; "feature-set", "both annotations" and
// "allow unknown capabilities" are the Appendix A rules).
const CASES: { name: string; obj: KubeObject; filter: IncludeFilter; want: string | undefined }[] = [
  { name: "#0 no annotations at all", obj: obj(), filter: LOAD_TIME, want: "no annotations" },
  { name: "#0 annotations null", obj: obj(null), filter: LOAD_TIME, want: "no annotations" },
  {
    name: "#0 non-string annotation value hides all annotations (GetAnnotations)",
    obj: obj({ ...IN_PROFILE, n: 1 }),
    filter: LOAD_TIME,
    want: "no annotations",
  },
  { name: "#0 applies even with an empty filter", obj: obj(), filter: {}, want: "no annotations" },
  { name: "empty annotations map still counts as annotations", obj: obj({}), filter: {}, want: undefined },
  { name: "included with profile", obj: obj(IN_PROFILE), filter: LOAD_TIME, want: undefined },
  {
    name: "#1 exclude id true",
    obj: obj({ ...IN_PROFILE, "exclude.release.openshift.io/exclude-test": "true" }),
    filter: LOAD_TIME,
    want: "exclude.release.openshift.io/exclude-test=true",
  },
  {
    name: "#1 exclude id other value is not an exclusion",
    obj: obj({ ...IN_PROFILE, "exclude.release.openshift.io/exclude-test": "True" }),
    filter: LOAD_TIME,
    want: undefined,
  },
  {
    name: "#1 exclude beats profile (order)",
    obj: obj({ "exclude.release.openshift.io/exclude-test": "true" }),
    filter: LOAD_TIME,
    want: "exclude.release.openshift.io/exclude-test=true",
  },
  {
    name: "#1 empty exclude id checks the bare prefix key",
    obj: obj({ ...IN_PROFILE, "exclude.release.openshift.io/": "true" }),
    filter: { exclude: "" },
    want: "exclude.release.openshift.io/=true",
  },
  {
    name: "#1 absent exclude skips the check",
    obj: obj({ ...IN_PROFILE, "exclude.release.openshift.io/exclude-test": "true" }),
    filter: { profile: PROFILE },
    want: undefined,
  },
  { name: "#3 profile unset", obj: obj({ a: "b" }), filter: LOAD_TIME, want: `include.release.openshift.io/${PROFILE} unset` },
  {
    name: "#3 profile false",
    obj: obj({ [`include.release.openshift.io/${PROFILE}`]: "false" }),
    filter: LOAD_TIME,
    want: `unrecognized value include.release.openshift.io/${PROFILE}=false`,
  },
  {
    name: "#3 other profile",
    obj: obj(IN_PROFILE),
    filter: { profile: "ibm-cloud-managed" },
    want: "include.release.openshift.io/ibm-cloud-managed unset",
  },
  { name: "#3 absent profile skips the check", obj: obj({ a: "b" }), filter: { exclude: "x", featureSet: "" }, want: undefined },
  // Appendix A: release.openshift.io/feature-set.
  { name: "feature-set Default is the cluster's default set", obj: obj({ ...IN_PROFILE, [FS]: "Default" }), filter: LOAD_TIME, want: undefined },
  {
    name: "feature-set Default also matches an explicit Default",
    obj: obj({ ...IN_PROFILE, [FS]: "Default" }),
    filter: { ...LOAD_TIME, featureSet: "Default" },
    want: undefined,
  },
  {
    name: "feature-set excludes other sets on a Default cluster",
    obj: obj({ ...IN_PROFILE, [FS]: "TechPreviewNoUpgrade" }),
    filter: LOAD_TIME,
    want: `"Default" is required, and ${FS}=TechPreviewNoUpgrade`,
  },
  {
    name: "feature-set excludes Default on a tech-preview cluster",
    obj: obj({ ...IN_PROFILE, [FS]: "Default" }),
    filter: { ...LOAD_TIME, featureSet: "TechPreviewNoUpgrade" },
    want: `"TechPreviewNoUpgrade" is required, and ${FS}=Default`,
  },
  {
    name: "feature-set comma list includes any listed set",
    obj: obj({ ...IN_PROFILE, [FS]: "TechPreviewNoUpgrade,CustomNoUpgrade" }),
    filter: { ...LOAD_TIME, featureSet: "CustomNoUpgrade" },
    want: undefined,
  },
  {
    name: "feature-set comma list is reported sorted and without duplicates",
    obj: obj({ ...IN_PROFILE, [FS]: "TechPreviewNoUpgrade,CustomNoUpgrade,TechPreviewNoUpgrade" }),
    filter: LOAD_TIME,
    want: `"Default" is required, and ${FS}=CustomNoUpgrade,TechPreviewNoUpgrade`,
  },
  {
    name: "feature-set unknown value excludes even when the cluster's set is listed",
    obj: obj({ ...IN_PROFILE, [FS]: "Default,Bogus" }),
    filter: LOAD_TIME,
    want: `unrecognized value "Bogus" in ${FS}=Default,Bogus; known values are: ${KNOWN_SETS}`,
  },
  {
    name: "feature-set empty value is unknown",
    obj: obj({ ...IN_PROFILE, [FS]: "" }),
    filter: LOAD_TIME,
    want: `unrecognized value "" in ${FS}=; known values are: ${KNOWN_SETS}`,
  },
  {
    name: "feature-set is case-sensitive",
    obj: obj({ ...IN_PROFILE, [FS]: "default" }),
    filter: LOAD_TIME,
    want: `unrecognized value "default" in ${FS}=default; known values are: ${KNOWN_SETS}`,
  },
  {
    name: "feature-set check runs before the profile check",
    obj: obj({ [FS]: "DevPreviewNoUpgrade" }),
    filter: LOAD_TIME,
    want: `"Default" is required, and ${FS}=DevPreviewNoUpgrade`,
  },
  {
    name: "feature-set after the exclusion id",
    obj: obj({ [FS]: "Bogus", "exclude.release.openshift.io/exclude-test": "true" }),
    filter: LOAD_TIME,
    want: "exclude.release.openshift.io/exclude-test=true",
  },
  { name: "feature-set absent filter skips the check", obj: obj({ ...IN_PROFILE, [FS]: "Bogus" }), filter: { profile: PROFILE }, want: undefined },
  {
    name: "both annotations (feature-set and feature-gate) on one manifest is an error",
    obj: obj({ ...IN_PROFILE, [FS]: "TechPreviewNoUpgrade", [FG]: "TechPreviewNoUpgrade" }),
    filter: { ...LOAD_TIME, featureSet: "TechPreviewNoUpgrade" },
    want: "both feature set and feature gate annotations are present: manifests may specify either a feature set or a feature gate, but not both",
  },
  {
    name: "both annotations: not checked without a feature set",
    obj: obj({ ...IN_PROFILE, [FS]: "X", [FG]: "Y" }),
    filter: { profile: PROFILE },
    want: undefined,
  },
  {
    name: "#4 known and enabled capability",
    obj: obj({ ...IN_PROFILE, "capability.openshift.io/name": "baremetal" }),
    filter: LOAD_TIME,
    want: undefined,
  },
  {
    name: "#4 unknown capabilities listed in annotation order",
    obj: obj({ ...IN_PROFILE, "capability.openshift.io/name": "Console+baremetal+Ingress" }),
    filter: LOAD_TIME,
    want: "unrecognized capability names: Console, Ingress",
  },
  {
    name: "#4 unknown wins over disabled",
    obj: obj({ "capability.openshift.io/name": "marketplace+Nope" }),
    filter: { capabilities: { known: ["marketplace"], enabled: [] } },
    want: "unrecognized capability names: Nope",
  },
  {
    name: "#4 disabled capabilities",
    obj: obj({ "capability.openshift.io/name": "marketplace+baremetal+openshift-samples" }),
    filter: { capabilities: { known: ["baremetal", "marketplace", "openshift-samples"], enabled: ["baremetal"] } },
    want: "disabled capabilities: marketplace, openshift-samples",
  },
  {
    name: "#4 empty capability annotation means none",
    obj: obj({ "capability.openshift.io/name": "" }),
    filter: { capabilities: { known: [], enabled: [] } },
    want: undefined,
  },
  {
    name: "#4 absent capabilities skip the check",
    obj: obj({ ...IN_PROFILE, "capability.openshift.io/name": "Nope" }),
    filter: { profile: PROFILE },
    want: undefined,
  },
  {
    name: "allow unknown capabilities: an unknown but enabled name passes",
    obj: obj({ "capability.openshift.io/name": "baremetal+NewCap" }),
    filter: { capabilities: { known: ["baremetal"], enabled: ["baremetal", "NewCap"] }, allowUnknownCapabilities: true },
    want: undefined,
  },
  {
    name: "allow unknown capabilities: an unknown name is checked as disabled, not unrecognized",
    obj: obj({ "capability.openshift.io/name": "NewCap+baremetal+Other" }),
    filter: { capabilities: { known: ["baremetal"], enabled: ["baremetal"] }, allowUnknownCapabilities: true },
    want: "disabled capabilities: NewCap, Other",
  },
  {
    name: "allow unknown capabilities off (the default): unrecognized, even when enabled",
    obj: obj({ "capability.openshift.io/name": "NewCap" }),
    filter: { capabilities: { known: ["baremetal"], enabled: ["NewCap"] }, allowUnknownCapabilities: false },
    want: "unrecognized capability names: NewCap",
  },
  {
    name: "#4 apply time: only the capability check runs",
    obj: obj({ "capability.openshift.io/name": "baremetal", "release.openshift.io/feature-gate": "Bogus" }),
    filter: { capabilities: { known: ["baremetal"], enabled: ["baremetal"] } },
    want: undefined,
  },
];

for (const tc of CASES) {
  test(`exclusionReason: ${tc.name}`, () => {
    assert.equal(exclusionReason(manifestOf(tc.obj), tc.filter), tc.want);
  });
}

test("manifestCapabilities splits on + and treats empty as none", () => {
  assert.deepEqual(manifestCapabilities(manifestOf(obj({ "capability.openshift.io/name": "a+b" }))), ["a", "b"]);
  assert.deepEqual(manifestCapabilities(manifestOf(obj({ "capability.openshift.io/name": "" }))), []);
  assert.deepEqual(manifestCapabilities(manifestOf(obj())), []);
});

test("annotationsOf follows Unstructured.GetAnnotations", () => {
  assert.deepEqual(annotationsOf(obj({ x: "y" })), { x: "y" });
  assert.equal(annotationsOf(obj(["x"])), undefined);
  assert.equal(annotationsOf(obj({ x: true })), undefined);
  assert.equal(annotationsOf({ kind: "K" }), undefined);
});
