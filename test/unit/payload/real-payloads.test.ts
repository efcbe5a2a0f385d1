import { test } from "node:test";
import assert from "node:assert/strict";
import { manifestHash } from "../../../src/payload/hash.js";
import { annotationsOf, exclusionReason, KNOWN_FEATURE_SETS } from "../../../src/payload/include.js";
import { loadTimeFilter, loadUpdate, type LoadOptions } from "../../../src/payload/load.js";
import { nodePayloadFs } from "../../../src/retrieval/node-fs.js";
import type { Manifest, PayloadUpdate } from "../../../src/payload/manifest.js";
import { KNOWN_CAPABILITIES } from "../../../src/policy/capabilities.js";
import { ORACLE_IMAGE, REAL_A, REAL_B, REVISION_CAPS, skipRealPayloads } from "./helpers.js";

// The CVO's defaults: no exclusion id, profile self-managed-high-availability, feature set Default, and
// every known capability (known = enabled at load time).
const DEFAULTS: LoadOptions = { knownCapabilities: KNOWN_CAPABILITIES, architecture: "amd64" };

interface Loaded {
  readonly update: PayloadUpdate;
  /** Every parsed manifest in load order, included or not. */
  readonly all: readonly Manifest[];
  readonly reasons: readonly string[];
}

async function load(dir: string, opts: Partial<LoadOptions> = {}): Promise<Loaded> {
  const all: Manifest[] = [];
  const reasons: string[] = [];
  const update = await loadUpdate(
    dir,
    ORACLE_IMAGE,
    {
      ...DEFAULTS,
      ...opts,
      onManifest: (m, reason) => {
        all.push(m);
        if (reason !== undefined) reasons.push(reason);
      },
    },
    nodePayloadFs,
  );
  return { update, all, reasons };
}

const loads = new Map<string, Promise<Loaded>>();
/** One default load per payload, shared by the tests below (a load takes a few hundred ms). */
const loaded = (dir: string): Promise<Loaded> => {
  let l = loads.get(dir);
  if (!l) loads.set(dir, (l = load(dir)));
  return l;
};

const PAYLOADS = [
  { name: "real-a", dir: REAL_A, version: "4.16.0", count: 267, total: 300, hash: "9MJKT3_LNLo=" },
  { name: "real-b", dir: REAL_B, version: "4.16.1", count: 267, total: 301, hash: "t0wgKEODSbM=" },
];

for (const p of PAYLOADS) {
  test(`${p.name} with the CVO's defaults: ${p.count} of ${p.total} manifests, Go's hash`, { skip: skipRealPayloads }, async () => {
    const { update, all, reasons } = await loaded(p.dir);
    assert.equal(update.release.version, p.version);
    assert.equal(update.manifests.length, p.count);
    assert.equal(all.length, p.total);
    assert.equal(reasons.length, p.total - p.count);
    assert.equal(update.manifestHash, p.hash);
    // What excluded them: 12 + 4 by profile, the rest by a feature set other than Default.
    const by = (prefix: string): number => reasons.filter((r) => r.startsWith(prefix)).length;
    assert.equal(by("include.release.openshift.io/self-managed-high-availability unset"), 12);
    assert.equal(by("unrecognized value include.release.openshift.io/self-managed-high-availability="), 4);
    assert.equal(by('"Default" is required, and release.openshift.io/feature-set='), p.total - p.count - 16);
  });

  test(`${p.name}: first and last task in load order`, { skip: skipRealPayloads }, async () => {
    const { update } = await loaded(p.dir);
    const brief = (m: Manifest | undefined): string => `${m?.originalFilename} ${m?.obj.kind} ${m?.obj.metadata?.namespace ?? ""}/${m?.obj.metadata?.name}`;
    assert.equal(brief(update.manifests[0]), "0000_00_cluster-version-operator_00_namespace.yaml Namespace /openshift-cluster-version");
    assert.equal(brief(update.manifests[1]), "0000_00_cluster-version-operator_01_adminack_configmap.yaml ConfigMap openshift-config/admin-acks");
    assert.equal(
      brief(update.manifests.at(-1)),
      "0000_90_kube-apiserver-operator_05_api_performance_dashboard.yaml ConfigMap openshift-config-managed/grafana-dashboard-api-performance",
    );
    // manifests/ (the CVO's own, rendered) first, then release-manifests/, each in file-name order: the
    // file names descend exactly once, where the second directory starts.
    const names = update.manifests.map((m) => m.originalFilename);
    const descents = names.flatMap((n, i) => (i > 0 && n < (names[i - 1] ?? "") ? [i] : []));
    assert.equal(descents.length, 1);
    assert.deepEqual(
      [names[(descents[0] ?? 0) - 1], names[descents[0] ?? 0]],
      ["0000_90_cluster-version-operator_02_servicemonitor.yaml", "0000_00_config-operator_00_namespace.yaml"],
    );
    const deployment = update.manifests.find((m) => m.obj.kind === "Deployment" && m.obj.metadata?.name === "cluster-version-operator");
    assert.match(deployment?.raw ?? "", /"image":"quay.io\/test\/release@sha256:abc"/);
  });

  test(`${p.name}: the annotations in the files are honored`, { skip: skipRealPayloads }, async () => {
    const { update } = await loaded(p.dir);
    for (const m of update.manifests) {
      const a = annotationsOf(m.obj) ?? {};
      assert.equal(a["include.release.openshift.io/self-managed-high-availability"], "true", m.originalFilename);
      const sets = a["release.openshift.io/feature-set"];
      if (sets !== undefined) assert.ok(sets.split(",").includes("Default"), m.originalFilename);
      for (const cap of (a["capability.openshift.io/name"] ?? "").split("+").filter(Boolean)) assert.ok(KNOWN_CAPABILITIES.includes(cap), cap);
    }
  });
}

test("the hash is stable across loads, differs between real-a and real-b, and depends on the release image", { skip: skipRealPayloads }, async () => {
  const a = await loaded(REAL_A);
  const again = await load(REAL_A);
  assert.equal(again.update.manifestHash, a.update.manifestHash);
  assert.deepEqual(
    again.update.manifests.map((m) => m.raw),
    a.update.manifests.map((m) => m.raw),
  );
  const b = await loaded(REAL_B);
  assert.notEqual(b.update.manifestHash, a.update.manifestHash);
  const other = await loadUpdate(REAL_A, "quay.io/other@sha256:def", DEFAULTS, nodePayloadFs);
  assert.notEqual(other.manifestHash, a.update.manifestHash);
});

// Counts and hashes per filter setting, from a Go oracle: the seed revision's payload.LoadUpdate (vendored
// library-go) with later upstream's checkFeatureSets and an enabled-capabilities check added as filters.
type Setting = { name: string; opts: Partial<LoadOptions>; a: [number, string]; b: [number, string] };
const SETTINGS: Setting[] = [
  { name: "defaults, feature set spelled Default", opts: { featureSet: "Default" }, a: [267, "9MJKT3_LNLo="], b: [267, "t0wgKEODSbM="] },
  { name: "profile single-node-developer", opts: { clusterProfile: "single-node-developer" }, a: [208, "UdB_Dw9vc3g="], b: [206, "6RH8-nSYEBw="] },
  { name: "profile ibm-cloud-managed", opts: { clusterProfile: "ibm-cloud-managed" }, a: [233, "ZdpiDsB1AdE="], b: [233, "LMulw3-zpTE="] },
  { name: "profile hypershift", opts: { clusterProfile: "hypershift" }, a: [91, "P8BwBf4V7Fg="], b: [91, "IG33WNioTcc="] },
  { name: "feature set TechPreviewNoUpgrade", opts: { featureSet: "TechPreviewNoUpgrade" }, a: [268, "oZMj4YesI_Q="], b: [268, "Dky1J-W63C0="] },
  { name: "feature set DevPreviewNoUpgrade", opts: { featureSet: "DevPreviewNoUpgrade" }, a: [267, "gIllxDIHHwE="], b: [268, "ERw0iYJO-DU="] },
  { name: "feature set CustomNoUpgrade", opts: { featureSet: "CustomNoUpgrade" }, a: [268, "4b8GbAvnrJI="], b: [268, "JoVzdPAZnCk="] },
  {
    name: "TechPreviewNoUpgrade on single-node-developer",
    opts: { featureSet: "TechPreviewNoUpgrade", clusterProfile: "single-node-developer" },
    a: [208, "DODx___P27w="],
    b: [206, "6RH8-nSYEBw="],
  },
  {
    name: "TechPreviewNoUpgrade on ibm-cloud-managed",
    opts: { featureSet: "TechPreviewNoUpgrade", clusterProfile: "ibm-cloud-managed" },
    a: [234, "eJmkjuFRfhw="],
    b: [234, "em6xvjf8xwg="],
  },
  {
    name: "DevPreviewNoUpgrade on single-node-developer",
    opts: { featureSet: "DevPreviewNoUpgrade", clusterProfile: "single-node-developer" },
    a: [207, "J6oMAhTjZIQ="],
    b: [206, "6RH8-nSYEBw="],
  },
  {
    name: "CustomNoUpgrade on ibm-cloud-managed",
    opts: { featureSet: "CustomNoUpgrade", clusterProfile: "ibm-cloud-managed" },
    a: [234, "BigQCg67cTY="],
    b: [234, "RU6nEzXVAnw="],
  },
  { name: "exclude internal-openshift-hosted", opts: { exclude: "internal-openshift-hosted" }, a: [248, "szIK1u70xy0="], b: [248, "L9gN829v3vM="] },
  { name: "only the seed revision's three capabilities known", opts: { knownCapabilities: REVISION_CAPS }, a: [196, "5Vde5LwmFTA="], b: [196, "BQBwsvm33Ys="] },
  { name: "no capability enabled (baseline None)", opts: { enabledCapabilities: [] }, a: [196, "5Vde5LwmFTA="], b: [196, "BQBwsvm33Ys="] },
  { name: "only Console and Ingress enabled", opts: { enabledCapabilities: ["Console", "Ingress"] }, a: [228, "SV-bjIkVz9M="], b: [228, "FITHnKfkTvg="] },
];

// Each setting is applied to the manifests of one default load: nothing in manifests/ uses
// `.ClusterProfile`, so the parsed documents do not depend on the setting.
for (const s of SETTINGS) {
  test(`filter setting "${s.name}": real-a ${s.a[0]} of 300, real-b ${s.b[0]} of 301`, { skip: skipRealPayloads }, async () => {
    for (const [dir, [count, hash]] of [
      [REAL_A, s.a],
      [REAL_B, s.b],
    ] as const) {
      const { all } = await loaded(dir);
      const filter = loadTimeFilter({ ...DEFAULTS, ...s.opts });
      const included = all.filter((m) => exclusionReason(m, filter) === undefined);
      assert.deepEqual([included.length, manifestHash(included)], [count, hash], dir);
    }
  });
}

test("a full load under a non-default setting agrees with filtering the default load", { skip: skipRealPayloads }, async () => {
  const s = SETTINGS.find((x) => x.name === "TechPreviewNoUpgrade on ibm-cloud-managed");
  const { update } = await load(REAL_B, s?.opts);
  assert.deepEqual([update.manifests.length, update.manifestHash], s?.b);
});

test("every feature set named in the real payloads is a known one", { skip: skipRealPayloads }, async () => {
  const { all } = await loaded(REAL_A);
  const named = new Set(all.flatMap((m) => (annotationsOf(m.obj)?.["release.openshift.io/feature-set"] ?? "").split(",").filter(Boolean)));
  assert.deepEqual([...named].sort(), [...KNOWN_FEATURE_SETS]);
});
