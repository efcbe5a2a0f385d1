/**
 * A fleet for the tests: the harness's real kube-apiserver as the hub with the fleet's CRDs, member `serve` processes
 * on embedded clusters registered as MemberClusters, `syncworker fleet` replicas, and demo releases at any version.
 */
import { execFile, spawn } from "node:child_process";
import { cp as copy, mkdtemp, readFile, readdir, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { isComplete, type SyncWorkerStatus } from "@syncworker/client";
import { kubectlBinary, type ControlPlane } from "./control-plane.js";
import { REPO_ROOT, startServer, superviseServer, SYNCWORKER, waitForStatus, type ServerProcess } from "./server.js";

const run = promisify(execFile);
export const FLEET_API = "fleet.syncworker.io/v1alpha1";

/** kubectl against the hub, as its admin. */
export async function kubectl(cp: ControlPlane, ...args: string[]): Promise<string> {
  const { stdout } = await run(await kubectlBinary(), ["--kubeconfig", cp.kubeconfig, ...args], { maxBuffer: 16 << 20 });
  return stdout;
}

/** The fleet's CRDs installed and established on the hub, and `namespace` created. */
export async function installFleet(cp: ControlPlane, namespace: string): Promise<void> {
  await kubectl(cp, "apply", "--server-side", "-f", join(REPO_ROOT, "deploy/fleet/crds.yaml"));
  await kubectl(cp, "wait", "--for=condition=Established", "crd/memberclusters.fleet.syncworker.io", "crd/releaserollouts.fleet.syncworker.io");
  await kubectl(cp, "create", "namespace", namespace);
}

/** The demo release copied to `dir/demo-<version>`, every mention of its version replaced (in a Job's name too: a Job's template cannot change, so each release names its own). */
export async function demoAt(dir: string, version: string): Promise<string> {
  const source = join(REPO_ROOT, "examples/payloads/demo-1.1.0");
  const target = join(dir, `demo-${version}`);
  await copy(source, target, { recursive: true });
  const manifests = join(target, "release-manifests");
  for (const file of await readdir(manifests)) {
    const path = join(manifests, file);
    await writeFile(path, (await readFile(path, "utf8")).replaceAll("1.1.0", version).replaceAll("1-1-0", version.replaceAll(".", "-")));
  }
  return target;
}

export const tempDir = (prefix: string): Promise<string> => mkdtemp(join(tmpdir(), prefix));

/** Members started five at a time (a cold start takes about 2 s of CPU each), each taken to `initial` directly. */
export async function startMembers(count: number, initial: string, argsOf: (i: number) => readonly string[] = () => []): Promise<ServerProcess[]> {
  const members: ServerProcess[] = [];
  for (let i = 0; i < count; i += 5) {
    const batch = await Promise.all(
      Array.from({ length: Math.min(5, count - i) }, (_, j) => startServer(["--operator-delay", "1s", "--reconcile-interval", "60s", ...argsOf(i + j)])),
    );
    members.push(...batch);
  }
  await Promise.all(
    members.map(async (m) => {
      await m.client.update({ generation: 1, desired: { image: initial } });
      await waitForStatus(m.client, (s) => isComplete(s), 180_000);
    }),
  );
  return members;
}

export const memberName = (i: number): string => `m-${String(i).padStart(2, "0")}`;

/** Registers each member as a MemberCluster of `namespace`, named m-00, m-01, … in order. */
export async function registerMembers(cp: ControlPlane, namespace: string, members: readonly ServerProcess[]): Promise<void> {
  for (const [i, m] of members.entries())
    await cp.api.apply(
      {
        apiVersion: FLEET_API,
        kind: "MemberCluster",
        metadata: { name: memberName(i), namespace, labels: { env: "test" } },
        spec: { address: m.address },
      } as never,
      "fleet-test",
    );
}

/** A `syncworker fleet` replica on the hub, on free ports. */
export async function startHub(cp: ControlPlane, namespace: string, extraArgs: readonly string[] = [], env: NodeJS.ProcessEnv = {}): Promise<ServerProcess> {
  const args = [
    ...SYNCWORKER,
    "fleet",
    "--kubeconfig",
    cp.kubeconfig,
    "--namespace",
    namespace,
    "--listen",
    "127.0.0.1:0",
    "--admin-listen",
    "127.0.0.1:0",
    "--resync",
    "5s",
    ...extraArgs,
  ];
  const child = spawn(process.execPath, args, { stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, LOG_LEVEL: "info", ...env } });
  return superviseServer(child, false);
}

export interface RolloutStatusView {
  phase?: string;
  currentStage?: string;
  stageSummary?: string;
  pinnedImage?: string;
  counts?: Record<string, number>;
  stages?: { name: string; startedAt?: string; completedAt?: string; succeeded: number; total: number }[];
  members?: { name: string; stage: string; state: string; generation?: number; blocker?: string }[];
  conditions?: { type: string; status: string; reason: string; message: string }[];
}

export async function rolloutStatus(cp: ControlPlane, namespace: string, name: string): Promise<RolloutStatusView> {
  const obj = await cp.api.get(FLEET_API, "ReleaseRollout", namespace, name);
  return obj?.["status"] ?? {};
}

export async function waitForRollout(
  cp: ControlPlane,
  namespace: string,
  name: string,
  predicate: (s: RolloutStatusView) => boolean,
  timeoutMs: number,
): Promise<RolloutStatusView> {
  const deadline = Date.now() + timeoutMs;
  let last: RolloutStatusView = {};
  while (Date.now() < deadline) {
    last = await rolloutStatus(cp, namespace, name);
    if (predicate(last)) return last;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`rollout ${namespace}/${name} did not get there within ${timeoutMs} ms; its status: ${JSON.stringify(last, null, 1).slice(0, 6_000)}`);
}

/**
 * Watches every member's own StatusWatch and records, per member, each generation it was seen at with the time it
 * was first seen, and the most members seen updating at once (past the generation it had when sampling began, not
 * complete, not failing): the fleet's concurrency as the members themselves report it.
 */
export class MemberSampler {
  readonly firstSeen = new Map<string, Map<number, number>>();
  readonly latest = new Map<string, SyncWorkerStatus>();
  maxUpdating = 0;
  readonly #stop = new AbortController();
  readonly #loops: Promise<void>[];

  readonly #baseline = new Map<string, number>();

  constructor(members: readonly ServerProcess[]) {
    this.#loops = members.map((m, i) => this.#follow(memberName(i), m));
  }

  async #follow(name: string, member: ServerProcess): Promise<void> {
    try {
      for await (const status of member.client.watchStatus({ signal: this.#stop.signal })) {
        const seen = this.firstSeen.get(name) ?? new Map<number, number>();
        if (!seen.has(status.generation)) seen.set(status.generation, Date.now());
        this.firstSeen.set(name, seen);
        this.latest.set(name, status);
        if (!this.#baseline.has(name)) this.#baseline.set(name, status.generation);
        const updating = [...this.latest].filter(
          ([n, s]) => s.generation > (this.#baseline.get(n) ?? 0) && !isComplete(s) && !s.failure && !s.loadPayloadStatus?.failure,
        ).length;
        this.maxUpdating = Math.max(this.maxUpdating, updating);
      }
    } catch {
      // Stopped, or the member was killed by the test: its later snapshots come from a new sampler.
    }
  }

  async stop(): Promise<void> {
    this.#stop.abort();
    await Promise.all(this.#loops);
  }
}
