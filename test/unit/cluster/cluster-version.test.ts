import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { test } from "node:test";
import { parse } from "yaml";
import { clusterVersionStatus, schemaCapabilities } from "../../../src/cluster/kube/cluster-version.js";
import type { KubeObject } from "../../../src/payload/manifest.js";
import type { PersistedState } from "../../../src/service/index.js";
import { EMPTY_STATUS } from "../../../src/worker/index.js";
import { realPayload, skipRealPayloads } from "../../harness/tiers.js";

test(
  "the ClusterVersion view lists only the capabilities the cluster's schema accepts, as real-a's 4.16 CRD defines them",
  { skip: skipRealPayloads },
  async () => {
    const crd = parse(
      await readFile(join(realPayload("real-a"), "manifests/0000_00_cluster-version-operator_01_clusterversion-Default.crd.yaml"), "utf8"),
    ) as KubeObject;
    const accepted = schemaCapabilities(crd);
    assert.ok(accepted, "the 4.16 schema lists its capabilities");
    assert.ok(accepted.has("MachineAPI") && accepted.has("openshift-samples"));
    assert.equal(accepted.has("OperatorLifecycleManagerV1"), false, "a capability added after 4.16 is not in its schema");
    assert.equal(schemaCapabilities(undefined), undefined, "no CRD: nothing to limit by");
    assert.equal(
      schemaCapabilities({
        apiVersion: "apiextensions.k8s.io/v1",
        kind: "CustomResourceDefinition",
        spec: { versions: [{ name: "v1", schema: { openAPIV3Schema: {} } }] },
      }),
      undefined,
      "a schema without a list accepts any name",
    );
  },
);

test("the ClusterVersion view's desired release names the architecture only for a multi-architecture payload", () => {
  const state = (architecture: string): PersistedState => ({
    writer: "w",
    savedAt: new Date(0),
    revision: { published: 1, reserved: 1 },
    spec: {
      generation: 1,
      desired: { version: "4.16.1", image: "/payloads/b", force: false },
      overrides: [],
      capabilities: { baselineCapabilitySet: "vCurrent", additionalEnabledCapabilities: [] },
      state: undefined,
    },
    status: { ...EMPTY_STATUS, architecture, actual: { version: "4.16.1", image: "/payloads/b", url: "", channels: [] } },
    clusterVersion: { conditions: [], history: [], message: "" },
  });
  assert.deepEqual(clusterVersionStatus(state("Multi"), 1)["desired"], { version: "4.16.1", image: "/payloads/b", architecture: "Multi" });
  assert.deepEqual(clusterVersionStatus(state("amd64"), 1)["desired"], { version: "4.16.1", image: "/payloads/b" });
});
