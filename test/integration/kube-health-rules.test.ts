// `--health-rules` against the harness's real kube-apiserver: a payload brings a CRD and one custom resource whose
// status the test moves through absent, in progress, failed and current; the update waits naming the rule, fails
// with HealthRuleFailed, and completes once the rule's current expression holds.
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
const RULES = `rules:
  - group: example.com
    kind: Widget
    inProgress: "status.?phase.orValue('') == 'Provisioning'"
    failed: "status.?phase.orValue('') == 'Broken'"
    current: "status.?phase.orValue('') == 'Running' && status.?observedGeneration.orValue(0) == metadata.generation"
`;

let cp: ControlPlane;
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
