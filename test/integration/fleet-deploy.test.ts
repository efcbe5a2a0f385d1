// deploy/fleet/ as `kubectl apply -k deploy/fleet/` hands it to a hub: kustomize renders it beside the service's
// deploy/, the harness's real kube-apiserver installs its CRDs and accepts every object under server-side dry-run
// with strict field validation, the examples apply, the CRDs' CEL rules refuse what they say they refuse (each
// refusal names the rule's message), and `kubectl get` prints a rollout's printer columns. Applied for real, the
// Deployment's own command line runs as its ServiceAccount with no rights but deploy/fleet's RBAC: it leads, writes a
// rollout's status, and answers FleetWatch only to a token whose user may watch the rollouts.
import assert from "node:assert/strict";
import { execFile, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import { parse, parseAllDocuments } from "yaml";
import { Code, FleetClient, SyncWorkerError, type FleetWatchResponse } from "@syncworker/client";
import { kubectlBinary, startControlPlane, type ControlPlane } from "../harness/control-plane.js";
import type { LiveObject, RestResponse } from "../harness/kube-rest.js";
import { REPO_ROOT, superviseServer, SYNCWORKER, type ServerProcess } from "../harness/server.js";
import { tierTests } from "../harness/tiers.js";

const { after, before, test } = tierTests("kube");

const run = promisify(execFile);
const FLEET = join(REPO_ROOT, "deploy/fleet");
const GROUP_VERSION = "fleet.syncworker.io/v1alpha1";

type DeployObject = LiveObject & { metadata: { name: string; namespace?: string; labels?: Record<string, string> } };
type Container = {
  name: string;
  image: string;
  args: string[];
  env?: Array<{ name: string; value?: string; valueFrom?: { fieldRef?: { fieldPath: string } } }>;
  ports: Array<{ name: string; containerPort: number }>;
  readinessProbe: { httpGet: unknown };
  livenessProbe: { httpGet: unknown };
  securityContext: unknown;
};
type DeploymentSpec = {
  replicas: number;
  selector: { matchLabels: Record<string, string> };
  template: { metadata: { labels: Record<string, string> }; spec: { serviceAccountName: string; securityContext: unknown; containers: Container[] } };
};

let cp: ControlPlane;
/** deploy/fleet rendered, and the service's deploy/ beside it. */
let objects: DeployObject[] = [];
let service: DeployObject[] = [];
/** The service's namespace (deploy/namespace.yaml), where the fleet controller runs too. */
let namespace = "";
/** `syncworker fleet` started with the Deployment's arguments. */
let hub: ServerProcess | undefined;

const render = async (dir: string): Promise<DeployObject[]> => {
  const { stdout } = await run(await kubectlBinary(), ["kustomize", dir], { maxBuffer: 16 << 20 });
  return parseAllDocuments(stdout).map((doc) => doc.toJSON() as DeployObject);
};

before(
  async () => {
    [objects, service] = [await render(FLEET), await render(join(REPO_ROOT, "deploy"))];
    namespace = (parse(await readFile(join(REPO_ROOT, "deploy/namespace.yaml"), "utf8")) as DeployObject).metadata.name;
    cp = await startControlPlane();
  },
  { timeout: 90 * 60_000 },
);
after(async () => {
  await hub?.stop();
  await cp?.stop();
});

const find = (kind: string, from = objects): DeployObject => {
  const found = from.find((o) => o.kind === kind);
  assert.ok(found, `it renders a ${kind}`);
  return found;
};
const deploymentOf = (from: DeployObject[]): DeploymentSpec => find("Deployment", from)["spec"] as DeploymentSpec;
const selects = (selector: Record<string, string>, labels: Record<string, string>): boolean => Object.entries(selector).every(([k, v]) => labels[k] === v);

/** Server-side apply as kubectl does, strict: see KubeRest.applyStrict. */
const apply = (obj: DeployObject, dryRun: boolean): Promise<void> => cp.api.applyStrict(obj, dryRun);

/** kubectl against the harness's API server, as its admin. */
async function kubectl(...args: string[]): Promise<string> {
  const { stdout } = await run(await kubectlBinary(), ["--kubeconfig", cp.kubeconfig, ...args], { maxBuffer: 16 << 20 });
  return stdout;
}

/** The CRDs installed for real and the fleet's namespace there; later tests use both. */
let installed: Promise<void> | undefined;
const install = (): Promise<void> =>
  (installed ??= (async () => {
    await apply(find("Namespace", service), false);
    for (const crd of objects.filter((o) => o.kind === "CustomResourceDefinition")) {
      await apply(crd, false);
      const kind = (crd["spec"] as { names: { kind: string } }).names.kind;
      for (let i = 0; !(await cp.api.serves(GROUP_VERSION, kind)); i++) {
        assert.ok(i < 200, `the ${kind} CRD is established`);
        await new Promise((r) => setTimeout(r, 100));
      }
    }
  })());

test("kustomize renders the controller beside the service: its namespace, its own labels, the service's image and pod security", () => {
  assert.deepEqual(objects.map((o) => o.kind).sort(), [
    "ClusterRole",
    "ClusterRoleBinding",
    "ClusterRoleBinding",
    "CustomResourceDefinition",
    "CustomResourceDefinition",
    "Deployment",
    "PodDisruptionBudget",
    "Role",
    "RoleBinding",
    "Service",
    "ServiceAccount",
  ]);
  for (const o of objects.filter((o) => !["ClusterRole", "ClusterRoleBinding", "CustomResourceDefinition"].includes(o.kind)))
    assert.equal(o.metadata.namespace, namespace, `${o.kind} ${o.metadata.name} is in the service's namespace`);
  for (const o of objects.filter((o) => o.kind.endsWith("Binding")))
    assert.deepEqual(o["subjects"], [{ kind: "ServiceAccount", name: find("ServiceAccount").metadata.name, namespace }], `${o.kind} ${o.metadata.name}`);
  assert.deepEqual(
    objects
      .filter((o) => o.kind === "CustomResourceDefinition")
      .map((o) => o.metadata.name)
      .sort(),
    ["memberclusters.fleet.syncworker.io", "releaserollouts.fleet.syncworker.io"],
  );

  const spec = deploymentOf(objects);
  const ours = deploymentOf(service);
  assert.equal(spec.replicas, 2);
  assert.equal(spec.template.spec.serviceAccountName, find("ServiceAccount").metadata.name);
  const [container] = spec.template.spec.containers;
  const [theirs] = ours.template.spec.containers;
  assert.ok(container && theirs);
  assert.equal(container.image, theirs.image, "the service's image: the controller is a command of the same package");
  assert.deepEqual(spec.template.spec.securityContext, ours.template.spec.securityContext, "the pod's securityContext is the service's");
  assert.deepEqual(container.securityContext, theirs.securityContext, "the container's securityContext is the service's");
  assert.deepEqual(container.args, [
    "fleet",
    "--leader-elect",
    "--lease-name=syncworker-fleet-leader",
    "--namespace=$(POD_NAMESPACE)",
    "--listen=0.0.0.0:50052",
    "--admin-listen=0.0.0.0:8081",
    "--authn=kube",
  ]);
  assert.deepEqual(
    container.env?.map((e) => [e.name, e.valueFrom]),
    [
      ["POD_NAME", { fieldRef: { fieldPath: "metadata.name" } }],
      ["POD_NAMESPACE", { fieldRef: { fieldPath: "metadata.namespace" } }],
    ],
  );
  // The probes and the Service reach the ports the controller is told to listen on.
  const portOf = (flag: string): number =>
    Number(
      container.args
        .find((a) => a.startsWith(`${flag}=`))
        ?.split(":")
        .at(-1),
    );
  assert.equal(container.ports.find((p) => p.name === "admin")?.containerPort, portOf("--admin-listen"));
  assert.equal(container.ports.find((p) => p.name === "grpc")?.containerPort, portOf("--listen"));
  assert.deepEqual(
    [container.readinessProbe.httpGet, container.livenessProbe.httpGet],
    [
      { path: "/readyz", port: "admin" },
      { path: "/healthz", port: "admin" },
    ],
  );
  assert.deepEqual((find("Service")["spec"] as { ports: unknown[] }).ports, [
    { name: "grpc", port: 50052, targetPort: "grpc", appProtocol: "kubernetes.io/h2c" },
  ]);

  // The controller's Service and PDB take its pods; none of the service's selectors does (nor the other way round).
  const pods = spec.template.metadata.labels;
  const selectorsOf = (from: DeployObject[]): Array<[string, Record<string, string>]> =>
    from.flatMap((o): Array<[string, Record<string, string>]> => {
      const s = o["spec"] as { selector?: Record<string, unknown>; podSelector?: { matchLabels: Record<string, string> } } | undefined;
      if (o.kind === "Service") return [[o.kind, s?.selector as Record<string, string>]];
      if (o.kind === "NetworkPolicy") return [[o.kind, s!.podSelector!.matchLabels]];
      if (o.kind === "Deployment" || o.kind === "PodDisruptionBudget") return [[o.kind, (s?.selector as { matchLabels: Record<string, string> }).matchLabels]];
      return [];
    });
  for (const [kind, selector] of selectorsOf(objects)) assert.ok(selects(selector, pods), `the controller's ${kind} selects its pods`);
  for (const [kind, selector] of selectorsOf(service)) assert.ok(!selects(selector, pods), `the service's ${kind} does not select the controller's pods`);
  for (const [kind, selector] of selectorsOf(objects))
    assert.ok(!selects(selector, ours.template.metadata.labels), `the controller's ${kind} does not select the service's pods`);
  assert.ok(
    !service.some((o) => o.kind === "CustomResourceDefinition" || o.metadata.name.startsWith("syncworker-fleet")),
    "kubectl kustomize deploy/ leaves deploy/fleet out",
  );
});

test("the RBAC grants the controller its resources everywhere, token and access reviews, and reading Secrets and its Lease in its namespace only", () => {
  type Rule = { apiGroups: string[]; resources: string[]; verbs: string[]; resourceNames?: string[] };
  const rulesOf = (kind: string): Rule[] => find(kind)["rules"] as Rule[];
  assert.deepEqual(rulesOf("ClusterRole"), [
    { apiGroups: ["fleet.syncworker.io"], resources: ["memberclusters", "releaserollouts"], verbs: ["get", "list", "watch"] },
    { apiGroups: ["fleet.syncworker.io"], resources: ["memberclusters/status", "releaserollouts/status"], verbs: ["get", "update", "patch"] },
  ]);
  assert.deepEqual(rulesOf("Role"), [
    { apiGroups: [""], resources: ["secrets"], verbs: ["get"] },
    { apiGroups: ["coordination.k8s.io"], resources: ["leases"], verbs: ["create"] },
    { apiGroups: ["coordination.k8s.io"], resources: ["leases"], resourceNames: ["syncworker-fleet-leader"], verbs: ["get", "update"] },
  ]);
  // --authn kube's TokenReview and SubjectAccessReview: the built-in role that grants them, bound to the controller.
  assert.deepEqual(
    objects.filter((o) => o.kind === "ClusterRoleBinding").map((o) => o["roleRef"]),
    [
      { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: find("ClusterRole").metadata.name },
      { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: "system:auth-delegator" },
    ],
  );
  assert.ok(deploymentOf(objects).template.spec.containers[0]!.args.includes("--authn=kube"));
  const lease = deploymentOf(objects)
    .template.spec.containers[0]!.args.find((a) => a.startsWith("--lease-name="))
    ?.split("=")[1];
  assert.equal(lease, "syncworker-fleet-leader", "the Lease the Role names is the one the controller is told to use");
});

test("the API server installs the CRDs and accepts every object under server-side dry-run with strict field validation", { timeout: 120_000 }, async () => {
  await install();
  for (const obj of objects) await apply(obj, true);
  assert.equal(await cp.api.get("apps/v1", "Deployment", namespace, find("Deployment").metadata.name), undefined, "a dry run stores nothing");
  for (const crd of objects.filter((o) => o.kind === "CustomResourceDefinition")) {
    const live = await cp.api.get("apiextensions.k8s.io/v1", "CustomResourceDefinition", undefined, crd.metadata.name);
    const conditions = (live?.status?.["conditions"] ?? []) as Array<{ type: string; status: string; message: string }>;
    assert.deepEqual(
      conditions.map((c) => `${c.type}=${c.status}`).sort(),
      ["Established=True", "NamesAccepted=True"],
      `${crd.metadata.name}: names accepted, established, and no NonStructuralSchema: ${JSON.stringify(conditions)}`,
    );
  }
});

/** A namespace of its own for each test's MemberClusters and ReleaseRollouts. */
async function freshNamespace(): Promise<string> {
  await install();
  const name = `fleet-${randomBytes(4).toString("hex")}`;
  await cp.api.must("POST", "/api/v1/namespaces", { apiVersion: "v1", kind: "Namespace", metadata: { name } });
  return name;
}

test("the examples apply with kubectl, and the schema's defaults fill what they leave out", { timeout: 60_000 }, async () => {
  const ns = await freshNamespace();
  const out = await kubectl("apply", "--validate=strict", "-n", ns, "-f", join(FLEET, "examples"));
  assert.match(out, /membercluster\.fleet\.syncworker\.io\/prod-eu-1 created/);
  assert.match(out, /releaserollout\.fleet\.syncworker\.io\/release-1\.1\.0 created/);

  const member = await cp.api.get(GROUP_VERSION, "MemberCluster", ns, "prod-eu-1");
  assert.equal((member?.["spec"] as { tokenSecretRef: { key: string } }).tokenSecretRef.key, "token");
  assert.equal(member?.metadata.name, "prod-eu-1");
  const rollout = await cp.api.get(GROUP_VERSION, "ReleaseRollout", ns, "release-1.1.0");
  assert.deepEqual(rollout?.["spec"], {
    release: { version: "1.1.0", image: "registry.example.com/release:1.1.0" },
    memberSelector: { matchLabels: { env: "prod" } },
    strategy: {
      maxConcurrent: 3,
      maxFailures: 1,
      unavailableGracePeriod: "5m",
      stages: [
        { name: "canary", count: 1, soak: "10m" },
        { name: "wave", percent: 25, soak: "0s" },
        { name: "rest", soak: "0s" },
      ],
    },
    memberControls: { planBound: true },
  });
  // The example's selector takes the example member (as the API server selects by labels).
  const selector = Object.entries((rollout?.["spec"] as { memberSelector: { matchLabels: Record<string, string> } }).memberSelector.matchLabels);
  const selected = await kubectl("get", "memberclusters", "-n", ns, "-o", "name", "-l", selector.map(([k, v]) => `${k}=${v}`).join(","));
  assert.equal(selected.trim(), "membercluster.fleet.syncworker.io/prod-eu-1");
});

/** A valid rollout to vary: two stages, the second taking the rest. */
const rollout = (name: string, spec: Record<string, unknown> = {}): Record<string, unknown> => ({
  apiVersion: GROUP_VERSION,
  kind: "ReleaseRollout",
  metadata: { name },
  spec: {
    release: { version: "1.1.0", image: "registry.example.com/release:1.1.0" },
    memberSelector: { matchLabels: { env: "prod" } },
    strategy: { stages: [{ name: "canary", count: 1 }, { name: "rest" }] },
    ...spec,
  },
});

type Refusal = { status: number; message: string };
const refusalOf = (res: RestResponse): Refusal => ({ status: res.status, message: (res.body as { message?: string }).message ?? JSON.stringify(res.body) });

async function create(ns: string, body: Record<string, unknown>): Promise<RestResponse> {
  return cp.api.request("POST", `${await cp.api.pathOf(GROUP_VERSION, "ReleaseRollout", ns)}?fieldValidation=Strict`, body);
}
async function mergePatch(ns: string, name: string, patch: unknown): Promise<RestResponse> {
  return cp.api.request(
    "PATCH",
    `${await cp.api.pathOf(GROUP_VERSION, "ReleaseRollout", ns, name)}?fieldValidation=Strict`,
    patch,
    "application/merge-patch+json",
  );
}
const accepted = (res: RestResponse, what: string): void =>
  assert.ok(res.status >= 200 && res.status < 300, `${what}: HTTP ${res.status} ${JSON.stringify(res.body)}`);
/** Refused as invalid (422), the API server's message naming the rule's message and the field it is on. */
function refused(res: RestResponse, field: string, message: string): void {
  const { status, message: said } = refusalOf(res);
  assert.equal(status, 422, `refused as invalid: ${said}`);
  assert.ok(said.includes(message), `the API server names the rule's message "${message}": ${said}`);
  assert.ok(said.includes(field), `and the field ${field}: ${said}`);
}

test("CEL: a stage takes at most one of selector, count and percent", { timeout: 60_000 }, async () => {
  const ns = await freshNamespace();
  const message = "a stage takes at most one of selector, count and percent (none takes the rest of the members)";
  const stages = (first: Record<string, unknown>): Record<string, unknown> => ({ strategy: { stages: [{ name: "canary", ...first }, { name: "rest" }] } });
  refused(await create(ns, rollout("both", stages({ selector: { matchLabels: { canary: "true" } }, count: 1 }))), "spec.strategy.stages[0]", message);
  refused(await create(ns, rollout("count-percent", stages({ count: 1, percent: 10 }))), "spec.strategy.stages[0]", message);
  for (const [name, way] of [
    ["selector", { selector: { matchLabels: { canary: "true" } } }],
    ["count", { count: 2 }],
    ["percent", { percent: 10 }],
  ] as const)
    accepted(await create(ns, rollout(name, stages(way))), `a stage by ${name} alone`);
});

test("CEL: stage names are unique", { timeout: 60_000 }, async () => {
  const ns = await freshNamespace();
  const stages = [{ name: "wave", count: 1 }, { name: "other" }, { name: "wave", percent: 50 }];
  refused(await create(ns, rollout("dup", { strategy: { stages } })), "spec.strategy.stages", "stage names must be unique");
  accepted(await create(ns, rollout("distinct", { strategy: { stages: stages.slice(0, 2) } })), "distinct names");
  // The names update: a change that repeats one is refused too.
  refused(
    await mergePatch(ns, "distinct", { spec: { strategy: { stages: [{ name: "wave", count: 1 }, { name: "wave" }] } } }),
    "spec.strategy.stages",
    "stage names must be unique",
  );
});

test("CEL: the release is immutable, the rest of the spec is not", { timeout: 60_000 }, async () => {
  const ns = await freshNamespace();
  accepted(await create(ns, rollout("r")), "the rollout");
  const message = "release is immutable; create a new rollout";
  refused(await mergePatch(ns, "r", { spec: { release: { image: "registry.example.com/release:1.2.0" } } }), "spec.release", message);
  refused(await mergePatch(ns, "r", { spec: { release: { version: "1.2.0" } } }), "spec.release", message);
  refused(await mergePatch(ns, "r", { spec: { release: { version: null } } }), "spec.release", message);
  accepted(await mergePatch(ns, "r", { spec: { paused: true, strategy: { maxConcurrent: "25%" } } }), "pausing and a new maxConcurrent");
  accepted(await mergePatch(ns, "r", { spec: { release: { version: "1.1.0" } } }), "the same release again");
});

test("CEL: a cancelled rollout cannot be resumed, neither by cancel: false nor by removing it", { timeout: 60_000 }, async () => {
  const ns = await freshNamespace();
  accepted(await create(ns, rollout("r", { cancel: false })), "the rollout");
  accepted(await mergePatch(ns, "r", { spec: { cancel: false, paused: true } }), "cancel false stays false");
  accepted(await mergePatch(ns, "r", { spec: { cancel: true } }), "the cancel");
  const message = "a cancelled rollout cannot be resumed; create a new one";
  refused(await mergePatch(ns, "r", { spec: { cancel: false } }), "spec", message);
  refused(await mergePatch(ns, "r", { spec: { cancel: null } }), "spec", message);
  accepted(await mergePatch(ns, "r", { spec: { cancel: true, paused: false } }), "other changes of a cancelled rollout");
  const live = await cp.api.get(GROUP_VERSION, "ReleaseRollout", ns, "r");
  assert.equal((live?.["spec"] as { cancel: boolean }).cancel, true);
  accepted(await create(ns, rollout("r2", { cancel: true })), "a rollout created cancelled");
});

test("the schema's other rules: int-or-string counts and percentages, durations, selectors, approved stages", { timeout: 60_000 }, async () => {
  const ns = await freshNamespace();
  const strategy = (fields: Record<string, unknown>, stage: Record<string, unknown> = {}): Record<string, unknown> => ({
    strategy: { stages: [{ name: "canary", ...stage }], ...fields },
  });
  const cases: Array<{ name: string; spec: Record<string, unknown>; refusal?: string }> = [
    { name: "max-concurrent-percent", spec: strategy({ maxConcurrent: "25%", maxFailures: "10%" }) },
    { name: "max-concurrent-zero", spec: strategy({ maxConcurrent: 0 }), refusal: "maxConcurrent is a number of members (at least 1)" },
    { name: "max-concurrent-no-percent", spec: strategy({ maxConcurrent: "3" }), refusal: "maxConcurrent is a number of members (at least 1)" },
    { name: "max-concurrent-over-100", spec: strategy({ maxConcurrent: "101%" }), refusal: "maxConcurrent is a number of members (at least 1)" },
    { name: "stage-max-concurrent", spec: strategy({}, { maxConcurrent: "0%" }), refusal: "maxConcurrent is a number of members (at least 1)" },
    { name: "max-failures-negative", spec: strategy({ maxFailures: -1 }), refusal: "maxFailures is a number of members (0 or more)" },
    { name: "max-failures-zero-percent", spec: strategy({ maxFailures: "0%" }) },
    { name: "durations", spec: { ...strategy({ unavailableGracePeriod: "1h30m" }, { soak: "90s" }), memberControls: { progressDeadline: "500ms" } } },
    { name: "duration-words", spec: strategy({ unavailableGracePeriod: "5 minutes" }), refusal: "spec.strategy.unavailableGracePeriod" },
    { name: "duration-days", spec: strategy({}, { soak: "1d" }), refusal: "spec.strategy.stages[0].soak" },
    { name: "stage-name-not-a-label", spec: strategy({}, { name: "Canary_1" }), refusal: "spec.strategy.stages[0].name" },
    { name: "no-stages", spec: { strategy: { stages: [] } }, refusal: "spec.strategy.stages" },
    { name: "percent-over-100", spec: strategy({}, { percent: 101 }), refusal: "spec.strategy.stages[0].percent" },
    {
      name: "in-without-values",
      spec: { memberSelector: { matchExpressions: [{ key: "env", operator: "In" }] } },
      refusal: "In and NotIn take values, Exists and DoesNotExist take none",
    },
    {
      name: "exists-with-values",
      spec: strategy({}, { selector: { matchExpressions: [{ key: "canary", operator: "Exists", values: ["x"] }] } }),
      refusal: "In and NotIn take values, Exists and DoesNotExist take none",
    },
    { name: "selector-expressions", spec: { memberSelector: { matchExpressions: [{ key: "env", operator: "NotIn", values: ["dev"] }] } } },
    { name: "approved-unknown", spec: { approvedStages: ["wave"] }, refusal: "approvedStages names only stages of spec.strategy.stages" },
    { name: "approved", spec: { ...strategy({}, { pauseBefore: true }), approvedStages: ["canary"] } },
    { name: "unknown-risk", spec: { memberControls: { acceptRisks: ["Everything"] } }, refusal: "spec.memberControls.acceptRisks[0]" },
    { name: "limits", spec: { memberControls: { limits: { maxDeletions: 0, maxChangedPercent: 12.5 }, acceptRisks: ["BlastRadius"], planBound: false } } },
    { name: "unknown-field", spec: { strategy: { stages: [{ name: "canary", batch: 2 }] } }, refusal: 'unknown field "spec.strategy.stages[0].batch"' },
  ];
  for (const c of cases) {
    const res = await create(ns, rollout(c.name, c.spec));
    if (c.refusal === undefined) accepted(res, c.name);
    else {
      const { status, message } = refusalOf(res);
      assert.ok(status === 422 || status === 400, `${c.name} refused: HTTP ${status} ${message}`);
      assert.ok(message.includes(c.refusal), `${c.name}: the refusal names "${c.refusal}": ${message}`);
    }
  }
});

/** `kubectl get` output as rows of cells (columns are two or more spaces apart; a cell may hold single spaces). */
const table = (out: string): string[][] =>
  out
    .trim()
    .split("\n")
    .map((line) => line.trim().split(/\s{2,}/));

test("kubectl get prints the printer columns, the stage summary from the status subresource among them", { timeout: 60_000 }, async () => {
  const ns = await freshNamespace();
  await kubectl("apply", "-n", ns, "-f", join(FLEET, "examples"));
  const now = new Date().toISOString().replace(/\.\d+Z$/, "Z");
  const stageSummary = "canary 1/1 · wave 5/5 · rest 3/14";
  const status = {
    observedGeneration: 1,
    phase: "Progressing",
    pinnedImage: "registry.example.com/release@sha256:" + "ab".repeat(32),
    currentStage: "rest",
    stageSummary,
    counts: { total: 20, pending: 8, updating: 3, succeeded: 9, failed: 0, unavailable: 0, blocked: 0 },
    stages: [
      {
        name: "canary",
        total: 1,
        pending: 0,
        updating: 0,
        succeeded: 1,
        failed: 0,
        unavailable: 0,
        blocked: 0,
        startedAt: now,
        completedAt: now,
        soakUntil: now,
      },
      { name: "wave", total: 5, pending: 0, updating: 0, succeeded: 5, failed: 0, unavailable: 0, blocked: 0, startedAt: now, completedAt: now },
      { name: "rest", total: 14, pending: 8, updating: 3, succeeded: 3, failed: 0, unavailable: 0, blocked: 0, startedAt: now },
    ],
    members: [
      {
        name: "prod-eu-1",
        stage: "canary",
        state: "Succeeded",
        generation: 7,
        planDigest: "sha256:" + "cd".repeat(32),
        image: "registry.example.com/release@sha256:" + "ab".repeat(32),
        dispatchedAt: now,
        done: 23,
        total: 23,
        version: "1.1.0",
        previews: 1,
      },
      {
        name: "prod-eu-2",
        stage: "rest",
        state: "Updating",
        generation: 3,
        done: 11,
        total: 23,
        blocker: "waiting on ClusterOperator demo",
        estimateSeconds: 40,
      },
      { name: "prod-eu-3", stage: "rest", state: "Unavailable", unreachableSince: now, pausedByFleet: false },
    ],
    conditions: [
      { type: "Progressing", status: "True", observedGeneration: 1, lastTransitionTime: now, reason: "StageUpdating", message: "stage rest: 3 updating" },
    ],
  };
  const path = `${await cp.api.pathOf(GROUP_VERSION, "ReleaseRollout", ns, "release-1.1.0")}/status?fieldValidation=Strict`;
  accepted(await cp.api.request("PATCH", path, { status }, "application/merge-patch+json"), "the status, through /status");

  const [header, row, ...rest] = table(await kubectl("get", "releaserollouts", "-n", ns));
  assert.deepEqual(header, ["NAME", "RELEASE", "PHASE", "STAGE", "STAGES", "DONE", "TOTAL", "UPDATING", "FAILED", "UNAVAIL", "AGE"]);
  assert.deepEqual(row?.slice(0, -1), ["release-1.1.0", "1.1.0", "Progressing", "rest", stageSummary, "9", "20", "3", "0", "0"]);
  assert.deepEqual(rest, []);
  // The short name, and both kinds under the category.
  assert.equal(table(await kubectl("get", "rro", "-n", ns))[1]?.[4], stageSummary);
  const all = await kubectl("get", "syncworker", "-n", ns);
  assert.match(all, /releaserollout\.fleet\.syncworker\.io\/release-1\.1\.0/);
  assert.match(all, /membercluster\.fleet\.syncworker\.io\/prod-eu-1/);

  // A member's Reachable column comes from its condition.
  const memberPath = `${await cp.api.pathOf(GROUP_VERSION, "MemberCluster", ns, "prod-eu-1")}/status?fieldValidation=Strict`;
  const memberStatus = {
    observedGeneration: 1,
    version: "1.1.0",
    image: status.pinnedImage,
    revision: 1042,
    state: "Reconciling",
    lastSeen: now,
    conditions: [{ type: "Reachable", status: "True", lastTransitionTime: now, reason: "Connected", message: "status stream connected" }],
  };
  accepted(await cp.api.request("PATCH", memberPath, { status: memberStatus }, "application/merge-patch+json"), "the member's status");
  const [memberHeader, memberRow] = table(await kubectl("get", "smc", "-n", ns));
  assert.deepEqual(memberHeader, ["NAME", "ADDRESS", "VERSION", "STATE", "REACHABLE", "AGE"]);
  assert.deepEqual(memberRow?.slice(0, -1), ["prod-eu-1", "syncworker.prod-eu-1.example.com:50051", "1.1.0", "Reconciling", "True"]);

  // A state the schema does not know is refused, so a controller bug shows at its write.
  const bad = await cp.api.request("PATCH", path, { status: { phase: "Done" } }, "application/merge-patch+json");
  assert.equal(bad.status, 422, JSON.stringify(bad.body));
});

/** A token of a ServiceAccount of the fleet's namespace, as the kubelet mounts one into a pod (the TokenRequest API). */
async function tokenOf(account: string): Promise<string> {
  const request = (await cp.api.must("POST", `/api/v1/namespaces/${namespace}/serviceaccounts/${account}/token`, {
    apiVersion: "authentication.k8s.io/v1",
    kind: "TokenRequest",
    spec: { expirationSeconds: 3600 },
  })) as { status: { token: string } };
  return request.status.token;
}

/** A FleetWatch caller: a ServiceAccount of the fleet's namespace bound to a Role with `rules` there; its token. */
async function caller(name: string, rules: Array<Record<string, unknown>>): Promise<string> {
  const rbac = "rbac.authorization.k8s.io/v1";
  await cp.api.apply({ apiVersion: "v1", kind: "ServiceAccount", metadata: { name, namespace } }, "fleet-deploy-test");
  await cp.api.apply({ apiVersion: rbac, kind: "Role", metadata: { name, namespace }, rules } as never, "fleet-deploy-test");
  await cp.api.apply(
    {
      apiVersion: rbac,
      kind: "RoleBinding",
      metadata: { name, namespace },
      roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "Role", name },
      subjects: [{ kind: "ServiceAccount", name, namespace }],
    } as never,
    "fleet-deploy-test",
  );
  return tokenOf(name);
}

/**
 * The events of one FleetWatch up to its first `synced`, or the error that ended it; a transient one too (the hub
 * could not check the token: its own RBAC is short), which the client would otherwise retry until the deadline.
 */
async function watchOnce(address: string, rollout: string, token?: string): Promise<FleetWatchResponse[] | SyncWorkerError> {
  const fleet = new FleetClient(address, token === undefined ? {} : { token });
  const seen: FleetWatchResponse[] = [];
  try {
    for await (const event of fleet.watchFleet({
      rollout,
      signal: AbortSignal.timeout(30_000),
      onRetry: (err) => {
        throw err;
      },
    })) {
      seen.push(event);
      if (event.synced) return seen;
    }
    return seen;
  } catch (err) {
    if (err instanceof SyncWorkerError) return err;
    throw err;
  } finally {
    fleet.close();
  }
}

test(
  "applied for real, the Deployment's command line runs as its ServiceAccount: it leads, writes a rollout's status, and lets only callers allowed to watch rollouts watch one",
  { timeout: 10 * 60_000 },
  async () => {
    await install();
    for (const obj of objects) await apply(obj, false);
    const account = find("ServiceAccount").metadata.name;
    const kubeconfig = await cp.kubeconfigFor(account, await tokenOf(account));

    // The container's arguments as the kubelet hands them over: $(VAR) expanded from the container's env, whose values
    // come from the downward API. Only the kubeconfig (in-cluster there) and the ports (0: any free one) differ.
    const container = deploymentOf(objects).template.spec.containers[0]!;
    const pod = "syncworker-fleet-6f7c9d8b5-x2k4q";
    const fields: Record<string, string> = { "metadata.name": pod, "metadata.namespace": namespace };
    const env = Object.fromEntries((container.env ?? []).map((e) => [e.name, e.value ?? fields[e.valueFrom?.fieldRef?.fieldPath ?? ""] ?? ""]));
    const [command, ...flags] = container.args.map((a) =>
      a.replace(/\$\((\w+)\)/g, (whole, name: string) => env[name] ?? whole).replace(/^(--[a-z-]*listen=.*):\d+$/, "$1:0"),
    );
    assert.equal(command, "fleet");
    assert.ok(!flags.some((f) => f.startsWith("--kubeconfig")), "in-cluster by default");
    assert.ok(flags.includes(`--namespace=${namespace}`) && flags.includes("--authn=kube") && flags.includes("--leader-elect"), flags.join(" "));
    const child = spawn(process.execPath, [...SYNCWORKER, command, "--kubeconfig", kubeconfig, ...flags], {
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, LOG_LEVEL: "info", ...env },
    });
    hub = await superviseServer(child, false);
    assert.match(hub.stdout(), new RegExp(`^fleet controller in namespace ${namespace}$`, "m"));
    const local = (address: string): string => address.replace(/^0\.0\.0\.0:/, "127.0.0.1:");
    const [address, admin] = [local(hub.address), local(hub.adminAddress)];

    // The RBAC lets it take the Lease: it leads, and the Lease names its pod.
    const readyz = async (): Promise<string> => (await (await fetch(`http://${admin}/readyz`)).text()).replace(/, version \S+$/, "");
    for (let i = 0; (await readyz()) !== "ok: leader"; i++) {
      assert.ok(i < 150, `it leads within 30 s: ${await readyz()}\n${hub.stderr().slice(-3_000)}`);
      await new Promise((r) => setTimeout(r, 200));
    }
    const lease = await cp.api.get("coordination.k8s.io/v1", "Lease", namespace, "syncworker-fleet-leader");
    assert.equal((lease?.["spec"] as { holderIdentity: string }).holderIdentity, pod);

    // A member nobody listens for, whose token the controller reads from a Secret (GET, all the Role grants), and a
    // rollout of it: the controller writes the rollout's status through releaserollouts/status.
    await cp.api.apply(
      { apiVersion: "v1", kind: "Secret", metadata: { name: "nowhere-token", namespace }, stringData: { token: "not-a-real-token" } } as never,
      "fleet-deploy-test",
    );
    await cp.api.apply(
      {
        apiVersion: GROUP_VERSION,
        kind: "MemberCluster",
        metadata: { name: "nowhere", namespace, labels: { env: "deploy-test" } },
        spec: { address: "127.0.0.1:1", tokenSecretRef: { name: "nowhere-token" } },
      } as never,
      "fleet-deploy-test",
    );
    await cp.api.apply(
      {
        ...rollout("to-nowhere", { memberSelector: { matchLabels: { env: "deploy-test" } }, strategy: { stages: [{ name: "all" }] } }),
        metadata: { name: "to-nowhere", namespace },
      } as never,
      "fleet-deploy-test",
    );
    type Status = {
      observedGeneration?: number;
      counts?: Record<string, number>;
      members?: Array<{ name: string; stage: string; state: string; blocker?: string }>;
    };
    let status: Status = {};
    for (let i = 0; status.observedGeneration === undefined || !status.members?.length; i++) {
      assert.ok(i < 300, `the controller writes the rollout's status within 60 s: ${JSON.stringify(status)}\n${hub.stderr().slice(-3_000)}`);
      await new Promise((r) => setTimeout(r, 200));
      status = (await cp.api.get(GROUP_VERSION, "ReleaseRollout", namespace, "to-nowhere"))?.["status"] ?? {};
    }
    assert.equal(status.observedGeneration, 1);
    assert.equal(status.members?.length, 1);
    const [member] = status.members ?? [];
    assert.equal(member?.name, "nowhere");
    assert.equal(member?.stage, "all");
    assert.equal(member?.state, "Pending");
    assert.equal(status.counts?.["pending"], 1);
    // The release is pinned by a preview on a reachable member, and until it is the planner gives a Pending member no
    // blocker (src/fleet/planner.ts sets "unreachable since …" / "not seen yet" only once pinned): a reason, if any,
    // names the unreachable member.
    if (member?.blocker) assert.match(member.blocker, /unreachable|not seen/);
    // Its connection is made once the token Secret is read: the member found unreachable shows that read was allowed.
    for (let i = 0; !/member \S+\/nowhere at 127\.0\.0\.1:1 unreachable/.test(hub.stderr()); i++) {
      assert.ok(i < 150, `the controller reaches for the member within 30 s (its token Secret read):\n${hub.stderr().slice(-3_000)}`);
      await new Promise((r) => setTimeout(r, 200));
    }

    // FleetWatch: no token is no one; a token whose user may not watch rollouts is refused naming what it needs; one
    // whose user may watch them gets the rollout, its member, then synced.
    const anonymous = await watchOnce(address, "to-nowhere");
    assert.ok(anonymous instanceof SyncWorkerError, `refused: ${JSON.stringify(anonymous)}`);
    assert.equal(anonymous.code, Code.Unauthenticated, anonymous.message);

    const reader = await watchOnce(address, "to-nowhere", await caller("configmap-reader", [{ apiGroups: [""], resources: ["configmaps"], verbs: ["get"] }]));
    assert.ok(reader instanceof SyncWorkerError, `refused: ${JSON.stringify(reader)}`);
    assert.equal(reader.code, Code.PermissionDenied, reader.message);
    assert.match(reader.message, /"watch"/);
    assert.match(reader.message, /releaserollouts/);
    assert.ok(reader.message.includes(`"system:serviceaccount:${namespace}:configmap-reader"`), reader.message);
    assert.ok(reader.message.includes(`in namespace "${namespace}"`), reader.message);

    const watcher = await caller("rollout-watcher", [{ apiGroups: ["fleet.syncworker.io"], resources: ["releaserollouts"], verbs: ["watch"] }]);
    const seen = await watchOnce(address, "to-nowhere", watcher);
    assert.ok(Array.isArray(seen), `allowed: ${seen instanceof Error ? `${seen.code} ${seen.message}` : ""}`);
    assert.equal(seen[0]?.rollout?.name, "to-nowhere");
    assert.equal(seen[0]?.rollout?.observedGeneration, 1);
    assert.deepEqual(
      seen.slice(1, -1).map((e) => e.member?.member),
      ["nowhere"],
    );
    assert.ok(seen.at(-1)?.synced, "then synced");

    // A refusal the controller survives (a Secret, a watch or a status write refused) is only logged: none may occur.
    assert.doesNotMatch(hub.stderr(), /forbidden/i, "no request was refused");
  },
);
