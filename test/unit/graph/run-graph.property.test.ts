/**
 * Property tests for runGraph: random graphs, worker counts, failures and cancellation points, with
 * interleavings chosen by fast-check's scheduler so every failure replays from its seed.
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { TaskGraph, runGraph, type Task, type TaskNode } from "../../../src/graph/index.js";
import { abortReason } from "../../../src/core/index.js";
import { node, tasks } from "./helpers.js";
import { build, dagArb, dagOf, expectedToRun, serialOrder, strategyArb, taskListArb, tasksOf } from "./arbitraries.js";

/** What the injected fn does; node numbers are taken modulo the graph size. */
interface Behaviour {
  readonly workers: number;
  /** Node `node` throws `fail {node}` before its task number `after` (after its last task if past it). */
  readonly failures: readonly { readonly node: number; readonly after: number }[];
  /** Nodes whose fn settles without yielding to the scheduler: synchronous work must be safe too. */
  readonly syncNodes: readonly number[];
  /**
   * Abort the parent before the run (`at` = 0) or when the `at`-th task overall starts; with
   * `fail`, that task then returns the context error, otherwise it carries on and succeeds.
   */
  readonly cancel: { readonly at: number; readonly fail: boolean } | null;
}

const behaviourArb: fc.Arbitrary<Behaviour> = fc.record({
  workers: fc.oneof({ weight: 6, arbitrary: fc.integer({ min: 1, max: 6 }) }, fc.constantFrom(-1, 0, 64)),
  failures: fc.array(fc.record({ node: fc.nat(), after: fc.nat({ max: 3 }) }), { maxLength: 3 }),
  syncNodes: fc.array(fc.nat(), { maxLength: 4 }),
  cancel: fc.option(fc.record({ at: fc.nat({ max: 20 }), fail: fc.boolean() }), { freq: 2 }),
});

/** Everything the fn observed during one run. */
interface Observed {
  readonly result: Error[] | null;
  readonly aborted: boolean;
  /** Node indexes in start order. */
  readonly starts: number[];
  /** Error message per node that ran, `null` for success. */
  readonly outcome: Map<number, string | null>;
  readonly taskRuns: Map<Task, number>;
  readonly peak: number;
  /** Broken promises noticed while running: early starts, starts after cancellation. */
  readonly violations: string[];
}

async function observe(graph: TaskGraph, b: Behaviour, s: fc.Scheduler): Promise<Observed> {
  const nodes = graph.nodes;
  const n = nodes.length;
  const failAt = new Map(b.failures.filter(() => n > 0).map((f) => [f.node % n, f.after]));
  const sync = new Set(b.syncNodes.map((k) => k % Math.max(1, n)));
  // runGraph hands fn each node's own task array, which identifies the node.
  const nodeOf = new Map<readonly Task[], number>(nodes.map((nd, i) => [nd.tasks, i]));
  assert.equal(nodeOf.size, n, "every node needs its own task array");

  const parent = new AbortController();
  const starts: number[] = [];
  const outcome = new Map<number, string | null>();
  const taskRuns = new Map<Task, number>();
  const violations: string[] = [];
  let live = 0;
  let peak = 0;
  let tasksStarted = 0;
  let cancelled = false;
  const cancel = (): void => {
    cancelled = true;
    parent.abort();
  };
  if (b.cancel?.at === 0) cancel();

  const result = await s.waitFor(
    runGraph(
      graph,
      b.workers,
      async (nodeTasks, signal) => {
        const i = nodeOf.get(nodeTasks) ?? -1;
        if (cancelled) violations.push(`node ${i} started after cancellation`);
        for (const p of nodes[i]?.in ?? []) {
          if (outcome.get(p) !== null) violations.push(`node ${i} started before ${p} succeeded`);
        }
        starts.push(i);
        peak = Math.max(peak, ++live);
        // Sync nodes never await, so a cancellation in their first task lands while sibling nodes handed
        // out in the same turn have not started yet: those must be taken back, not started.
        const hop = (): Promise<void> => s.schedule(Promise.resolve(), `node ${i}`);
        try {
          if (!sync.has(i)) await hop();
          for (const [k, task] of nodeTasks.entries()) {
            if (signal.aborted) throw abortReason(signal);
            if (failAt.get(i) === k) throw new Error(`fail ${i}`);
            taskRuns.set(task, (taskRuns.get(task) ?? 0) + 1);
            if (++tasksStarted === b.cancel?.at) {
              cancel();
              if (b.cancel.fail) throw abortReason(signal);
            }
            if (!sync.has(i)) await hop();
          }
          if ((failAt.get(i) ?? -1) >= nodeTasks.length) throw new Error(`fail ${i}`);
          outcome.set(i, null);
        } catch (err: unknown) {
          outcome.set(i, err instanceof Error ? err.message : String(err));
          throw err;
        } finally {
          live--;
        }
      },
      parent.signal,
    ),
  );
  return { result, aborted: parent.signal.aborted, starts, outcome, taskRuns, peak, violations };
}

/** The contract's result for what was observed: failures in index order, else the incomplete report. */
function expectedResult(nodes: readonly TaskNode[], o: Observed): string[] | null {
  const failed = nodes.flatMap((_, i) => {
    const message = o.outcome.get(i);
    return message === undefined || message === null ? [] : [message];
  });
  if (failed.length > 0) return failed;
  const unfinished = nodes.filter((_, i) => !o.outcome.has(i));
  const first = unfinished.find((nd) => nd.tasks.length > 0)?.tasks[0];
  if (first === undefined) return null;
  const report = `${unfinished.length} incomplete task nodes, beginning with ${first.toString()}`;
  return o.aborted ? [report, "context canceled"] : [report];
}

/** Every invariant of the runner, checked against one observed run. */
function checkRun(graph: TaskGraph, b: Behaviour, o: Observed): void {
  const nodes = graph.nodes;
  assert.deepEqual(o.violations, []);
  assert.ok(o.peak <= Math.max(1, b.workers), `${o.peak} nodes in flight with ${b.workers} workers`);
  assert.equal(new Set(o.starts).size, o.starts.length, `a node started twice: ${o.starts.join(",")}`);
  for (const [task, count] of o.taskRuns) assert.equal(count, 1, `${task.toString()} ran ${count} times`);
  assert.deepEqual(o.result?.map((e) => e.message) ?? null, expectedResult(nodes, o));

  const failed = (i: number): boolean => typeof o.outcome.get(i) === "string";
  const reachable = expectedToRun(nodes, failed);
  for (const i of o.starts) assert.ok(reachable.has(i), `node ${i} ran although a dependency failed`);
  if (o.aborted) return;
  // Without cancellation, exactly the nodes whose dependencies all succeeded run, tasks included.
  assert.deepEqual(
    [...o.starts].sort((x, y) => x - y),
    [...reachable].sort((x, y) => x - y),
  );
  nodes.forEach((nd, i) => {
    if (o.outcome.get(i) !== null) return;
    for (const task of nd.tasks) assert.equal(o.taskRuns.get(task), 1, `${task.toString()} of node ${i} did not run`);
  });
  if (Math.max(1, b.workers) === 1) assert.deepEqual(o.starts, serialOrder(nodes, failed));
}

// Runs per property; each run is a few dozen microtask hops, so the whole file stays well under a second
// or two. Raise locally (e.g. FC_RUNS=20000) when changing the runner.
const numRuns = Number(process.env["FC_RUNS"] ?? 400);

describe("runGraph properties", () => {
  test("random DAGs: once each, after dependencies, bounded, failures contained, cancel stops new work", async () => {
    await fc.assert(
      fc.asyncProperty(dagArb, behaviourArb, fc.scheduler(), async (dag, b, s) => {
        const graph = TaskGraph.fromNodes(dagOf(dag));
        checkRun(graph, b, await observe(graph, b, s));
      }),
      { numRuns },
    );
  });

  test("built graphs (split + parallelize in every mode) keep the same guarantees", async () => {
    await fc.assert(
      fc.asyncProperty(taskListArb, strategyArb, behaviourArb, fc.scheduler(), async (files, strategy, b, s) => {
        const taskList = tasksOf(files);
        const graph = build(taskList, strategy);
        const o = await observe(graph, b, s);
        checkRun(graph, b, o);
        if (!o.aborted && o.result === null) {
          for (const task of taskList) assert.equal(o.taskRuns.get(task), 1, `${task.toString()} did not run once`);
        }
      }),
      { numRuns },
    );
  });
});

describe("runGraph readiness bookkeeping", () => {
  const ran = async (nodes: TaskNode[]): Promise<string[]> => {
    const names: string[] = [];
    const record = async (ts: readonly Task[]): Promise<void> => void names.push(...ts.map((t) => t.manifest.originalFilename));
    await runGraph(TaskGraph.fromNodes(nodes), 2, record, new AbortController().signal);
    return names;
  };

  test("a predecessor listed twice in `in` is waited for once", async () => {
    const nodes = [node({ tasks: tasks("a"), out: [1] }), node({ tasks: tasks("b"), in: [0, 0] })];
    assert.deepEqual(await ran(nodes), ["a", "b"]);
  });

  test("an `in` entry naming no node, or the node itself, keeps the node from ever running", async () => {
    const nodes = [node({ tasks: tasks("a"), in: [7] }), node({ tasks: tasks("b"), in: [1] }), node({ tasks: tasks("c") })];
    assert.deepEqual(await ran(nodes), ["c"]);
  });
});
