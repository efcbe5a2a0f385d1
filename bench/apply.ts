// `npm run bench -- apply`: generated payloads of 1,000 and 5,000 manifests (`BENCH_MANIFESTS=1000,5000`) against the
// harness's real kube-apiserver, timing (a) syncworker's initial sync (Initializing mode, where the CVO skips workload
// readiness), split into phases from its own metrics, (b) kubectl's server-side apply of the same files, (c) an
// unordered raw loop of parallel server-side-apply PATCHes, (d) the ordered raw limit: the same PATCHes run through
// syncworker's own task graph (run levels, components, Job barriers, Initializing's flattening, as many workers as it
// uses) with no bookkeeping, and (e) syncworker's no-op reconcile pass. Each contender gets its own namespaces.
import { execFile } from "node:child_process";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import type { SyncWorkerStatus } from "@syncworker/client";
import { runGraph, Task } from "../src/graph/index.js";
import { passGraph } from "../src/worker/apply.js";
import { gvkOf, type Manifest } from "../src/payload/manifest.js";
import { kubectlBinary, startControlPlane } from "../test/harness/control-plane.js";
import type { KubeRest } from "../test/harness/kube-rest.js";
import { writePayload } from "../test/harness/payload-gen.js";
import { startServer } from "../test/harness/server.js";

const SIZES = (process.env["BENCH_MANIFESTS"] ?? "1000,5000").split(",").map(Number);
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
function objects(prefix: string, N: number): Array<{ file: string; obj: Obj }> {
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
            spec: {
              replicas: 1,
              selector: { matchLabels: labels },
              template: { metadata: { labels }, spec: { containers: [{ name: "c", image: "registry.example/bench:1" }] } },
            },
          },
          { apiVersion: "bench.example.com/v1", kind: "Widget", metadata: meta, spec: { size: i } },
        ];
        out.push({ file: `${base}_01_${String(i).padStart(4, "0")}.yaml`, obj: kinds[i % kinds.length]! });
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

/**
 * The physical limit of a faithful runner: the payload's manifests in syncworker's own task graph ({@link passGraph}), as its
 * Initializing pass builds it (split on Jobs, flattened by run level and component, one worker per node), each task
 * one PATCH and nothing else: no status, no progress, no metrics, no cache.
 */
async function orderedRaw(api: KubeRest, objs: ReadonlyArray<{ file: string; obj: Obj }>): Promise<void> {
  const manifests: Manifest[] = objs.map(({ file, obj }) => ({ originalFilename: file, raw: JSON.stringify(obj), gvk: gvkOf(obj), obj }));
  const tasks = manifests.map((manifest, i) => new Task(i + 1, manifests.length, manifest, { steps: 1, durationMs: 0, factor: 1, jitter: 0, capMs: 0 }));
  const { graph, maxWorkers } = passGraph(tasks, { state: "Initializing", attempt: 0 }, WORKERS);
  const errors = await runGraph(
    graph,
    maxWorkers,
    async (nodeTasks) => {
      for (const task of nodeTasks) await api.apply(task.manifest.obj as Obj, "ordered-raw-bench");
    },
    new AbortController().signal,
  );
  if (errors) throw new AggregateError(errors, `ordered raw apply: ${errors.length} tasks failed`);
}

async function seconds(run: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await run();
  return (performance.now() - started) / 1000;
}

/**
 * Sums of the service's own histograms, read from its /metrics right after the initial sync: where its time went.
 * `api` counts the applies (PATCH) only: the other requests (discovery, the watch cache's lists, status) are not a
 * task's.
 */
async function phaseSums(adminAddress: string): Promise<{ loadS: number; taskS: number; apiS: number; requests: number; byKind: string }> {
  const text = await (await fetch(`http://${adminAddress}/metrics`)).text();
  // parse-prometheus-text-format drops a labelled histogram's _sum and _count, so the samples are read here.
  const samples = [...text.matchAll(/^(\w+)(?:\{([^}]*)\})? (\S+)$/gm)].map(([, name, labels, value]) => ({
    name,
    labels: labels ?? "",
    value: Number(value),
  }));
  const sum = (name: string, label = ""): number => samples.filter((m) => m.name === name && m.labels.includes(label)).reduce((total, m) => total + m.value, 0);
  return {
    loadS: sum("syncworker_payload_load_duration_seconds_sum"),
    taskS: sum("syncworker_task_duration_seconds_sum"),
    apiS: sum("syncworker_kube_request_duration_seconds_sum", 'verb="PATCH"'),
    requests: sum("syncworker_kube_request_duration_seconds_count"),
    byKind: samples
      .filter((m) => m.name === "syncworker_task_duration_seconds_sum")
      .map((m) => `${/kind="([^"]+)"/.exec(m.labels)?.[1]} ${m.value.toFixed(1)}s`)
      .join(", "),
  };
}

const f = (x: number): string => x.toFixed(2);

/** One size: every contender on its own namespaces; the RESULT fields of that size, suffixed with its manifest count. */
async function measure(cp: Awaited<ReturnType<typeof startControlPlane>>, work: string, n: number): Promise<string> {
  const sw = objects(`sw${n}`, n);
  const payload = join(work, `payload-${n}`);
  await writePayload(payload, "1.0.0", [{ file: "0000_05_bench_00_crd.yaml", obj: CRD }, ...sw]);
  const server = await startServer(["--kubeconfig", cp.kubeconfig, "--reconcile-interval", `${INTERVAL_S}s`, "--backoff-steps", "2"]);
  let last: SyncWorkerStatus | undefined;
  // One watch for every wait: leaving a for-await loop would close it.
  const statuses = server.client.watchStatus();
  const until = async (p: (s: SyncWorkerStatus) => boolean): Promise<void> => {
    for (let r = await statuses.next(); !r.done; r = await statuses.next()) if (p((last = r.value))) return;
    throw new Error(`the status watch ended; last: ${JSON.stringify(last)}`);
  };
  const started = performance.now();
  let loadedAt = 0;
  await server.client.update({ generation: 1, desired: { version: "", image: payload, force: false }, overrides: [], capabilities: undefined, state: 0 });
  await until((s) => {
    if (!loadedAt && s.loadPayloadStatus?.step === "PayloadLoaded") loadedAt = performance.now();
    return s.completed >= 1 && !s.failure;
  });
  const syncworkerS = (performance.now() - started) / 1000;
  const applyS = (performance.now() - loadedAt) / 1000;
  const phases = await phaseSums(server.adminAddress);
  // A notification does not start a pass when nothing changed (as upstream), so the no-op pass is
  // the next timed one: its duration is the wait for it less the reconcile interval.
  const requestsBefore = await cp.api.requestCounts();
  const noopS =
    (await seconds(async () => {
      const before = last?.completed ?? 1;
      await until((s) => s.completed > before);
    })) - INTERVAL_S;
  const requestsAfter = await cp.api.requestCounts();
  const noopRequests = [...requestsAfter].reduce((sum, [key, count]) => sum + count - (requestsBefore.get(key) ?? 0), 0);
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
  const preS = (loadedAt - started) / 1000;
  // The payload's tasks (n and the CRD); a pass that starts right after adds tasks served from the cache, in ~0 ms.
  const pathMs = ((phases.taskS - phases.apiS) / (n + 1)) * 1000;
  console.log(
    `syncworker, ${n} manifests: initial ${f(syncworkerS)}s = ${f(preS)}s until loaded (load ${f(phases.loadS)}s) + ${f(applyS)}s applying; ` +
      `tasks took ${f(phases.taskS)}s in all, ${f(phases.apiS)}s of it in applies (${phases.requests} requests in all) (our task path ${pathMs.toFixed(3)} ms a task; by kind: ${phases.byKind}); ` +
      `no-op ${f(noopS)}s with ${noopRequests} requests (${last?.done}/${last?.total}), drift fixed in ${f(driftFixS)}s`,
  );

  const kc = objects(`kc${n}`, n);
  const files = join(work, `kubectl-${n}`);
  await mkdir(files);
  await writeFile(
    join(files, "0000_00_namespaces.yaml"),
    kc
      .filter((o) => o.obj.kind === "Namespace")
      .map((o) => `---\n${JSON.stringify(o.obj)}`)
      .join("\n"),
  );
  await writeFile(
    join(files, "0000_01_objects.yaml"),
    kc
      .filter((o) => o.obj.kind !== "Namespace")
      .map((o) => `---\n${JSON.stringify(o.obj)}`)
      .join("\n"),
  );
  const kubectl = await kubectlBinary();
  const kubectlS = await seconds(async () => {
    for (const file of ["0000_00_namespaces.yaml", "0000_01_objects.yaml"]) {
      await promisify(execFile)(kubectl, ["--kubeconfig", cp.kubeconfig, "apply", "--server-side", "--force-conflicts", "-f", join(files, file)], {
        maxBuffer: 256 << 20,
      });
    }
  });
  console.log(`kubectl (${kubectl}), ${n} manifests: ${f(kubectlS)}s`);

  const rawS = await seconds(() => raw(cp.api, objects(`raw${n}`, n)));
  console.log(`raw parallel SSA (${WORKERS} at a time), ${n} manifests: ${f(rawS)}s`);
  const orderedRawS = await seconds(() => orderedRaw(cp.api, [{ file: "0000_05_bench_00_crd.yaml", obj: CRD }, ...objects(`or${n}`, n)]));
  console.log(`ordered raw SSA (syncworker's graph, no bookkeeping), ${n} manifests: ${f(orderedRawS)}s`);

  return [
    `syncworker_s_${n}=${f(syncworkerS)} pre_apply_s_${n}=${f(preS)} load_s_${n}=${f(phases.loadS)} apply_s_${n}=${f(applyS)}`,
    `task_s_${n}=${f(phases.taskS)} api_s_${n}=${f(phases.apiS)} requests_${n}=${phases.requests} task_path_ms_${n}=${pathMs.toFixed(3)}`,
    `per_manifest_ms_${n}=${((syncworkerS / n) * 1000).toFixed(2)} kubectl_s_${n}=${f(kubectlS)} raw_s_${n}=${f(rawS)} ordered_raw_s_${n}=${f(orderedRawS)}`,
    `vs_ordered_raw_${n}=${f(syncworkerS / orderedRawS)} vs_raw_${n}=${f(syncworkerS / rawS)} speedup_vs_kubectl_${n}=${f(kubectlS / syncworkerS)}`,
    `noop_s_${n}=${f(noopS)} noop_requests_${n}=${noopRequests} drift_fix_s_${n}=${f(driftFixS)}`,
  ].join(" ");
}

export async function run(): Promise<void> {
  const cp = await startControlPlane();
  const work = await mkdtemp(join(tmpdir(), "syncworker-bench-apply-"));
  try {
    await cp.api.apply(CRD, "bench-setup");
    for (let i = 0; i < 100 && !(await cp.api.serves("bench.example.com/v1", "Widget")); i++) await new Promise((r) => setTimeout(r, 100));
    // A fresh API server's first writes are slower (its Service writes 5x so in the first thousand): every contender
    // meets a warm server, not only those that run later.
    await raw(cp.api, objects("warm", 1000));
    const results: string[] = [];
    for (const n of SIZES) results.push(await measure(cp, work, n));
    console.log(`RESULT apply ${results.join(" ")}`);
  } finally {
    await rm(work, { recursive: true, force: true });
    await cp.stop();
  }
}
