/**
 * Break functions: how {@link TaskGraph.parallelize} cuts one node's task list into buckets.
 * They are pure and composable, e.g. `shiftOrder(byNumberAndComponent, attempt, workers)` for updates
 * or `permuteOrder(flattenByNumberAndComponent, rng)` for reconciles (CVO §2.3).
 */
import type { Task } from "./task.js";
import { newTaskNode, type TaskNode } from "./task-node.js";
import { shuffle, type Rng } from "./rng.js";

/**
 * Maps a task list to buckets: buckets run one after another, the nodes inside one bucket may run
 * in parallel. `null` (or `[]`) means "leave the node alone".
 */
export type BreakFunc = (tasks: readonly Task[]) => TaskNode[][] | null;

/** Run level and component parsed from a payload file name. Both stay strings: `01` ≠ `1`. */
export interface RunLevel {
  readonly number: string;
  readonly component: string;
}

// `0000_<number>_<component>_`: the component is dash-joined alphanumeric segments, so it ends at the
// first `_`. The lazy quantifier mirrors upstream; with this alphabet it cannot change the match.
const FILE_PATTERN = /^0000_(\d+)_([a-zA-Z0-9]+(?:-[a-zA-Z0-9]+)*?)_/;

/**
 * Parses `0000_<number>_<component>_…` at the start of a file name, or returns `null`.
 * @internal exported for tests and diagnostics.
 */
export function parseRunLevel(filename: string): RunLevel | null {
  const m = FILE_PATTERN.exec(filename);
  if (!m) return null;
  return { number: m[1] ?? "", component: m[2] ?? "" };
}

/** Consecutive tasks with the same number and component; an unmatched task is a run of its own. */
interface Run {
  readonly level: RunLevel | null;
  readonly tasks: Task[];
}

function runsOf(tasks: readonly Task[]): Run[] {
  const runs: Run[] = [];
  let last: Run | undefined;
  for (const task of tasks) {
    const level = parseRunLevel(task.manifest.originalFilename);
    if (last !== undefined && level !== null && last.level !== null && last.level.number === level.number && last.level.component === level.component) {
      last.tasks.push(task);
      continue;
    }
    last = { level, tasks: [task] };
    runs.push(last);
  }
  return runs;
}

/** Groups runs into level segments: consecutive matched runs sharing a number. */
function segmentsOf(runs: readonly Run[]): Run[][] {
  const segments: Run[][] = [];
  let current: Run[] | undefined;
  for (const run of runs) {
    const prev = current?.[current.length - 1];
    if (current && prev?.level && run.level && prev.level.number === run.level.number) {
      current.push(run);
      continue;
    }
    current = [run];
    segments.push(current);
  }
  return segments;
}

/**
 * Ordered split used for updates: a run level whose component changes becomes a parallel bucket with
 * one node per component run; everything else (single-component levels, unmatched files) is folded
 * into a serial node that keeps growing until the next parallel bucket. Returns `null` for ≤ 1 task.
 */
export const byNumberAndComponent: BreakFunc = (tasks) => {
  if (tasks.length <= 1) return null;
  const buckets: TaskNode[][] = [];
  let acc: TaskNode | null = null;
  for (const segment of segmentsOf(runsOf(tasks))) {
    if (segment.length >= 2) {
      buckets.push(segment.map((run) => newTaskNode(run.tasks)));
      acc = null;
      continue;
    }
    const only = segment[0]?.tasks ?? [];
    if (acc === null) {
      acc = newTaskNode(only);
      buckets.push([acc]);
    } else {
      acc.tasks.push(...only);
    }
  }
  return buckets;
};

/**
 * Unordered split used for install and reconcile: a single bucket with one node per run, in input
 * order, so every component (and every unmatched file) may run in parallel. Returns `null` for ≤ 1 task.
 */
export const flattenByNumberAndComponent: BreakFunc = (tasks) => {
  if (tasks.length <= 1) return null;
  return [runsOf(tasks).map((run) => newTaskNode(run.tasks))];
};

/**
 * Wraps `breakFn` so each bucket is shuffled in place with `rng`. Nodes in one bucket are
 * independent, so this only changes which one a free worker picks first.
 */
export function permuteOrder(breakFn: BreakFunc, rng: Rng): BreakFunc {
  return (tasks) => {
    const buckets = breakFn(tasks);
    for (const bucket of buckets ?? []) shuffle(bucket, rng);
    return buckets;
  };
}

/**
 * Wraps `breakFn` so each bucket is rotated left, letting each retry attempt (`step`) start a different
 * node first: by `step % len` when the bucket is shorter than `stride`, else by
 * `floor(step * len / stride) % len`. Buckets are replaced by rotated copies.
 */
export function shiftOrder(breakFn: BreakFunc, step: number, stride: number): BreakFunc {
  return (tasks) => {
    const buckets = breakFn(tasks);
    if (!buckets) return buckets;
    return buckets.map((bucket) => {
      const len = bucket.length;
      // Upstream divides by zero on an empty bucket; there is nothing to rotate, so keep it.
      if (len === 0) return [...bucket];
      const raw = len < stride ? step % len : Math.floor((step * len) / stride) % len;
      // Negative steps rotate right and a non-positive stride means no shift, where upstream would panic.
      const shift = Number.isFinite(raw) ? ((raw % len) + len) % len : 0;
      return [...bucket.slice(shift), ...bucket.slice(0, shift)];
    });
  };
}
