import assert from "node:assert/strict";
import type { RiskAcceptance } from "../../../src/core/index.js";
import { test } from "node:test";
import {
  builtInPreconditions,
  clusterVersionUpgradeable,
  giantHop,
  PreconditionError,
  rollback,
  summarizePreconditions,
  type ClusterVersionView,
  type Precondition,
  type PreconditionCluster,
  type PreconditionFailure,
} from "../../../src/policy/index.js";

const NONE: RiskAcceptance = { force: false, named: [] };
const FORCE: RiskAcceptance = { force: true, named: [] };
/** Failures of checks that name no risk. */
const unnamed = (...errors: Error[]): PreconditionFailure[] => errors.map((error) => ({ error }));

test("summarize: nothing, a plain error, forced, a precondition error, several", () => {
  assert.deepEqual(summarizePreconditions([], NONE), { block: false, results: [] });
  const one = summarizePreconditions(unnamed(new Error("random error")), NONE);
  assert.deepEqual(
    [one.block, one.error?.message, one.error?.reason, one.error?.objectName],
    [true, "random error", "UpgradePreconditionCheckFailed", "PreconditionCheck"],
  );
  const forced = summarizePreconditions(unnamed(new Error("random error")), FORCE);
  assert.deepEqual([forced.block, forced.error?.message], [false, "Forced through blocking failures: random error"]);
  const gate = new PreconditionError("NotAllowedFeatureGateSet", "Feature Gate TechPreviewNoUpgrade is set", "FeatureGate");
  assert.equal(
    summarizePreconditions(unnamed(gate), NONE).error?.message,
    'Precondition "FeatureGate" failed because of "NotAllowedFeatureGateSet": Feature Gate TechPreviewNoUpgrade is set',
  );
  assert.equal(
    summarizePreconditions(unnamed(gate, new Error("random error")), NONE).error?.message,
    'Multiple precondition checks failed:\n* Precondition "FeatureGate" failed because of "NotAllowedFeatureGateSet": Feature Gate TechPreviewNoUpgrade is set\n* random error',
  );
});

test("summarize: warnings do not block, a blocking result forced through becomes a warning", () => {
  const warning = new PreconditionError("InvalidCurrentVersion", "bad current", "ClusterVersionRollback", undefined, true);
  const blocking = new PreconditionError("LowDesiredVersion", "too low", "ClusterVersionRollback");
  assert.deepEqual(summarizePreconditions(unnamed(warning), NONE).block, false);
  assert.equal(
    summarizePreconditions(unnamed(warning), FORCE).error?.message,
    'Precondition "ClusterVersionRollback" failed because of "InvalidCurrentVersion": bad current',
    "a warning is never 'forced'",
  );
  assert.equal(summarizePreconditions(unnamed(warning, blocking), NONE).block, true, "one blocking failure blocks");
  const forced = summarizePreconditions(unnamed(warning, blocking), FORCE);
  assert.equal(forced.block, false);
  assert.match(forced.error?.message ?? "", /^Forced through blocking failures: Multiple precondition checks failed:/);
});

test("summarize: every failure is a result with its blocking nature, forced or not", () => {
  const warning = new PreconditionError("InvalidCurrentVersion", "bad current", "ClusterVersionRollback", undefined, true);
  const blocking = new PreconditionError("LowDesiredVersion", "too low", "ClusterVersionRollback");
  const want = [
    { name: "ClusterVersionRollback", reason: "InvalidCurrentVersion", message: "bad current", blocking: false },
    { name: "ClusterVersionRollback", reason: "LowDesiredVersion", message: "too low", blocking: true },
    { name: "", reason: "", message: "random error", blocking: true },
  ];
  assert.deepEqual(summarizePreconditions(unnamed(warning, blocking, new Error("random error")), NONE).results, want);
  assert.deepEqual(
    summarizePreconditions(unnamed(warning, blocking, new Error("random error")), FORCE).results,
    want.map((r) => (r.blocking ? { ...r, accepted: true } : r)),
    "force accepts a blocking result, it does not change its nature",
  );
});

test("summarize: named risks pass only the checks they name; a refusal names the risks that would pass it", () => {
  const hop: PreconditionFailure = { error: new PreconditionError("MultipleMinorVersionsUpdate", "too far", "ClusterVersionGiantHop"), risk: "GiantHop" };
  const gate: PreconditionFailure = {
    error: new PreconditionError("AdminAckRequired", "ack first", "ClusterVersionUpgradeable"),
    risk: "ClusterVersionUpgradeable",
  };
  const custom: PreconditionFailure = { error: new PreconditionError("CheckFailure", "custom", "Custom") };

  const some = summarizePreconditions([hop, gate], { force: false, named: ["GiantHop"] });
  assert.equal(some.block, true, "one risk is not accepted");
  assert.match(
    some.error?.message ?? "",
    /\nto apply it anyway, accept the risk ClusterVersionUpgradeable \(accept_risks; --accept-risk in the CLI\) or force the update \(every risk\)$/,
  );
  assert.deepEqual(
    some.results.map((r) => [r.risk, r.accepted]),
    [
      ["GiantHop", true],
      ["ClusterVersionUpgradeable", undefined],
    ],
  );

  const all = summarizePreconditions([hop, gate], { force: false, named: ["ClusterVersionUpgradeable", "GiantHop"] });
  assert.equal(all.block, false);
  assert.match(
    all.error?.message ?? "",
    /^Accepted risks GiantHop, ClusterVersionUpgradeable: Multiple precondition checks failed:\n\* Precondition "ClusterVersionGiantHop"/,
  );
  assert.doesNotMatch(all.error?.message ?? "", /to apply it anyway/);

  const unnamedCheck = summarizePreconditions([hop, custom], { force: false, named: ["GiantHop"] });
  assert.equal(unnamedCheck.block, true, "a check with no risk name passes only when forced");
  assert.doesNotMatch(unnamedCheck.error?.message ?? "", /to apply it anyway/, "no name to offer");
  assert.equal(summarizePreconditions([hop, custom], FORCE).block, false);
});

test("summarize: one failure is the error's cause, several are only listed (upstream nests none)", () => {
  const one = new Error("one");
  assert.equal(summarizePreconditions(unnamed(one), NONE).error?.cause, one);
  assert.equal(summarizePreconditions(unnamed(one, new Error("two")), NONE).error?.cause, undefined);
});

test("the built-in checks carry their risk names", () => {
  const checks = builtInPreconditions(cluster(undefined));
  assert.deepEqual(
    checks.map((c) => [c.name, c.risk]),
    [
      ["ClusterVersionRollback", "Rollback"],
      ["ClusterVersionGiantHop", "GiantHop"],
      ["ClusterVersionUpgradeable", "ClusterVersionUpgradeable"],
    ],
  );
});

const cluster = (cv: ClusterVersionView | undefined): PreconditionCluster => ({ clusterVersion: async () => cv });
const signal = new AbortController().signal;
const entry = (state: "Completed" | "Partial", version: string, image = `img:${version}`) => ({ state, version, image });
const view = (desired: string, history: ReturnType<typeof entry>[], extra: Partial<ClusterVersionView> = {}): ClusterVersionView => ({
  desired: { version: desired, image: `img:${desired}` },
  history,
  overridesUnmanaged: false,
  ...extra,
});
const notUpgradeable = { upgradeable: { status: "False", reason: "bla", message: "set to false" } };
const updating = { progressing: { status: "True", reason: "", message: "" } };

/** What a run gives: pass, or the reason and whether it blocks. */
async function outcome(p: Precondition, desiredVersion: string): Promise<string> {
  const err = await p.run({ desiredVersion }, signal);
  if (!err) return "pass";
  assert.ok(err instanceof PreconditionError);
  return `${err.nonBlockingWarning ? "warn" : "block"} ${err.reason}: ${err.message}`;
}

for (const tc of [
  { name: "no ClusterVersion", cv: undefined, desired: "4.2.0", want: "pass" },
  { name: "no condition", cv: view("4.1.0", [entry("Completed", "4.1.0")]), desired: "4.2.0", want: "pass" },
  {
    name: "Upgradeable=True",
    cv: view("4.1.0", [entry("Completed", "4.1.0")], { upgradeable: { status: "True", reason: "", message: "" } }),
    desired: "4.2.0",
    want: "pass",
  },
  {
    name: "Upgradeable=Unknown",
    cv: view("4.1.0", [entry("Completed", "4.1.0")], { upgradeable: { status: "Unknown", reason: "", message: "" } }),
    desired: "4.2.0",
    want: "pass",
  },
  {
    name: "minor update with Upgradeable=False",
    cv: view("4.1.0", [entry("Completed", "4.1.0")], notUpgradeable),
    desired: "4.2.0",
    want: "block bla: set to false",
  },
  {
    name: "major update with Upgradeable=False",
    cv: view("4.1.0", [entry("Completed", "4.1.0")], notUpgradeable),
    desired: "5.0.0",
    want: "block bla: set to false",
  },
  { name: "patch update with Upgradeable=False", cv: view("4.1.3", [entry("Completed", "4.1.3")], notUpgradeable), desired: "4.1.4", want: "pass" },
  {
    name: "the target is read from status.desired, not from history",
    cv: view("4.2.0", [entry("Partial", "4.2.0"), entry("Completed", "4.1.0")], notUpgradeable),
    desired: "4.2.1",
    want: "pass",
  },
  { name: "moving back is the Rollback check's business", cv: view("4.2.0", [entry("Completed", "4.2.0")], notUpgradeable), desired: "4.1.0", want: "pass" },
  {
    name: "patch update with overrides set: a warning",
    cv: view("4.1.3", [entry("Completed", "4.1.3")], { ...notUpgradeable, overridesUnmanaged: true }),
    desired: "4.1.4",
    want: "warn ClusterVersionOverridesSet: Retarget from 4.1.3 to 4.1.4 is not blocked by ClusterVersionOverridesSet. But the cluster-version operator is not managing these resources; they are currently the responsibility of the agent that set the overrides: Disabling ownership via cluster version overrides prevents upgrades between minor or major versions. Please remove overrides before requesting a minor or major version update.",
  },
  {
    name: "y-then-z: a patch retarget during a minor update is a warning",
    cv: view("4.2.0", [entry("Partial", "4.2.0"), entry("Completed", "4.1.0")], { ...notUpgradeable, ...updating }),
    desired: "4.2.1",
    want: "warn MinorVersionClusterUpdateInProgress: Retarget to 4.2.1 while a minor version update from 4.1.0 to 4.2.0 is in progress",
  },
  {
    name: "x-then-z: a patch retarget during a major update is a warning",
    cv: view("5.0.0", [entry("Partial", "5.0.0"), entry("Completed", "4.22.0")], { ...notUpgradeable, ...updating }),
    desired: "5.0.1",
    want: "warn MajorVersionClusterUpdateInProgress: Retarget to 5.0.1 while a major version update from 4.22.0 to 5.0.0 is in progress",
  },
  {
    name: "a patch retarget after the minor update completed",
    cv: view("4.2.0", [entry("Completed", "4.2.0"), entry("Completed", "4.1.0")], notUpgradeable),
    desired: "4.2.1",
    want: "pass",
  },
  {
    name: "a current target that is not SemVer only warns",
    cv: view("4.2", [], notUpgradeable),
    desired: "4.2.1",
    want: "warn InvalidCurrentVersion: No Major.Minor.Patch elements found",
  },
  {
    name: "a desired version that is not SemVer blocks",
    cv: view("4.2.0", [], notUpgradeable),
    desired: "4.3",
    want: "block InvalidDesiredVersion: No Major.Minor.Patch elements found",
  },
  // Upstream asks for the condition before it parses any version: a cluster with no desired version passes.
  { name: "no Upgradeable=False and no current target: no result", cv: view("", []), desired: "4.2.1", want: "pass" },
  { name: "no Upgradeable=False and a desired version that is not SemVer: no result", cv: view("4.2.0", []), desired: "4.3", want: "pass" },
] as const) {
  test(`ClusterVersionUpgradeable: ${tc.name}`, async () => assert.equal(await outcome(clusterVersionUpgradeable(cluster(tc.cv)), tc.desired), tc.want));
}

for (const tc of [
  { name: "forward", cv: view("4.1.0", [entry("Completed", "4.1.0")]), desired: "4.1.1", want: "pass" },
  { name: "same version", cv: view("4.1.0", [entry("Completed", "4.1.0")]), desired: "4.1.0", want: "pass" },
  {
    name: "back to the previous version in the z-stream",
    cv: view("4.1.1", [entry("Partial", "4.1.1"), entry("Completed", "4.1.0")]),
    desired: "4.1.0",
    want: "pass",
  },
  {
    name: "back past the previous version",
    cv: view("4.1.2", [entry("Partial", "4.1.2"), entry("Completed", "4.1.1")]),
    desired: "4.1.0",
    want: "block LowDesiredVersion: 4.1.0 is less than the current target 4.1.2, and the only supported rollback is to the cluster's previous version 4.1.1 (img:4.1.1)",
  },
  {
    name: "back across a minor version",
    cv: view("4.2.0", [entry("Partial", "4.2.0"), entry("Completed", "4.1.0")]),
    desired: "4.1.0",
    want: "block LowDesiredVersion: 4.1.0 is less than the current target 4.2.0 and matches the cluster's previous version, but rollbacks that change major or minor versions are not recommended",
  },
  {
    name: "no previous version",
    cv: view("4.1.1", [entry("Completed", "4.1.1")]),
    desired: "4.1.0",
    want: "block LowDesiredVersion: 4.1.0 is less than the current target 4.1.1, and the cluster has no previous Semantic Version",
  },
  {
    name: "a prerelease is lower than its release",
    cv: view("4.1.0", [entry("Completed", "4.1.0")]),
    desired: "4.1.0-rc.1",
    want: "block LowDesiredVersion: 4.1.0-rc.1 is less than the current target 4.1.0, and the cluster has no previous Semantic Version",
  },
] as const) {
  test(`ClusterVersionRollback: ${tc.name}`, async () => assert.equal(await outcome(rollback(cluster(tc.cv)), tc.desired), tc.want));
}

for (const tc of [
  { name: "next minor", current: "4.1.0", desired: "4.2.0", want: "pass" },
  { name: "patch", current: "4.1.0", desired: "4.1.9", want: "pass" },
  {
    name: "two minors",
    current: "4.1.0",
    desired: "4.3.0",
    want: "block MultipleMinorVersionsUpdate: 4.3.0 is more than one minor version beyond the current target 4.1.0 (4.3 > 4.(1+1)), and only updates within the current minor version or to the next minor version are supported.",
  },
  { name: "4 to 5.0", current: "4.22.0", desired: "5.0.0", want: "pass" },
  {
    name: "4 to 5.1",
    current: "4.22.0",
    desired: "5.1.0",
    want: "block MajorVersionUpdate: 5.1.0 has a larger major version than the current target 4.22.0 (5 > 4), and only updates within the current major version or to 5.0 are supported.",
  },
  {
    name: "5 to 6.0",
    current: "5.3.0",
    desired: "6.0.0",
    want: "block MajorVersionUpdate: 6.0.0 has a larger major version than the current target 5.3.0 (6 > 5), and only updates within the current major version are supported.",
  },
] as const) {
  test(`ClusterVersionGiantHop: ${tc.name}`, async () =>
    assert.equal(await outcome(giantHop(cluster(view(tc.current, [entry("Completed", tc.current)]))), tc.desired), tc.want));
}

test("the built-in preconditions are upstream's, in its order", () => {
  assert.deepEqual(
    builtInPreconditions(cluster(undefined)).map((p) => p.name),
    ["ClusterVersionRollback", "ClusterVersionGiantHop", "ClusterVersionUpgradeable"],
  );
});

test("an unreadable ClusterVersion fails each check with UnknownError", async () => {
  const broken: PreconditionCluster = { clusterVersion: async () => Promise.reject(new Error("connection refused")) };
  for (const p of builtInPreconditions(broken)) assert.equal(await outcome(p, "4.2.0"), "block UnknownError: connection refused");
});
