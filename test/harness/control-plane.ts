import { execFile, spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { rmSync } from "node:fs";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { KubeRest } from "./kube-rest.js";
import { REPO_ROOT } from "./server.js";
import { freePort } from "./ports.js";

const run = promisify(execFile);

/** kube-apiserver's first start compiles OpenAPI and bootstraps RBAC; on 2 cores that takes a while. */
const START_TIMEOUT_MS = 120_000;

let binaries: Promise<string> | undefined;

/**
 * The folder holding kube-apiserver, etcd and kubectl, built by scripts/build-control-plane.sh on first use
 * and cached outside the repository by version. The build's progress goes to this process's stderr
 * because a cold build takes many minutes and a silent test would look hung.
 */
export function controlPlaneBinaries(): Promise<string> {
  binaries ??= new Promise((resolve, reject) => {
    const child = spawn("bash", [join(REPO_ROOT, "scripts/build-control-plane.sh")], { stdio: ["ignore", "pipe", "inherit"] });
    let out = "";
    child.stdout.on("data", (chunk: Buffer) => (out += chunk.toString()));
    child.once("error", reject);
    child.once("exit", (code) => {
      const dir = out.trim().split("\n").pop() ?? "";
      if (code === 0 && dir) resolve(dir);
      else reject(new Error(`scripts/build-control-plane.sh exited with ${code}`));
    });
  });
  return binaries;
}

/** The kubectl built beside the control plane (its version matches the API server's), or where KUBECTL says. */
export async function kubectlBinary(): Promise<string> {
  return process.env["KUBECTL"] ?? join(await controlPlaneBinaries(), "kubectl");
}

/** Processes still running when the test process exits are killed, even after a failed assertion. */
const live = new Set<ChildProcess>();
/** Working folders (etcd data, certificates) still to remove when the process exits early. */
const workDirs = new Set<string>();
let exitHooked = false;
function track(child: ChildProcess): void {
  live.add(child);
  child.once("exit", () => live.delete(child));
  if (exitHooked) return;
  exitHooked = true;
  process.once("exit", () => {
    for (const c of live) c.kill("SIGKILL");
    for (const dir of workDirs) rmSync(dir, { recursive: true, force: true });
  });
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    process.once(signal, () => {
      for (const c of live) c.kill("SIGKILL");
      process.exit(128 + (signal === "SIGINT" ? 2 : 15));
    });
  }
}

/** SIGTERM, then SIGKILL after `graceMs`: kube-apiserver is known to hang on shutdown now and then. */
async function terminate(child: ChildProcess, graceMs = 10_000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, "exit");
  child.kill("SIGTERM");
  const timer = setTimeout(() => child.kill("SIGKILL"), graceMs);
  await exited;
  clearTimeout(timer);
}

interface Spawned {
  readonly child: ChildProcess;
  readonly log: () => string;
}

function start(binary: string, args: readonly string[]): Spawned {
  const child = spawn(binary, args, { stdio: ["ignore", "pipe", "pipe"] });
  track(child);
  let log = "";
  // Keep only the tail: kube-apiserver logs a lot and only the last lines explain a failure.
  const keep = (chunk: Buffer): void => void (log = (log + chunk.toString()).slice(-20_000));
  child.stdout?.on("data", keep);
  child.stderr?.on("data", keep);
  return { child, log: () => log };
}

/** Polls `probe` until it resolves true; fails with the process log if the process exits or time runs out. */
async function waitUntil(what: string, spawned: Spawned, probe: () => Promise<boolean>, timeoutMs = START_TIMEOUT_MS): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (spawned.child.exitCode !== null) throw new Error(`${what} exited with ${spawned.child.exitCode}:\n${spawned.log()}`);
    if (await probe().catch(() => false)) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`${what} not ready within ${timeoutMs}ms:\n${spawned.log()}`);
}

async function writePki(pki: string): Promise<{ token: string; operator: string }> {
  await mkdir(pki, { recursive: true });
  const ossl = (...args: string[]): Promise<unknown> => run("openssl", args, { cwd: pki });
  await ossl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "7", "-subj", "/CN=syncworker-test-ca", "-keyout", "ca.key", "-out", "ca.crt");
  await ossl("req", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=localhost", "-keyout", "apiserver.key", "-out", "apiserver.csr");
  await writeFile(
    join(pki, "apiserver.ext"),
    "subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\nkeyUsage=digitalSignature,keyEncipherment\n",
  );
  await ossl(
    "x509",
    "-req",
    "-in",
    "apiserver.csr",
    "-CA",
    "ca.crt",
    "-CAkey",
    "ca.key",
    "-CAcreateserial",
    "-days",
    "7",
    "-out",
    "apiserver.crt",
    "-extfile",
    "apiserver.ext",
  );
  await ossl("genrsa", "-out", "sa.key", "2048");
  const { stdout } = await run("openssl", ["rand", "-hex", "16"]);
  const token = stdout.trim();
  const operator = (await run("openssl", ["rand", "-hex", "16"])).stdout.trim();
  // test-operator is in no group: unlike system:masters, the API server's throttling applies to it.
  await writeFile(join(pki, "tokens.csv"), `${token},test-admin,test-admin-uid,"system:masters"\n${operator},test-operator,test-operator-uid\n`);
  return { token, operator };
}

export interface ControlPlane {
  /** A kubeconfig for `serve --kubeconfig`: the serving CA and an admin bearer token. */
  readonly kubeconfig: string;
  /**
   * A kubeconfig for a cluster-admin that is not in system:masters, so the API server's throttling
   * (max-inflight, priority and fairness) applies to it, as to a real deployment's ServiceAccount.
   */
  readonly operatorKubeconfig: string;
  readonly server: string;
  /** Writes a kubeconfig for this cluster that authenticates as `user` with `token` (a ServiceAccount's, say). */
  kubeconfigFor(user: string, token: string): Promise<string>;
  /** A small REST client for the tests' own reads and writes (the tests play the operators). */
  readonly api: KubeRest;
  /** Stops kube-apiserver only (etcd keeps the data), to simulate an API server outage. */
  stopApiServer(): Promise<void>;
  /** Starts kube-apiserver again on the same port and waits for /readyz. */
  startApiServer(): Promise<void>;
  /** Stops both processes and removes the working folder. */
  stop(): Promise<void>;
}

/**
 * Starts etcd and kube-apiserver on free loopback ports as envtest does (see test-infra.md §C), with
 * `apiServerArgs` appended to kube-apiserver's flags (later flags win):
 * no controller-manager, scheduler or kubelet, so Deployments never roll out and namespaces never
 * finish deleting; tests play the controllers and use unique namespaces.
 */
export async function startControlPlane(options: { readonly apiServerArgs?: readonly string[] } = {}): Promise<ControlPlane> {
  const bin = await controlPlaneBinaries();
  const dir = await mkdtemp(join(tmpdir(), "syncworker-cp-"));
  workDirs.add(dir);
  const pki = join(dir, "pki");
  const { token, operator } = await writePki(pki);
  const [etcdPort, peerPort, apiPort] = [await freePort(), await freePort(), await freePort()];

  const etcd = start(join(bin, "etcd"), [
    "--name=test",
    `--data-dir=${join(dir, "etcd")}`,
    `--listen-client-urls=http://127.0.0.1:${etcdPort}`,
    `--advertise-client-urls=http://127.0.0.1:${etcdPort}`,
    `--listen-peer-urls=http://127.0.0.1:${peerPort}`,
    `--initial-advertise-peer-urls=http://127.0.0.1:${peerPort}`,
    `--initial-cluster=test=http://127.0.0.1:${peerPort}`,
    "--initial-cluster-state=new",
    "--unsafe-no-fsync=true",
    "--log-level=warn",
  ]);
  await waitUntil("etcd", etcd, async () => (await fetch(`http://127.0.0.1:${etcdPort}/health`)).ok, 30_000);

  const server = `https://127.0.0.1:${apiPort}`;
  const api = await KubeRest.create(server, join(pki, "ca.crt"), token);
  const apiArgs = [
    `--etcd-servers=http://127.0.0.1:${etcdPort}`,
    "--bind-address=127.0.0.1",
    `--secure-port=${apiPort}`,
    // Never dialled: with the reconciler off it is only validated, and loopback is rejected (test-infra.md §C.2).
    "--advertise-address=192.0.2.1",
    "--endpoint-reconciler-type=none",
    `--cert-dir=${pki}`,
    `--token-auth-file=${join(pki, "tokens.csv")}`,
    "--authorization-mode=RBAC",
    `--service-account-issuer=${server}`,
    `--service-account-key-file=${join(pki, "sa.key")}`,
    `--service-account-signing-key-file=${join(pki, "sa.key")}`,
    // Room for the bench's thousands of Services (a /24 runs out at 254).
    "--service-cluster-ip-range=10.0.0.0/16",
    "--disable-admission-plugins=ServiceAccount",
    "--allow-privileged=true",
    "--v=0",
    ...(options.apiServerArgs ?? []),
  ];
  let apiserver: Spawned | undefined;
  const startApiServer = async (): Promise<void> => {
    apiserver = start(join(bin, "kube-apiserver"), apiArgs);
    await waitUntil("kube-apiserver", apiserver, async () => (await api.request("GET", "/readyz")).status === 200);
  };
  const stopApiServer = async (): Promise<void> => {
    if (apiserver) await terminate(apiserver.child);
    apiserver = undefined;
  };
  try {
    await startApiServer();
  } catch (err) {
    await stopApiServer();
    await terminate(etcd.child);
    throw err;
  }

  const ca = api.caBase64();
  const writeKubeconfig = async (file: string, user: string, bearer: string): Promise<string> => {
    const path = join(dir, file);
    await writeFile(
      path,
      [
        "apiVersion: v1",
        "kind: Config",
        "clusters:",
        `- name: test\n  cluster:\n    server: ${server}\n    certificate-authority-data: ${ca}`,
        "users:",
        `- name: ${user}\n  user:\n    token: ${bearer}`,
        "contexts:",
        `- name: test\n  context:\n    cluster: test\n    user: ${user}`,
        "current-context: test",
        "",
      ].join("\n"),
    );
    return path;
  };
  const kubeconfig = await writeKubeconfig("kubeconfig", "test-admin", token);
  const operatorKubeconfig = await writeKubeconfig("operator-kubeconfig", "test-operator", operator);
  await api.must("POST", "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings", {
    apiVersion: "rbac.authorization.k8s.io/v1",
    kind: "ClusterRoleBinding",
    metadata: { name: "test-operator" },
    roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: "cluster-admin" },
    subjects: [{ kind: "User", name: "test-operator", apiGroup: "rbac.authorization.k8s.io" }],
  });

  return {
    kubeconfig,
    operatorKubeconfig,
    server,
    kubeconfigFor: (user, bearer) => writeKubeconfig(`${user}-kubeconfig`, user, bearer),
    api,
    stopApiServer,
    startApiServer,
    stop: async () => {
      await stopApiServer();
      await terminate(etcd.child);
      api.close();
      await rm(dir, { recursive: true, force: true });
      workDirs.delete(dir);
    },
  };
}
