/** fast-check arbitraries and graph helpers shared by the graph property tests. */
import fc from "fast-check";
import {
  TaskGraph,
  byNumberAndComponent,
  createRng,
  flattenByNumberAndComponent,
  permuteOrder,
  shiftOrder,
  splitOnJobs,
  type BreakFunc,
  type Task,
  type TaskNode,
} from "../../../src/graph/index.js";
import { job, node, pod, tasks } from "./helpers.js";

/**
 * A random DAG as plain data (so counterexamples print readably): tasks per node and edges.
 * Edges follow a random topological order unrelated to node indexes, so dependencies point both to
 * lower and to higher indexes. Some nodes have no tasks, like the anchors `parallelize` creates.
 */
export interface DagSpec {
  readonly sizes: readonly number[];
  readonly edges: readonly (readonly [from: number, to: number])[];
}

export const dagArb: fc.Arbitrary<DagSpec> = fc
  .integer({ min: 0, max: 16 })
  .chain((n) =>
    fc.record({
      order: fc.shuffledSubarray(
        Array.from({ length: n }, (_, i) => i),
        { minLength: n, maxLength: n },
      ),
      sizes: fc.array(fc.nat({ max: 3 }), { minLength: n, maxLength: n }),
      pairs: fc.array(fc.tuple(fc.nat({ max: Math.max(0, n - 1) }), fc.nat({ max: Math.max(0, n - 1) })), {
        maxLength: 3 * n,
      }),
    }),
  )
  .map(({ order, sizes, pairs }) => {
    const rank = new Map(order.map((index, position) => [index, position]));
    const edges = new Map<string, readonly [number, number]>();
    for (const [x, y] of pairs) {
      if (x === y) continue;
      // Orient every edge along the topological order, so the graph cannot have a cycle.
      const edge = (rank.get(x) ?? 0) < (rank.get(y) ?? 0) ? ([x, y] as const) : ([y, x] as const);
      edges.set(edge.join(">"), edge);
    }
    return { sizes, edges: [...edges.values()] };
  });

/** Fresh nodes for `spec`, with `in`/`out` kept consistent and uniquely named ConfigMap tasks. */
export function dagOf(spec: DagSpec): TaskNode[] {
  const names = (i: number, size: number): string[] => Array.from({ length: size }, (_, k) => `n${i}t${k}`);
  const nodes = spec.sizes.map((size, i) => node({ tasks: tasks(...names(i, size)) }));
  for (const [from, to] of spec.edges) {
    nodes[from]?.out.push(to);
    nodes[to]?.in.push(from);
  }
  return nodes;
}

const LEVELS = ["01", "1", "02", "10"];
const COMPONENTS = ["a", "b", "x-y"];

/** One entry of a random payload: a Job or not, and a run level (`null` = a file the pattern misses). */
export interface FileSpec {
  readonly job: boolean;
  readonly level: string | null;
  readonly component: string;
}

/**
 * A random payload: mostly run-level files from a few levels and components (including `01` vs `1`,
 * which are different levels), some unmatched files, roughly one Job in eight.
 */
export const taskListArb: fc.Arbitrary<FileSpec[]> = fc.array(
  fc.record({
    job: fc.integer({ min: 0, max: 7 }).map((k) => k === 0),
    level: fc.option(fc.constantFrom(...LEVELS), { freq: 5 }),
    component: fc.constantFrom(...COMPONENTS),
  }),
  { maxLength: 40 },
);

/** Fresh tasks for `files`; every file name is unique, so a failure points at one task. */
export function tasksOf(files: readonly FileSpec[]): Task[] {
  return files.map(({ job: isJob, level, component }, i) => {
    const name = level === null ? `file-${i}.yaml` : `0000_${level}_${component}_${String(i).padStart(2, "0")}.yaml`;
    return isJob ? job(name) : pod(name);
  });
}

/** How a worker shapes a graph: the three modes of `apply()`, with the reconcile seed and attempt. */
export type Strategy = { readonly mode: "updating" } | { readonly mode: "initializing" } | { readonly mode: "reconciling"; readonly attempt: number };

export const strategyArb: fc.Arbitrary<Strategy> = fc.oneof(
  fc.constant({ mode: "updating" as const }),
  fc.constant({ mode: "initializing" as const }),
  fc.record({ mode: fc.constant("reconciling" as const), attempt: fc.nat({ max: 40 }) }),
);

/** The break function `apply()` uses for `strategy`. */
export function breakFnOf(strategy: Strategy): BreakFunc {
  switch (strategy.mode) {
    case "updating":
      return byNumberAndComponent;
    case "initializing":
      return flattenByNumberAndComponent;
    case "reconciling":
      return shiftOrder(permuteOrder(flattenByNumberAndComponent, createRng(Math.floor(strategy.attempt / 8))), strategy.attempt % 8, 8);
  }
}

/** Split on Jobs, then parallelize: the graph `apply()` would run. */
export function build(taskList: readonly Task[], strategy: Strategy): TaskGraph {
  const graph = new TaskGraph(taskList);
  graph.split(splitOnJobs);
  graph.parallelize(breakFnOf(strategy));
  return graph;
}

/** `reach[i]` = every node reachable from `i` through `out`, `i` excluded; throws on a cycle. */
export function descendants(nodes: readonly TaskNode[]): Set<number>[] {
  const reach: (Set<number> | undefined)[] = nodes.map(() => undefined);
  const visiting = new Set<number>();
  const visit = (i: number): Set<number> => {
    const known = reach[i];
    if (known) return known;
    if (visiting.has(i)) throw new Error(`cycle through node ${i}`);
    visiting.add(i);
    const all = new Set<number>();
    for (const s of nodes[i]?.out ?? []) {
      all.add(s);
      for (const d of visit(s)) all.add(d);
    }
    visiting.delete(i);
    reach[i] = all;
    return all;
  };
  return nodes.map((_, i) => visit(i));
}

/** Nodes that run when every node runs unless a predecessor failed (or never ran): the fixpoint. */
export function expectedToRun(nodes: readonly TaskNode[], fails: (i: number) => boolean): Set<number> {
  const ran = new Set<number>();
  for (let changed = true; changed;) {
    changed = false;
    nodes.forEach((n, i) => {
      if (ran.has(i) || !n.in.every((p) => ran.has(p) && !fails(p))) return;
      ran.add(i);
      changed = true;
    });
  }
  return ran;
}

/** Node order with one worker and no failures: always the lowest-index runnable node next. */
export function serialOrder(nodes: readonly TaskNode[], fails: (i: number) => boolean): number[] {
  const done = new Set<number>();
  const order: number[] = [];
  for (;;) {
    const next = nodes.findIndex((n, i) => !done.has(i) && n.in.every((p) => done.has(p) && !fails(p)));
    if (next < 0) return order;
    done.add(next);
    order.push(next);
  }
}
