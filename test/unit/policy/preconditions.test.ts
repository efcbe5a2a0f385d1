import assert from "node:assert/strict";
import { test } from "node:test";
import {
  clusterVersionUpgradeable,
  etcdRecentBackup,
  PreconditionError,
  summarizePreconditions,
  type ClusterVersionView,
  type PreconditionCluster,
} from "../../../src/policy/index.js";

test("summarize: nothing, a plain error, forced, a precondition error, several", () => {
  assert.deepEqual(summarizePreconditions([], false), { block: false });
  const one = summarizePreconditions([new Error("random error")], false);
  assert.deepEqual([one.block, one.error?.message, one.error?.reason, one.error?.objectName], [true, "random error", "UpgradePreconditionCheckFailed", "PreconditionCheck"]);
  const forced = summarizePreconditions([new Error("random error")], true);
  assert.deepEqual([forced.block, forced.error?.message], [false, "Forced through blocking failures: random error"]);
  const gate = new PreconditionError("NotAllowedFeatureGateSet", "Feature Gate TechPreviewNoUpgrade is set", "FeatureGate");
  assert.equal(summarizePreconditions([gate], false).error?.message, 'Precondition "FeatureGate" failed because of "NotAllowedFeatureGateSet": Feature Gate TechPreviewNoUpgrade is set');
  assert.equal(
    summarizePreconditions([gate, new Error("random error")], false).error?.message,
    'Multiple precondition checks failed:\n* Precondition "FeatureGate" failed because of "NotAllowedFeatureGateSet": Feature Gate TechPreviewNoUpgrade is set\n* random error',
  );
});

const cluster = (cv: ClusterVersionView | undefined, etcd?: { status: string; reason: string; message: string } | "missing-operator"): PreconditionCluster => ({
  clusterVersion: async () => cv,
  clusterOperatorCondition: async () => etcd,
});
const signal = new AbortController().signal;
const completed = (version: string) => ({ state: "Completed" as const, version });

for (const tc of [
  { name: "no history and no condition", cv: { history: [], overridesUnmanaged: false }, desired: "4.2.0", pass: true },
  { name: "4.1 → 4.2 without a condition", cv: { history: [completed("4.1.0")], overridesUnmanaged: false }, desired: "4.2.0", pass: true },
  { name: "4.1 → 4.2 with Upgradeable=True", cv: { upgradeable: { status: "True", reason: "", message: "" }, history: [completed("4.1.0")], overridesUnmanaged: false }, desired: "4.2.0", pass: true },
  { name: "4.1 → 4.2 with Upgradeable=Unknown", cv: { upgradeable: { status: "Unknown", reason: "", message: "" }, history: [completed("4.1.0")], overridesUnmanaged: false }, desired: "4.2.0", pass: true },
  { name: "4.1 → 4.2 with Upgradeable=False", cv: { upgradeable: { status: "False", reason: "bla", message: "set to false" }, history: [completed("4.1.0")], overridesUnmanaged: false }, desired: "4.2.0", pass: false },
  { name: "4.1.3 → 4.1.4 with Upgradeable=False", cv: { upgradeable: { status: "False", reason: "bla", message: "set to false" }, history: [completed("4.1.3")], overridesUnmanaged: false }, desired: "4.1.4", pass: true },
  { name: "a z-stream with unmanaged overrides", cv: { upgradeable: { status: "False", reason: "bla", message: "" }, history: [completed("4.1.3")], overridesUnmanaged: true }, desired: "4.1.4", pass: false },
] as const) {
  test(`ClusterVersionUpgradeable: ${tc.name}`, async () => {
    const err = await clusterVersionUpgradeable(cluster(tc.cv)).run({ desiredVersion: tc.desired }, signal);
    assert.equal(err === undefined, tc.pass, String(err));
  });
}

test("EtcdRecentBackup: only minor upgrades need a recent backup", async () => {
  const cv = { history: [completed("4.1.0")], overridesUnmanaged: false };
  assert.equal(await etcdRecentBackup(cluster(cv)).run({ desiredVersion: "4.1.5" }, signal), undefined);
  const unset = await etcdRecentBackup(cluster(cv)).run({ desiredVersion: "4.2.0" }, signal);
  assert.ok(unset instanceof PreconditionError && unset.reason === "EtcdRecentBackupNotSet");
  const failing = await etcdRecentBackup(cluster(cv, { status: "False", reason: "UpgradeBackupInProgress", message: "backing up" })).run({ desiredVersion: "4.2.0" }, signal);
  assert.ok(failing instanceof PreconditionError && failing.message === "RecentBackup: backing up");
  assert.equal(await etcdRecentBackup(cluster(cv, { status: "False", reason: "", message: "" })).run({ desiredVersion: "4.2.0" }, signal), undefined, "upstream quirk");
  assert.equal(await etcdRecentBackup(cluster(cv, { status: "True", reason: "Done", message: "" })).run({ desiredVersion: "4.2.0" }, signal), undefined);
});
