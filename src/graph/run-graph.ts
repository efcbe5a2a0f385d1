/**
 * Runs a {@link TaskGraph} on a bounded pool of workers (CVO `RunGraph`, §2.5).
 */
import { setMaxListeners } from "node:events";
import type { Task } from "./task.js";
import type { TaskGraph } from "./task-graph.js";
import { MinHeap } from "./min-heap.js";
import { CancelledError, abortReason, asError, onAbort } from "../core/index.js";

/** Called once per node with its tasks (possibly none, for anchors) and the run's child signal. */
export type NodeFunc = (tasks: readonly Task[], signal: AbortSignal) => Promise<void>;

/** Outcome of a node that ran; `error` is undefined on success. */
interface Finished {
  readonly error: Error | undefined;
}

/**
 * Executes `graph` with at most `max(1, maxParallelism)` nodes in flight and returns the errors, or
 * `null` when every node succeeded.
 *
 * Ordering contract:
 * - a node starts only after every node in its `in` finished without error, and among runnable
 *   nodes the lowest index always starts first;
 * - when a node fails, its descendants never run, but independent branches keep going; only the
 *   parent `signal` stops new nodes from starting;
 * - nodes already running when `signal` aborts are awaited (their results are kept), so the promise
 *   settles only after every `fn` call has settled: `fn` must settle promptly once its signal aborts.
 *
 * Each run gets a child `AbortController` linked to `signal` and aborted when the run ends; `fn`
 * receives its signal. Errors come back in node-index order (only nodes that ran and failed). When no
 * node failed but some node with tasks never ran, the result is
 * `"{N} incomplete task nodes, beginning with {task}"` (N counts every unfinished node, anchors
 * included), followed by {@link abortReason} of `signal` if it was aborted.
 *
 * Nodes are handed out only when a worker is free (upstream also queues up to `maxParallelism`
 * ahead of the workers); a handed-out node starts on the next microtask, and if `signal` aborted in
 * between it is taken back unstarted, like upstream's queued work.
 */
export async function runGraph(graph: TaskGraph, maxParallelism: number, fn: NodeFunc, signal: AbortSignal): Promise<Error[] | null> {
  const nodes = graph.nodes;
  const workers = Number.isNaN(maxParallelism) ? 1 : Math.max(1, Math.floor(maxParallelism));
  const finished: (Finished | undefined)[] = nodes.map(() => undefined);

  // Runnable = not submitted and every `in` entry succeeded. Rather than re-checking that for every
  // node on each hand-off (quadratic on wide graphs), count the entries still pending per node and
  // keep the runnable ones in a min-heap, which yields the lowest index first as the contract asks.
  // Edges come from `in` alone, as upstream's readiness check reads only `in`; an entry naming no
  // node (or the node itself) never succeeds, so such a node never becomes runnable.
  const pending = nodes.map((node) => node.in.length);
  const dependents: number[][] = nodes.map(() => []);
  nodes.forEach((node, i) => {
    for (const p of node.in) dependents[p]?.push(i);
  });
  const ready = new MinHeap();
  pending.forEach((count, i) => {
    if (count === 0) ready.push(i);
  });

  const child = new AbortController();
  // Every node of a wide graph (one per component when installing) listens on this one signal.
  setMaxListeners(0, child.signal);
  const unforward = onAbort(signal, () => child.abort(signal.reason));

  try {
    await new Promise<void>((resolve) => {
      let inflight = 0;

      const schedule = (): void => {
        while (!signal.aborted && inflight < workers) {
          const next = ready.pop();
          if (next === undefined) break;
          inflight++;
          void execute(next);
        }
        if (inflight === 0) resolve();
      };

      // Never rejects: fn failures become results. The first await makes every fn start outside the
      // scheduler's stack, so a synchronous fn can neither re-enter the loop nor delay sibling hand-offs.
      const execute = async (index: number): Promise<void> => {
        await Promise.resolve();
        if (signal.aborted) {
          // Handed out but not started when the parent was cancelled: take it back, as upstream
          // drains queued work, so it counts as incomplete rather than running on a dead signal.
          ready.push(index);
          inflight--;
          schedule();
          return;
        }
        let error: Error | undefined;
        try {
          await fn(nodes[index]?.tasks ?? [], child.signal);
        } catch (err: unknown) {
          error = asError(err);
        }
        finished[index] = { error };
        if (error === undefined) {
          for (const d of dependents[index] ?? []) {
            // `dependents` has one entry per `in` entry, so a predecessor listed twice counts twice.
            const left = (pending[d] ?? 0) - 1;
            pending[d] = left;
            if (left === 0) ready.push(d);
          }
        }
        inflight--;
        schedule();
      };

      schedule();
    });
  } finally {
    unforward();
    // Anything fn left running in the background must observe the end of the run.
    if (!child.signal.aborted) child.abort(new CancelledError());
  }

  const errors: Error[] = [];
  let incomplete = 0;
  let firstIncomplete: Task | undefined;
  nodes.forEach((node, i) => {
    const result = finished[i];
    if (result === undefined) {
      incomplete++;
      firstIncomplete ??= node.tasks[0];
    } else if (result.error !== undefined) {
      errors.push(result.error);
    }
  });
  if (errors.length === 0 && firstIncomplete !== undefined) {
    errors.push(new Error(`${incomplete} incomplete task nodes, beginning with ${firstIncomplete.toString()}`));
    if (signal.aborted) errors.push(abortReason(signal));
  }
  return errors.length > 0 ? errors : null;
}
