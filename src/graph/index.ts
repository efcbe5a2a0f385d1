/**
 * Task graph: turns a payload's ordered tasks into a DAG (split on Jobs, parallelize by run level and
 * component) and runs it on a bounded worker pool. Pure: no I/O, randomness injected through {@link Rng}.
 */
export { Task, type Backoff } from "./task.js";
export { TaskGraph, splitOnJobs, type TaskNode } from "./task-graph.js";
export { byNumberAndComponent, flattenByNumberAndComponent, permuteOrder, shiftOrder, type BreakFunc } from "./strategies.js";
export { runGraph, type NodeFunc } from "./run-graph.js";
export { createRng, shuffle, type Rng } from "./rng.js";

// Symbols below are library-internal: building blocks and diagnostics, exported for tests and tools.
export { newTaskNode } from "./task-node.js";
export { parseRunLevel, type RunLevel } from "./strategies.js";
