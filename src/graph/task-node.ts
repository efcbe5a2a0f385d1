import type { Task } from "./task.js";

/**
 * One vertex of a {@link TaskGraph}: tasks that run serially, in order, on one worker.
 *
 * `in` and `out` are indexes into the graph's `nodes`. A node without tasks is a pure
 * synchronization point (an "anchor" or "spacer"); running it always succeeds.
 * Lives in its own file so the graph and the strategies can share it without an import cycle.
 */
export interface TaskNode {
  in: number[];
  tasks: Task[];
  out: number[];
}

/** A fresh, unlinked node owning a copy of `tasks`. */
export function newTaskNode(tasks: readonly Task[] = []): TaskNode {
  return { in: [], tasks: [...tasks], out: [] };
}
