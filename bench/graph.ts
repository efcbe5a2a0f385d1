/**
 * `npm run bench -- graph`: cost of the task graph itself, without any cluster.
 * (a) 10,000 no-op tasks through build (split on Jobs + parallelize by number and component) and
 *     runGraph with 16 workers: the overhead the graph adds to every sync of a large payload.
 * (b) 1,000 independent tasks that each wait 1 ms on a real timer, 16 workers: how close the pool
 *     gets to the ideal `tasks × 1 ms / 16`.
 * Last line: `RESULT graph noop_10k_ms=T efficiency_1ms_16w=E`.
 */
import { performance } from "node:perf_hooks";
import {
  Task,
  TaskGraph,
  byNumberAndComponent,
  createRng,
  flattenByNumberAndComponent,
  runGraph,
  splitOnJobs,
  type Backoff,
  type Rng,
} from "../src/graph/index.js";
import { gvkOf, type KubeObject, type Manifest } from "../src/payload/manifest.js";

const WORKERS = 16;
const NOOP_TASKS = 10_000;
const SLEEP_TASKS = 1_000;
const ROUNDS = 7;
const ONCE: Backoff = { durationMs: 0, factor: 1, jitter: 0, steps: 1, capMs: 0 };

// Run levels of a real payload with a rough component count each: a few wide levels (50, 70, 90)
// and several single-component ones, so both parallel buckets and merged serial nodes appear.
const LEVELS: readonly (readonly [level: string, components: number])[] = [
  ["00", 3],
  ["03", 1],
  ["05", 1],
  ["10", 12],
  ["20", 4],
  ["25", 1],
  ["30", 8],
  ["40", 2],
  ["50", 90],
  ["51", 6],
  ["60", 1],
  ["70", 30],
  ["80", 10],
  ["90", 40],
];
const KINDS: readonly (readonly [apiVersion: string, kind: string, file: string])[] = [
  ["v1", "Namespace", "namespace"],
  ["apiextensions.k8s.io/v1", "CustomResourceDefinition", "crd"],
  ["rbac.authorization.k8s.io/v1", "ClusterRole", "roles"],
  ["v1", "ServiceAccount", "serviceaccount"],
  ["v1", "ConfigMap", "configmap"],
  ["v1", "Service", "service"],
  ["apps/v1", "Deployment", "deployment"],
  ["config.openshift.io/v1", "ClusterOperator", "clusteroperator"],
];

function manifest(obj: KubeObject, originalFilename: string): Manifest {
  return { originalFilename, raw: JSON.stringify(obj), gvk: gvkOf(obj), obj };
}

/**
 * `count` tasks laid out like a payload: per level, per component, numbered files of typical kinds;
 * about one in 500 is a Job (a barrier) and one in 200 a file without a run-level prefix.
 */
function payloadTasks(count: number, rng: Rng): Task[] {
  const components = LEVELS.reduce((n, [, c]) => n + c, 0);
  const perComponent = Math.ceil(count / components);
  const manifests: Manifest[] = [];
  for (const [level, width] of LEVELS) {
    for (let c = 0; c < width && manifests.length < count; c++) {
      const component = `${level === "50" ? "cluster" : "openshift"}-component${c}-operator`;
      for (let f = 0; f < perComponent && manifests.length < count; f++) {
        const [apiVersion, kind, file] = KINDS[f % KINDS.length] ?? ["v1", "ConfigMap", "configmap"];
        const name = `${component}-${f}`;
        const roll = rng.intn(1000);
        if (roll < 2) {
          const job = { apiVersion: "batch/v1", kind: "Job", metadata: { name, namespace: component } };
          manifests.push(manifest(job, `0000_${level}_${component}_${f}_job.yaml`));
        } else if (roll < 7) {
          manifests.push(manifest({ apiVersion, kind, metadata: { name } }, `${file}-${name}.yaml`));
        } else {
          const obj = { apiVersion, kind, metadata: { name, namespace: component } };
          manifests.push(manifest(obj, `0000_${level}_${component}_${String(f).padStart(2, "0")}_${file}.yaml`));
        }
      }
    }
  }
  return manifests.map((m, i) => new Task(i + 1, manifests.length, m, ONCE));
}

/** `count` tasks whose file names carry no run level, so initializing mode gives each its own node. */
function unmatchedTasks(count: number): Task[] {
  return Array.from({ length: count }, (_, i) => {
    const obj = { apiVersion: "v1", kind: "ConfigMap", metadata: { name: `cm-${i}`, namespace: "bench" } };
    return new Task(i + 1, count, manifest(obj, `configmap-${i}.yaml`), ONCE);
  });
}

/** Builds the update-mode graph the worker would, and runs it with a no-op fn. */
async function buildAndRun(tasks: readonly Task[]): Promise<{ ms: number; nodes: number }> {
  const started = performance.now();
  const graph = new TaskGraph(tasks);
  graph.split(splitOnJobs);
  graph.parallelize(byNumberAndComponent);
  const errs = await runGraph(graph, WORKERS, async () => {}, new AbortController().signal);
  const ms = performance.now() - started;
  if (errs) throw new Error(`no-op run failed: ${errs.map((e) => e.message).join("; ")}`);
  return { ms, nodes: graph.nodes.length };
}

/** A wide graph (one node per task) stresses the scheduler's choice of the next node, not the build. */
async function runWide(tasks: readonly Task[]): Promise<{ ms: number; nodes: number }> {
  const graph = new TaskGraph(tasks);
  graph.parallelize(flattenByNumberAndComponent);
  const started = performance.now();
  const errs = await runGraph(graph, WORKERS, async () => {}, new AbortController().signal);
  const ms = performance.now() - started;
  if (errs) throw new Error(`wide run failed: ${errs.map((e) => e.message).join("; ")}`);
  return { ms, nodes: graph.nodes.length };
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** 1,000 single-task nodes (an install-mode graph), each sleeping 1 ms, on 16 workers. */
async function sleepers(): Promise<number> {
  const graph = new TaskGraph(unmatchedTasks(SLEEP_TASKS));
  graph.parallelize(flattenByNumberAndComponent);
  if (graph.nodes.length !== SLEEP_TASKS + 1) throw new Error(`expected one node per task, got ${graph.nodes.length}`);
  const started = performance.now();
  const errs = await runGraph(graph, WORKERS, () => sleep(1), new AbortController().signal);
  const ms = performance.now() - started;
  if (errs) throw new Error(`sleep run failed: ${errs.map((e) => e.message).join("; ")}`);
  return ms;
}

/**
 * How long `waves` back-to-back waves of 16 concurrent `setTimeout(1)` take without any graph: the
 * floor for (b), since Node's timers fire on a millisecond clock after the loop comes round.
 */
async function timerFloor(waves: number): Promise<number> {
  const started = performance.now();
  for (let k = 0; k < waves; k++) await Promise.all(Array.from({ length: WORKERS }, () => sleep(1)));
  return performance.now() - started;
}

const median = (xs: readonly number[]): number => {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? NaN;
};
const fmt = (ms: number): string => ms.toFixed(1);

/**
 * Runs both measurements and prints the RESULT line. (a) reports the median of 7 rounds (the first,
 * cold one includes JIT warm-up and is printed too); (b) the median of 5 rounds, next to the timer floor.
 */
export async function run(): Promise<void> {
  const tasks = payloadTasks(NOOP_TASKS, createRng(1));
  const noop: number[] = [];
  let nodes = 0;
  for (let r = 0; r < ROUNDS; r++) {
    const result = await buildAndRun(tasks);
    noop.push(result.ms);
    nodes = result.nodes;
  }
  console.log(
    `(a) ${tasks.length} no-op tasks → ${nodes} nodes, ${WORKERS} workers: ` +
      `cold ${fmt(noop[0] ?? NaN)} ms, median of ${ROUNDS} ${fmt(median(noop))} ms [${noop.map(fmt).join(", ")}]`,
  );

  const wide = await runWide(unmatchedTasks(NOOP_TASKS));
  console.log(`    scheduler stress: ${wide.nodes} independent nodes, ${WORKERS} workers: ${fmt(wide.ms)} ms`);

  // Floor and run alternate, so both see the same machine load.
  const waves = Math.ceil(SLEEP_TASKS / WORKERS);
  const floors: number[] = [];
  const sleepMs: number[] = [];
  for (let r = 0; r < 5; r++) {
    floors.push(await timerFloor(waves));
    sleepMs.push(await sleepers());
  }
  const elapsed = median(sleepMs);
  const floor = median(floors);
  const ideal = (SLEEP_TASKS * 1) / WORKERS;
  const efficiency = ideal / elapsed;
  console.log(`(b) ${SLEEP_TASKS} × sleep(1 ms), ${WORKERS} workers: median ${fmt(elapsed)} ms ` + `[${sleepMs.map(fmt).join(", ")}], ideal ${fmt(ideal)} ms`);
  console.log(
    `    timer floor: ${waves} waves of ${WORKERS} × setTimeout(1) alone take median ${fmt(floor)} ms ` +
      `(${(floor / waves).toFixed(2)} ms per wave) [${floors.map(fmt).join(", ")}] ` +
      `→ efficiency against the real timer ${(floor / elapsed).toFixed(2)}`,
  );
  console.log(`RESULT graph noop_10k_ms=${fmt(median(noop))} efficiency_1ms_16w=${efficiency.toFixed(2)}`);
}
