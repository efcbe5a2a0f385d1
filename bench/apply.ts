// `npm run bench -- apply`: 1,000 generated manifests against the harness's real kube-apiserver, timing
// (a) syncworker's initial sync (Initializing mode, where the CVO skips workload readiness), (b) kubectl's
// server-side apply of the same files, (c) a raw loop of parallel server-side-apply PATCHes at syncworker's
// concurrency, and (d) syncworker's no-op reconcile pass. Each contender gets its own namespaces.
import { execFile } from "node:child_process";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import type { SyncWorkerStatus } from "@syncworker/client";
import { kubectlBinary, startControlPlane } from "../test/harness/control-plane.js";
import type { KubeRest } from "../test/harness/kube-rest.js";
import { writePayload } from "../test/harness/payload-gen.js";
import { startServer } from "../test/harness/server.js";

const N = 1000;
const WORKERS = 16; // serve's --max-workers default
/** Also the deadline of the initial pass, so it must exceed it comfortably. */
const INTERVAL_S = 30;
const COMPONENTS = 4;
const LEVELS = [10, 20, 30, 40, 50];
const INCLUDE = { "include.release.openshift.io/self-managed-high-availability": "true" };

type Obj = { apiVersion: string; kind: string; metadata: { name: string; namespace?: string; annotations?: Record<string, string> }; [k: string]: unknown };

const CRD: Obj = {
  apiVersion: "apiextensions.k8s.io/v1",
  kind: "CustomResourceDefinition",
  metadata: { name: "widgets.bench.example.com", annotations: INCLUDE },
  spec: {
    group: "bench.example.com",
    scope: "Namespaced",
    names: { kind: "Widget", plural: "widgets", singular: "widget", listKind: "WidgetList" },
    versions: [{ name: "v1", served: true, storage: true, schema: { openAPIV3Schema: { type: "object", "x-kubernetes-preserve-unknown-fields": true } } }],
  },
};

/** The objects of one contender, spread over run levels and components, in file order. */
function objects(prefix: string): Array<{ file: string; obj: Obj }> {
  const out: Array<{ file: string; obj: Obj }> = [];
  const perComponent = Math.ceil((N - LEVELS.length * COMPONENTS) / (LEVELS.length * COMPONENTS));
  for (const level of LEVELS) {
    for (let c = 0; c < COMPONENTS; c++) {
      const ns = `${prefix}-l${level}-c${c}`;
      const base = `0000_${level}_bench-c${c}`;
      out.push({ file: `${base}_00_ns.yaml`, obj: { apiVersion: "v1", kind: "Namespace", metadata: { name: ns, annotations: INCLUDE } } });
      for (let i = 0; i < perComponent && out.length < N; i++) {
        const name = `o${i}`;
        const meta = { name, namespace: ns, annotations: INCLUDE };
        const labels = { app: name };
        const kinds: Obj[] = [
          { apiVersion: "v1", kind: "ConfigMap", metadata: meta, data: { key: `value-${i}`, level: String(level) } },
          { apiVersion: "v1", kind: "Secret", metadata: meta, stringData: { token: `t-${i}` } },
          { apiVersion: "v1", kind: "Service", metadata: meta, spec: { selector: labels, ports: [{ name: "http", port: 80, targetPort: 8080 }] } },
          {
            apiVersion: "apps/v1",
            kind: "Deployment",
            metadata: meta,
            spec: { replicas: 1, selector: { matchLabels: labels }, template: { metadata: { labels }, spec: { containers: [{ name: "c", image: "registry.example/bench:1" }] } } },
          },
          { apiVersion: "bench.example.com/v1", kind: "Widget", metadata: meta, spec: { size: i } },
        ];
        out.push({ file: `${base}_01_${String(i).padStart(3, "0")}.yaml`, obj: kinds[i % kinds.length]! });
      }
    }
  }
  return out.slice(0, N);
}

async function raw(api: KubeRest, objs: ReadonlyArray<{ obj: Obj }>): Promise<void> {
  // Namespaces first, as any client must; then everything else WORKERS at a time.
  const [namespaces, rest] = [objs.filter((o) => o.obj.kind === "Namespace"), objs.filter((o) => o.obj.kind !== "Namespace")];
  for (const batch of [namespaces, rest]) {
    let next = 0;
    await Promise.all(
      Array.from({ length: WORKERS }, async () => {
        while (next < batch.length) await api.apply(batch[next++]!.obj, "raw-bench");
      }),
    );
  }
}

async function seconds(run: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await run();
  return (performance.now() - started) / 1000;
}

export async function run(): Promise<void> {
  const cp = await startControlPlane();
  const work = await mkdtemp(join(tmpdir(), "syncworker-bench-apply-"));
  try {
    await cp.api.apply(CRD, "bench-setup");
    for (let i = 0; i < 100 && !(await cp.api.serves("bench.example.com/v1", "Widget")); i++) await new Promise((r) => setTimeout(r, 100));

    const sw = objects("sw");
    const payload = join(work, "payload");
    await writePayload(payload, "1.0.0", [{ file: "0000_05_bench_00_crd.yaml", obj: CRD }, ...sw]);
    const server = await startServer(["--kubeconfig", cp.kubeconfig, "--reconcile-interval", `${INTERVAL_S}s`, "--backoff-steps", "2"]);
    let last: SyncWorkerStatus | undefined;
    // One watch for both waits: leaving a for-await loop would close it.
    const statuses = server.client.watchStatus();
    const until = async (p: (s: SyncWorkerStatus) => boolean): Promise<void> => {
      for (let r = await statuses.next(); !r.done; r = await statuses.next()) if (p((last = r.value))) return;
      throw new Error(`the status watch ended; last: ${JSON.stringify(last)}`);
    };
    const syncworkerS = await seconds(async () => {
      await server.client.update({ generation: 1, desired: { version: "", image: payload, force: false }, overrides: [], capabilities: undefined, state: 0 });
      await until((s) => s.completed >= 1 && !s.failure);
    });
    // A notification does not start a pass when nothing changed (as upstream), so the no-op pass is
    // the next timed one: its duration is the wait for it less the reconcile interval.
    const requestsBefore = await cp.api.requestCounts();
    const noopS =
      (await seconds(async () => {
        const before = last?.completed ?? 1;
        await until((s) => s.completed > before);
      })) -
      INTERVAL_S;
    const requestsAfter = await cp.api.requestCounts();
    const noopRequests = [...requestsAfter].reduce((sum, [key, n]) => sum + n - (requestsBefore.get(key) ?? 0), 0);
    // Drift: another field manager edits a managed ConfigMap; the watch cache starts a correcting pass.
    const edited = sw.find((o) => o.obj.kind === "ConfigMap")!.obj;
    const path = await cp.api.pathOf("v1", "ConfigMap", edited.metadata.namespace, edited.metadata.name);
    const driftFixS = await seconds(async () => {
      await cp.api.must("PATCH", `${path}?fieldManager=bench-editor`, { data: { key: "tampered" } }, "application/merge-patch+json");
      const want = (edited["data"] as Record<string, string>)["key"];
      while (((await cp.api.must("GET", path)) as { data?: Record<string, string> }).data?.["key"] !== want) await new Promise((r) => setTimeout(r, 50));
    });
    await statuses.return();
    await server.stop();
    console.log(`syncworker: initial ${syncworkerS.toFixed(2)}s, no-op ${noopS.toFixed(2)}s with ${noopRequests} requests (${last?.done}/${last?.total}), drift fixed in ${driftFixS.toFixed(2)}s`);

    const kc = objects("kc");
    const files = join(work, "kubectl");
    await mkdir(files);
    await writeFile(join(files, "0000_00_namespaces.yaml"), kc.filter((o) => o.obj.kind === "Namespace").map((o) => `---\n${JSON.stringify(o.obj)}`).join("\n"));
    await writeFile(join(files, "0000_01_objects.yaml"), kc.filter((o) => o.obj.kind !== "Namespace").map((o) => `---\n${JSON.stringify(o.obj)}`).join("\n"));
    const kubectl = await kubectlBinary();
    const kubectlS = await seconds(async () => {
      for (const f of ["0000_00_namespaces.yaml", "0000_01_objects.yaml"]) {
        await promisify(execFile)(kubectl, ["--kubeconfig", cp.kubeconfig, "apply", "--server-side", "--force-conflicts", "-f", join(files, f)], { maxBuffer: 64 << 20 });
      }
    });
    console.log(`kubectl (${kubectl}): ${kubectlS.toFixed(2)}s`);

    const rawS = await seconds(() => raw(cp.api, objects("raw")));
    console.log(`raw parallel SSA (${WORKERS} at a time): ${rawS.toFixed(2)}s`);

    const f = (x: number): string => x.toFixed(2);
    console.log(
      `RESULT apply n=${N} syncworker_s=${f(syncworkerS)} kubectl_s=${f(kubectlS)} raw_s=${f(rawS)} noop_s=${f(noopS)} noop_requests=${noopRequests} drift_fix_s=${f(driftFixS)} speedup_vs_kubectl=${f(kubectlS / syncworkerS)} vs_limit=${f(syncworkerS / rawS)}`,
    );
  } finally {
    await rm(work, { recursive: true, force: true });
    await cp.stop();
  }
}
