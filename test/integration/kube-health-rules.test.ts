// `--health-rules` against the harness's real kube-apiserver: a payload brings a CRD and one custom resource whose
// status the test moves through absent, in progress, failed and current; the update waits naming the rule, fails
// with HealthRuleFailed, and completes once the rule's current expression holds. Then a payload's own rules
// (`release-manifests/health-rules`): one for a kind of its own is followed, one for the kind the server's file
// names is not; a payload whose rules do not compile is refused at LoadPayload, naming the file and the rule.
import assert from "node:assert/strict";
import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ComponentState, type SyncWorkerStatus } from "@syncworker/client/gen/syncworker/v1/syncworker";
import { startControlPlane, type ControlPlane } from "../harness/control-plane.js";
import { writePayload } from "../harness/payload-gen.js";
import { startServer, type ServerProcess } from "../harness/server.js";
import { tierTests } from "../harness/tiers.js";

const { after, before, test } = tierTests("kube", "tls");

/** The payload's manifests are for the default cluster profile, as a release's are. */
const INCLUDE = { "include.release.openshift.io/self-managed-high-availability": "true" };
const CRD = {
  apiVersion: "apiextensions.k8s.io/v1",
  kind: "CustomResourceDefinition",
  metadata: { name: "widgets.example.com", annotations: INCLUDE },
  spec: {
    group: "example.com",
    scope: "Namespaced",
    names: { plural: "widgets", singular: "widget", kind: "Widget", listKind: "WidgetList" },
    versions: [
      {
        name: "v1",
        served: true,
        storage: true,
        subresources: { status: {} },
        schema: { openAPIV3Schema: { type: "object", "x-kubernetes-preserve-unknown-fields": true } },
      },
    ],
  },
};
const NAMESPACE = { apiVersion: "v1", kind: "Namespace", metadata: { name: "widgets", annotations: INCLUDE } };
const WIDGET = { apiVersion: "example.com/v1", kind: "Widget", metadata: { name: "w", namespace: "widgets", annotations: INCLUDE }, spec: { size: 3 } };
const GADGET_CRD = {
  ...CRD,
  metadata: { ...CRD.metadata, name: "gadgets.example.com" },
  spec: { ...CRD.spec, names: { plural: "gadgets", singular: "gadget", kind: "Gadget", listKind: "GadgetList" } },
};
const GADGET = { ...WIDGET, kind: "Gadget", metadata: { ...WIDGET.metadata, name: "g" } };
/** A payload's own rules: one for its Gadget, and one for Widget that the server's file overrides (it never holds). */
const PAYLOAD_RULES = `rules:
  - group: example.com
    kind: Gadget
    current: "status.?ready.orValue(false)"
  - group: example.com
    kind: Widget
    current: "false"
`;
const RULES = `rules:
  - group: example.com
    kind: Widget
    inProgress: "status.?phase.orValue('') == 'Provisioning'"
    failed: "status.?phase.orValue('') == 'Broken'"
    current: "status.?phase.orValue('') == 'Running' && status.?observedGeneration.orValue(0) == metadata.generation"
`;

let cp: ControlPlane;
let payloadA = "";
let server: ServerProcess | undefined;
before(async () => (cp = await startControlPlane()), { timeout: 90 * 60_000 });
after(async () => {
  await server?.stop();
  await cp?.stop();
});

async function watchUntil(predicate: (s: SyncWorkerStatus) => boolean, timeoutMs: number): Promise<SyncWorkerStatus> {
  assert.ok(server);
  let last: SyncWorkerStatus | undefined;
  try {
    for await (const status of server.client.watchStatus({ signal: AbortSignal.timeout(timeoutMs) })) {
      last = status;
      if (predicate(status)) return status;
    }
  } catch {
    // the timeout; reported below
  }
  assert.fail(
    `no matching status; last: ${JSON.stringify({ failure: last?.failure, load: last?.loadPayloadStatus, done: last?.done, total: last?.total })}\n${server.stderr().slice(-3000)}`,
  );
}

test("a custom resource's health follows the rule: in progress, failed, then current", { timeout: 300_000 }, async () => {
  const work = await mkdtemp(join(tmpdir(), "syncworker-health-"));
  const payload = join(work, "payload");
  payloadA = payload;
  await writePayload(payload, "1.0.0", [
    { file: "0000_05_widgets_00_crd.yaml", obj: CRD },
    { file: "0000_50_widgets_00_namespace.yaml", obj: NAMESPACE },
    { file: "0000_50_widgets_01_widget.yaml", obj: WIDGET },
  ]);
  const rules = join(work, "rules.yaml");
  await writeFile(rules, RULES);
  server = await startServer([
    "--kubeconfig",
    cp.kubeconfig,
    "--namespace",
    "syncworker-health",
    "--health-rules",
    rules,
    "--reconcile-interval",
    "20s",
    "--backoff-steps",
    "2",
  ]);
  await server.client.update({ generation: 1, desired: { image: payload } });

  const absent = await watchUntil((s) => s.failure?.reason === "HealthRuleInProgress", 120_000);
  assert.match(
    absent.failure?.message ?? "",
    /Widget widgets\/w is in progress by health rule example\.com\/Widget \(.*rules\.yaml rules\[0\]\): current is not yet true/,
  );
  assert.ok(
    absent.components.some((c) => c.state === ComponentState.COMPONENT_STATE_WAITING && c.waitReason === "HealthRuleInProgress"),
    "the component waits on the rule",
  );

  await cp.api.patchStatus("example.com/v1", "Widget", "widgets", "w", { phase: "Provisioning" });
  const provisioning = await watchUntil((s) => /inProgress: status/.test(s.failure?.message ?? ""), 120_000);
  assert.equal(provisioning.failure?.reason, "HealthRuleInProgress");

  await cp.api.patchStatus("example.com/v1", "Widget", "widgets", "w", { phase: "Broken" });
  const broken = await watchUntil((s) => s.failure?.reason === "HealthRuleFailed", 120_000);
  assert.match(broken.failure?.message ?? "", /Widget widgets\/w failed by health rule example\.com\/Widget .*: failed: status\.\?phase/);

  const live = await cp.api.get("example.com/v1", "Widget", "widgets", "w");
  const generation = (live?.metadata as { generation?: number } | undefined)?.generation ?? 1;
  await cp.api.patchStatus("example.com/v1", "Widget", "widgets", "w", { phase: "Running", observedGeneration: generation });
  const done = await watchUntil((s) => s.completed >= 1 && !s.failure && s.actual?.image === payload, 120_000);
  assert.equal(done.done, done.total);
});

test("a payload's own rules: followed for its kinds, under the server's file; rules that do not compile refuse the payload", { timeout: 300_000 }, async () => {
  assert.ok(server && payloadA, "runs after the server's rules test");
  const work = await mkdtemp(join(tmpdir(), "syncworker-health-"));
  const broken = join(work, "broken");
  await writePayload(broken, "1.0.1", [{ file: "0000_50_widgets_01_widget.yaml", obj: WIDGET }]);
  await writeFile(join(broken, "release-manifests/health-rules"), 'rules:\n  - group: example.com\n    current: "status.ready =="\n');
  await server.client.update({ generation: 2, desired: { image: broken } });
  const refused = await watchUntil((s) => s.loadPayloadStatus?.failure !== undefined, 120_000);
  assert.equal(refused.loadPayloadStatus?.step, "LoadPayload");
  assert.equal(refused.loadPayloadStatus?.failure?.reason, "HealthRulesInvalid");
  assert.match(refused.loadPayloadStatus?.failure?.message ?? "", /^release-manifests\/health-rules: rules\[0\]\.current: .*: status\.ready ==$/);
  assert.equal(refused.actual?.image, payloadA, "the release in effect stays");

  const payload = join(work, "payload");
  await writePayload(payload, "1.0.2", [
    { file: "0000_05_widgets_00_crd.yaml", obj: CRD },
    { file: "0000_05_widgets_01_crd.yaml", obj: GADGET_CRD },
    { file: "0000_50_widgets_00_namespace.yaml", obj: NAMESPACE },
    { file: "0000_50_widgets_01_widget.yaml", obj: WIDGET },
    { file: "0000_50_widgets_02_gadget.yaml", obj: GADGET },
  ]);
  await writeFile(join(payload, "release-manifests/health-rules"), PAYLOAD_RULES);
  await server.client.update({ generation: 3, desired: { image: payload } });
  const waiting = await watchUntil((s) => s.actual?.image === payload && s.failure?.reason === "HealthRuleInProgress", 120_000);
  assert.match(
    waiting.failure?.message ?? "",
    /^Gadget widgets\/g is in progress by health rule example\.com\/Gadget \(release-manifests\/health-rules rules\[0\]\): current is not yet true/,
    "the Widget passed by the server's rule, the Gadget waits on the payload's",
  );
  await cp.api.patchStatus("example.com/v1", "Gadget", "widgets", "g", { ready: true });
  const done = await watchUntil((s) => s.completed >= 1 && !s.failure && s.actual?.image === payload, 120_000);
  assert.equal(done.done, done.total);
});
