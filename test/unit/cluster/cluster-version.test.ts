import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { test } from "node:test";
import { parse } from "yaml";
import { schemaCapabilities } from "../../../src/cluster/kube/cluster-version.js";
import type { KubeObject } from "../../../src/payload/manifest.js";
import { FIXTURES } from "../../harness/server.js";

test("the ClusterVersion view lists only the capabilities the cluster's schema accepts, as real-a's 4.16 CRD defines them", async () => {
  const crd = parse(await readFile(join(FIXTURES, "real-a/manifests/0000_00_cluster-version-operator_01_clusterversion-Default.crd.yaml"), "utf8")) as KubeObject;
  const accepted = schemaCapabilities(crd);
  assert.ok(accepted, "the 4.16 schema lists its capabilities");
  assert.ok(accepted.has("MachineAPI") && accepted.has("openshift-samples"));
  assert.equal(accepted.has("OperatorLifecycleManagerV1"), false, "a capability added after 4.16 is not in its schema");
  assert.equal(schemaCapabilities(undefined), undefined, "no CRD: nothing to limit by");
  assert.equal(schemaCapabilities({ apiVersion: "apiextensions.k8s.io/v1", kind: "CustomResourceDefinition", spec: { versions: [{ name: "v1", schema: { openAPIV3Schema: {} } }] } }), undefined, "a schema without a list accepts any name");
});
