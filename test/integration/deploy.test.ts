// deploy/ as `kubectl apply -k deploy/` hands it to a cluster: kustomize renders it, the harness's real kube-apiserver
// accepts every object under server-side dry-run with strict field validation, and, applied for real, the RBAC it
// grants is enough for the Deployment's two replicas to sync a generated release as its ServiceAccount.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtemp, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { parseAllDocuments } from "yaml";
import type { SyncWorkerStatus } from "@syncworker/client";
import { createForeignNamespaces, installMissingKinds, payloadManifests, playOperators, type OperatorPlayer } from "../harness/cluster-play.js";
import { kubectlBinary, startControlPlane, type ControlPlane } from "../harness/control-plane.js";
import { KubeRest, type LiveObject } from "../harness/kube-rest.js";
import { tempRelease } from "../harness/payload-gen.js";
import { REPO_ROOT, startServer, waitForStatus, type ServerProcess } from "../harness/server.js";
import { tierTests } from "../harness/tiers.js";

const { after, before, test } = tierTests("kube", "tls");

const run = promisify(execFile);
/** A release with RBAC, CRDs and their resources, ClusterOperators and workloads in many namespaces. */
const RELEASE = await tempRelease();
/** The Prometheus Operator's kinds deploy/ uses, with the CRD fixture that declares each. */
const MONITORING_CRDS = [
  { kind: "ServiceMonitor", file: join(REPO_ROOT, "test/fixtures/servicemonitor-crd.yaml") },
  { kind: "PrometheusRule", file: join(REPO_ROOT, "test/fixtures/prometheusrule-crd.yaml") },
];

type DeployObject = LiveObject & { metadata: { name: string; namespace?: string } };

let cp: ControlPlane;
let objects: DeployObject[] = [];
let player: OperatorPlayer | undefined;
const servers: ServerProcess[] = [];

before(
  async () => {
    const { stdout } = await run(await kubectlBinary(), ["kustomize", join(REPO_ROOT, "deploy")], { maxBuffer: 16 << 20 });
    objects = parseAllDocuments(stdout).map((doc) => doc.toJSON() as DeployObject);
    cp = await startControlPlane();
    // The ServiceMonitor's and PrometheusRule's kinds come from the Prometheus Operator, which a cluster scraping with it has installed.
    for (const { kind, file } of MONITORING_CRDS) {
      const crd = parseAllDocuments(await readFile(file, "utf8")).map((doc) => doc.toJSON() as DeployObject)[0]!;
      await cp.api.apply(crd, "test-installer");
      for (let i = 0; !(await cp.api.serves("monitoring.coreos.com/v1", kind)); i++) {
        assert.ok(i < 200, `the ${kind} CRD is established`);
        await new Promise((r) => setTimeout(r, 100));
      }
    }
  },
  { timeout: 90 * 60_000 },
);
after(async () => {
  await player?.stop();
  for (const server of servers) await server.stop();
  await cp?.stop();
});

const find = (kind: string): DeployObject => {
  const found = objects.find((o) => o.kind === kind);
  assert.ok(found, `deploy/ renders a ${kind}`);
  return found;
};

/** Server-side apply as kubectl does, strict: see KubeRest.applyStrict. */
const apply = (obj: DeployObject, dryRun: boolean): Promise<void> => cp.api.applyStrict(obj, dryRun);

test("kustomize renders the base: the service's namespace, two leader-electing replicas, locked-down pods", () => {
  assert.deepEqual(objects.map((o) => o.kind).sort(), [
    "ClusterRole",
    "ClusterRoleBinding",
    "ClusterRoleBinding",
    "Deployment",
    "Namespace",
    "NetworkPolicy",
    "PodDisruptionBudget",
    "PrometheusRule",
    "Role",
    "RoleBinding",
    "Service",
    "ServiceAccount",
    "ServiceMonitor",
  ]);
  const namespace = find("Namespace").metadata.name;
  assert.equal(namespace, "openshift-cluster-version", "the service's default namespace");
  for (const o of objects.filter((o) => !["Namespace", "ClusterRole", "ClusterRoleBinding"].includes(o.kind)))
    assert.equal(o.metadata.namespace, namespace, `${o.kind} ${o.metadata.name}`);

  const spec = find("Deployment")["spec"] as {
    replicas: number;
    template: {
      spec: { serviceAccountName: string; securityContext: Record<string, unknown>; containers: Array<Record<string, unknown> & { args: string[] }> };
    };
  };
  assert.equal(spec.replicas, 2);
  assert.equal(spec.template.spec.serviceAccountName, find("ServiceAccount").metadata.name);
  assert.deepEqual(spec.template.spec.securityContext, { runAsNonRoot: true, seccompProfile: { type: "RuntimeDefault" } });
  const [container] = spec.template.spec.containers;
  assert.ok(container);
  assert.ok(container.args.includes("--leader-elect"));
  assert.deepEqual(container["securityContext"], {
    allowPrivilegeEscalation: false,
    readOnlyRootFilesystem: true,
    runAsNonRoot: true,
    capabilities: { drop: ["ALL"] },
  });
  // The probes reach the admin endpoint on the port the service is told to listen on.
  const adminPort = Number(
    container.args
      .find((a) => a.startsWith("--admin-listen="))
      ?.split(":")
      .at(-1),
  );
  const ports = container["ports"] as Array<{ name: string; containerPort: number }>;
  assert.equal(ports.find((p) => p.name === "admin")?.containerPort, adminPort);
  assert.deepEqual(
    [(container["readinessProbe"] as { httpGet: unknown }).httpGet, (container["livenessProbe"] as { httpGet: unknown }).httpGet],
    [
      { path: "/readyz", port: "admin" },
      { path: "/healthz", port: "admin" },
    ],
  );
});

type Container = {
  args: string[];
  env?: Array<{ name: string; value?: string }>;
  ports: Array<{ name: string; containerPort: number }>;
  volumeMounts?: Array<{ name: string; mountPath: string }>;
};
type PodSpec = { containers: Container[]; volumes?: Array<{ name: string; emptyDir?: object }> };
const podTemplate = (): { metadata: { labels: Record<string, string> }; spec: PodSpec } =>
  (find("Deployment")["spec"] as { template: { metadata: { labels: Record<string, string> }; spec: PodSpec } }).template;

test("every path the service writes is on a volume: the read-only root and an unwritable HOME leave it nothing else", () => {
  const { spec } = podTemplate();
  const [container] = spec.containers;
  assert.ok(container);
  const mounts = container.volumeMounts ?? [];
  const onVolume = (path: string): boolean => mounts.some((m) => path === m.mountPath || path.startsWith(`${m.mountPath}/`));
  // The writable paths come from SYNCWORKER_* (src/config/options.ts PATH_ENV); the state dir is for the embedded cluster only.
  const paths = (container.env ?? []).filter((e) => e.name.startsWith("SYNCWORKER_"));
  assert.deepEqual(
    paths.map((e) => e.name),
    ["SYNCWORKER_PAYLOAD_CACHE"],
    "the payload cache; --kubeconfig keeps the state in a ConfigMap",
  );
  assert.ok(container.args.includes("--kubeconfig=in-cluster"));
  for (const { name, value = "" } of paths) assert.ok(onVolume(value), `${name}=${value} is on a mounted volume`);
  assert.ok(onVolume("/tmp"), "/tmp, for what node and its libraries write there");
  for (const { name } of mounts)
    assert.ok(spec.volumes?.find((v) => v.name === name)?.emptyDir, `volume ${name} is an emptyDir: nothing survives the pod but the cluster's state`);
});

test("the NetworkPolicy admits gRPC from the labelled namespaces and /metrics from the monitoring namespace, nothing else", () => {
  const policy = find("NetworkPolicy")["spec"] as {
    podSelector: { matchLabels: Record<string, string> };
    policyTypes: string[];
    ingress: Array<{ from: Array<Record<string, unknown>>; ports: Array<{ protocol: string; port: string | number }> }>;
  };
  const template = podTemplate();
  for (const [key, value] of Object.entries(policy.podSelector.matchLabels))
    assert.equal(template.metadata.labels[key], value, `it selects the Deployment's pods (${key})`);
  assert.deepEqual(policy.policyTypes, ["Ingress"], "ingress only: the service reaches the API server and registries itself");
  // Port names as the container declares them, so a renumbered port stays admitted.
  const ports = template.spec.containers[0]!.ports;
  const admitted = policy.ingress.map((rule) => ({ ports: rule.ports.map((p) => ports.find((c) => c.name === p.port)?.containerPort), from: rule.from }));
  assert.deepEqual(admitted, [
    { ports: [50051], from: [{ namespaceSelector: { matchLabels: { "syncworker-client": "true" } } }] },
    { ports: [9090], from: [{ namespaceSelector: { matchLabels: { "kubernetes.io/metadata.name": "monitoring" } } }] },
  ]);
  const metricsPort = ports.find((p) => p.name === "metrics")?.containerPort;
  assert.ok(template.spec.containers[0]!.args.includes(`--metrics-listen=0.0.0.0:${metricsPort}`), "the port admitted from monitoring serves /metrics");
  const grpcPort = ports.find((p) => p.name === "grpc")?.containerPort;
  assert.ok(template.spec.containers[0]!.args.includes(`--listen=0.0.0.0:${grpcPort}`), "the port admitted from the callers serves gRPC");
});

test("the API server accepts every object under server-side dry-run with strict field validation", { timeout: 120_000 }, async () => {
  const namespace = find("Namespace");
  await apply(namespace, true);
  // Admission refuses objects in a namespace that does not exist, dry run or not; kubectl applies it first too.
  await apply(namespace, false);
  for (const obj of objects) await apply(obj, true);
  assert.equal(await cp.api.get("apps/v1", "Deployment", namespace.metadata.name, find("Deployment").metadata.name), undefined, "a dry run stores nothing");
});

test("the RBAC it grants is enough for two replicas to sync a release as its ServiceAccount", { timeout: 20 * 60_000 }, async () => {
  for (const obj of objects) await apply(obj, false);
  const account = find("ServiceAccount");
  const namespace = account.metadata.namespace!;
  // A token of the ServiceAccount, as the kubelet mounts one into the pod (the TokenRequest API).
  const request = (await cp.api.must("POST", `/api/v1/namespaces/${namespace}/serviceaccounts/${account.metadata.name}/token`, {
    apiVersion: "authentication.k8s.io/v1",
    kind: "TokenRequest",
    spec: { expirationSeconds: 3600 },
  })) as { status: { token: string } };
  const token = request.status.token;
  const kubeconfig = await cp.kubeconfigFor(account.metadata.name, token);

  // The token is the ServiceAccount and nothing more: not the harness's admin.
  const caFile = join(await mkdtemp(join(tmpdir(), "syncworker-deploy-")), "ca.crt");
  await writeFile(caFile, Buffer.from(cp.api.caBase64(), "base64"));
  const asAccount = await KubeRest.create(cp.server, caFile, token);
  try {
    const review = (await asAccount.must("POST", "/apis/authentication.k8s.io/v1/selfsubjectreviews", {
      apiVersion: "authentication.k8s.io/v1",
      kind: "SelfSubjectReview",
    })) as {
      status: { userInfo: { username: string; groups: string[] } };
    };
    assert.equal(review.status.userInfo.username, `system:serviceaccount:${namespace}:${account.metadata.name}`);
    assert.ok(!review.status.userInfo.groups.includes("system:masters"));
  } finally {
    asAccount.close();
  }

  const payload = await payloadManifests(RELEASE);
  await installMissingKinds(cp.api, payload.manifests);
  await createForeignNamespaces(cp.api, payload.manifests);
  player = playOperators(cp.api, payload.manifests);

  const args = ["--kubeconfig", kubeconfig, "--leader-elect", "--namespace", namespace, "--reconcile-interval", "60s", "--backoff-steps", "2"];
  servers.push(await startServer(args), await startServer(args));
  // Each replica's role, without the version that follows it ("ok: leader, version 0.1.0").
  const roles = async (): Promise<string[]> =>
    Promise.all(servers.map(async (s) => (await (await fetch(`http://${s.adminAddress}/readyz`)).text()).replace(/, version \S+$/, "")));
  for (let i = 0; !(await roles()).includes("ok: leader"); i++) {
    assert.ok(i < 150, `a replica leads within 30 s: ${(await roles()).join(", ")}`);
    await new Promise((r) => setTimeout(r, 200));
  }
  const leader = servers[(await roles()).indexOf("ok: leader")]!;
  const standby = servers.find((s) => s !== leader)!;

  const response = await leader.client.update({
    generation: 1,
    desired: { version: "", image: RELEASE, force: false },
    overrides: [],
    capabilities: undefined,
    state: 0,
  });
  assert.equal(response.loadPayloadStatus?.failure, undefined, "the payload loads");
  const synced = (s: SyncWorkerStatus): boolean => s.actual?.image === RELEASE && s.completed >= 1 && !s.failure;
  await waitForStatus(leader.client, synced, 10 * 60_000);
  // The standby follows the saved state through its watch on the state ConfigMap.
  await waitForStatus(standby.client, synced, 60_000);

  // Once an installer has created ClusterVersion version (the release brings its CRD), the leader writes its status.
  await cp.api.must("POST", await cp.api.pathOf("config.openshift.io/v1", "ClusterVersion"), {
    apiVersion: "config.openshift.io/v1",
    kind: "ClusterVersion",
    metadata: { name: "version" },
    spec: { clusterID: "0d9a7a52-3f44-4c0b-8a38-5c2f1a6e9b10" },
  });
  await leader.client.notify("ClusterVersion created");
  let desired: { image?: string } | undefined;
  for (let i = 0; i < 300 && desired?.image !== RELEASE; i++) {
    await new Promise((r) => setTimeout(r, 200));
    desired = (await cp.api.get("config.openshift.io/v1", "ClusterVersion", undefined, "version"))?.status?.["desired"] as { image?: string } | undefined;
  }
  const clusterVersionLog = leader
    .stderr()
    .split("\n")
    .filter((l) => /ClusterVersion|forbidden/i.test(l))
    .slice(-5)
    .join("\n");
  assert.equal(desired?.image, RELEASE, `the ClusterVersion status shows the release; server log:\n${clusterVersionLog}`);

  const lease = await cp.api.get("coordination.k8s.io/v1", "Lease", namespace, "syncworker-leader");
  assert.match((lease?.["spec"] as { holderIdentity: string }).holderIdentity, new RegExp(`_${leader.child.pid}$`), "the leader holds the Lease");
  assert.ok(await cp.api.get("v1", "ConfigMap", namespace, "syncworker-state"), "the state is saved");
  const events = (await cp.api.must("GET", `/api/v1/namespaces/${namespace}/events`)) as { items: Array<{ source?: { component?: string } }> };
  assert.ok(
    events.items.some((e) => e.source?.component === "syncworker"),
    "the worker's events are recorded",
  );

  // The Deployment's own command line starts (as a third replica, a standby) and answers its probes. Only the
  // kubeconfig (in-cluster there), the ports (0: any free one) and the package's place (the image's /app) differ.
  const container = (find("Deployment")["spec"] as { template: { spec: { containers: Array<{ args: string[] }> } } }).template.spec.containers[0]!;
  const [command, ...flags] = container.args.flatMap((a) =>
    a === "--kubeconfig=in-cluster"
      ? ["--kubeconfig", kubeconfig]
      : [a.replace(/^(--[a-z-]*listen=.*):\d+$/, "$1:0").replace(/=\/app\/(.*)$/, (_, path: string) => `=${join(REPO_ROOT, path)}`)],
  );
  assert.equal(command, "serve");
  servers.push(await startServer([...flags, "--namespace", namespace]));
  const pod = servers.at(-1)!;
  assert.equal(await (await fetch(`http://${pod.adminAddress.replace("0.0.0.0", "127.0.0.1")}/healthz`)).text(), "ok");
  assert.match(await (await fetch(`http://${pod.adminAddress.replace("0.0.0.0", "127.0.0.1")}/readyz`)).text(), /^ok: standby, version \d+\.\d+\.\d+/);

  // Refusals the service survives (an event not written, a watch refused) are only logged: none may occur.
  for (const server of servers) assert.doesNotMatch(server.stderr(), /forbidden/i, "no request was refused");
});
