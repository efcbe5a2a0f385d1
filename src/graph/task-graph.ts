/**
 * The task graph: a payload's tasks as a DAG of serial nodes (CVO `pkg/payload/task_graph.go`, §2.1–2.4).
 * A graph starts as one node holding every task; `split` and `parallelize` reshape it in place.
 */
import type { Task } from "./task.js";
import { newTaskNode, type TaskNode } from "./task-node.js";
import type { BreakFunc } from "./strategies.js";

export type { TaskNode } from "./task-node.js";

/** True for `batch/v1, Kind=Job`: a Job is a barrier nothing may be reordered around or run beside. */
export function splitOnJobs(task: Task): boolean {
  const gvk = task.manifest.gvk;
  return gvk.group === "batch" && gvk.version === "v1" && gvk.kind === "Job";
}

/** Replaces every occurrence of `from` in `arr` with `to`, in place. */
function replaceAll(arr: number[], from: number, to: number): void {
  for (let k = 0; k < arr.length; k++) {
    if (arr[k] === from) arr[k] = to;
  }
}

/**
 * A DAG of {@link TaskNode}s. Node indexes are stable: reshaping only appends nodes and rewires edges,
 * so an index printed in a log stays meaningful. Not safe to reshape while {@link runGraph} runs it.
 */
export class TaskGraph {
  /** All nodes; `in`/`out` of each refer to positions in this array. */
  nodes: TaskNode[];

  /** A graph with a single node holding all `tasks` (in order; the array is copied). */
  constructor(tasks: readonly Task[]) {
    this.nodes = [newTaskNode(tasks)];
  }

  /** A graph over existing nodes, taken as-is (not copied); for tests and hand-built graphs. */
  static fromNodes(nodes: TaskNode[]): TaskGraph {
    const graph = new TaskGraph([]);
    graph.nodes = nodes;
    return graph;
  }

  /** Indexes of nodes with no predecessors, ascending. */
  roots(): number[] {
    const roots: number[] = [];
    this.nodes.forEach((node, i) => {
      if (node.in.length === 0) roots.push(i);
    });
    return roots;
  }

  /**
   * Isolates the first task matching `pred` in every node of ≥ 2 tasks: the tasks before it move to a
   * new predecessor node, the tasks after it to a new successor node. Appended nodes are visited too,
   * so later matches in the same original node are isolated in turn. With {@link splitOnJobs}, every
   * Job ends up alone and serialized against its neighbours.
   */
  split(pred: (task: Task) => boolean): void {
    for (let i = 0; i < this.nodes.length; i++) {
      const node = this.nodes[i] as TaskNode;
      const tasks = node.tasks;
      if (tasks.length <= 1) continue;
      const j = tasks.findIndex((task) => pred(task));
      if (j < 0) continue;

      if (j > 0) {
        const left = this.nodes.length;
        this.nodes.push({ in: [...node.in], tasks: tasks.slice(0, j), out: [i] });
        for (const p of node.in) replaceAll(this.at(p).out, i, left);
        node.in = [left];
      }
      if (j < tasks.length - 1) {
        const right = this.nodes.length;
        this.nodes.push({ in: [i], tasks: tasks.slice(j + 1), out: [...node.out] });
        for (const s of node.out) replaceAll(this.at(s).in, i, right);
        node.out = [right];
      }
      node.tasks = tasks.slice(j, j + 1);
    }
  }

  /**
   * Replaces each node that `breakFn` cuts into more than one node by a chain of buckets: the node
   * itself becomes an empty left anchor, each bucket's nodes depend on the previous bucket, an empty
   * spacer joins two multi-node buckets (avoiding M×N edges), and an empty right anchor takes over
   * the node's former successors. Appended nodes are visited too (a no-op for the built-in strategies).
   */
  parallelize(breakFn: BreakFunc): void {
    for (let i = 0; i < this.nodes.length; i++) {
      const node = this.nodes[i] as TaskNode;
      const buckets = breakFn(node.tasks);
      if (!buckets || buckets.length === 0) continue;
      if (buckets.length === 1 && buckets[0]?.length === 1) continue;
      // Upstream would clear the node's tasks here and lose them; nothing to chain, so leave it.
      if (buckets.every((bucket) => bucket.length === 0)) continue;

      node.tasks = [];
      const origOut = node.out;
      node.out = [];

      let prev = [i];
      for (const bucket of buckets) {
        if (bucket.length === 0) continue;
        if (prev.length === 1 || bucket.length === 1) {
          prev = this.bulkAdd(bucket, prev);
        } else {
          prev = this.bulkAdd([newTaskNode()], prev);
          prev = this.bulkAdd(bucket, prev);
        }
      }

      if (origOut.length > 0) {
        const right = this.nodes.length;
        const anchor: TaskNode = { in: [], tasks: [], out: origOut };
        this.nodes.push(anchor);
        for (const s of origOut) replaceAll(this.at(s).in, i, right);
        for (const p of prev) {
          this.at(p).out = [right];
          anchor.in.push(p);
        }
      }
    }
  }

  /**
   * Appends `nodes` (the objects themselves), each fed by a copy of `inNodes`, and adds the new
   * indexes to the `out` of every node in `inNodes` without duplicates. Returns the new indexes.
   * With no `inNodes` the appended nodes keep their own `in`.
   * @internal building block of {@link parallelize}; exported for tests.
   */
  bulkAdd(nodes: readonly TaskNode[], inNodes: readonly number[]): number[] {
    const from = this.nodes.length;
    this.nodes.push(...nodes);
    const added = nodes.map((_, k) => from + k);
    if (inNodes.length === 0) return added;
    for (const k of added) this.at(k).in = [...inNodes];
    for (const p of inNodes) {
      const out = this.at(p).out;
      for (const k of added) {
        if (!out.includes(k)) out.push(k);
      }
    }
    return added;
  }

  private at(index: number): TaskNode {
    const node = this.nodes[index];
    if (node === undefined) throw new RangeError(`task graph has no node ${index}`);
    return node;
  }
}
