/**
 * Property tests for graph shaping: what split + parallelize keep from the payload order in every
 * mode, and the permutation and rotation contracts of permuteOrder and shiftOrder.
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import {
  byNumberAndComponent,
  createRng,
  flattenByNumberAndComponent,
  newTaskNode,
  parseRunLevel,
  permuteOrder,
  shiftOrder,
  shuffle,
  splitOnJobs,
  type BreakFunc,
  type Task,
  type TaskNode,
} from "../../../src/graph/index.js";
import { build, descendants, strategyArb, taskListArb, tasksOf, type FileSpec, type Strategy } from "./arbitraries.js";
import { tasks } from "./helpers.js";

const numRuns = Number(process.env["FC_RUNS"] ?? 300);

/** A built graph with the lookups the properties need. */
interface Built {
  readonly input: Task[];
  readonly nodes: TaskNode[];
  /** Which node holds each task. */
  readonly at: Map<Task, number>;
  /** Descendants of each node. */
  readonly reach: Set<number>[];
}

/** Builds the graph for `files`, failing if a task is in two nodes or the graph has a cycle. */
function built(files: readonly FileSpec[], strategy: Strategy): Built {
  const input = tasksOf(files);
  const nodes = build(input, strategy).nodes;
  const at = new Map<Task, number>();
  nodes.forEach((n, i) =>
    n.tasks.forEach((task) => {
      assert.ok(!at.has(task), `${task.toString()} is in nodes ${at.get(task)} and ${i}`);
      at.set(task, i);
    }),
  );
  return { input, nodes, at, reach: descendants(nodes) };
}

describe("graph building properties", () => {
  test("every task lands in exactly one node, in payload order within it, and edges agree both ways", () => {
    fc.assert(
      fc.property(taskListArb, strategyArb, (files, strategy) => {
        const { input, nodes, at } = built(files, strategy);
        assert.equal(at.size, input.length);
        for (const task of input) assert.ok(at.has(task), `${task.toString()} was lost`);
        for (const n of nodes) {
          const positions = n.tasks.map((task) => input.indexOf(task));
          assert.deepEqual(
            positions,
            [...positions].sort((x, y) => x - y),
            "tasks of a node out of payload order",
          );
        }
        nodes.forEach((n, i) => {
          for (const p of n.in) assert.ok(nodes[p]?.out.includes(i), `${p} → ${i} is missing from ${p}.out`);
          for (const s of n.out) assert.ok(nodes[s]?.in.includes(i), `${i} → ${s} is missing from ${s}.in`);
        });
      }),
      { numRuns },
    );
  });

  test("a Job runs alone, after everything before it and before everything after it", () => {
    fc.assert(
      fc.property(taskListArb, strategyArb, (files, strategy) => {
        const { input, nodes, at, reach } = built(files, strategy);
        input.forEach((task, j) => {
          if (!splitOnJobs(task)) return;
          const jobNode = at.get(task) ?? -1;
          assert.equal(nodes[jobNode]?.tasks.length, 1, `${task.toString()} shares its node`);
          input.forEach((other, k) => {
            const otherNode = at.get(other) ?? -1;
            if (k < j) assert.ok(reach[otherNode]?.has(jobNode), `task ${k} is not ordered before Job ${j}`);
            if (k > j) assert.ok(reach[jobNode]?.has(otherNode), `task ${k} is not ordered after Job ${j}`);
          });
        });
      }),
      { numRuns },
    );
  });

  test("updating keeps payload order except between components of one run level", () => {
    fc.assert(
      fc.property(taskListArb, (files) => {
        const { input, at, reach } = built(files, { mode: "updating" });
        const level = (task: Task): string | undefined => parseRunLevel(task.manifest.originalFilename)?.number;
        input.forEach((a, j) => {
          for (const b of input.slice(j + 1)) {
            // Only tasks of one run level (compared as strings) may run side by side.
            if (level(a) !== undefined && level(a) === level(b)) continue;
            const from = at.get(a) ?? -1;
            const to = at.get(b) ?? -1;
            assert.ok(from === to || reach[from]?.has(to), `${a.toString()} is not ordered before ${b.toString()}`);
          }
        });
      }),
      { numRuns },
    );
  });
});

/** Nodes rendered as the identities of their tasks, for order-sensitive comparison. */
const ids = (buckets: TaskNode[][] | null, input: readonly Task[]): number[][][] | null =>
  buckets?.map((bucket) => bucket.map((n) => n.tasks.map((task) => input.indexOf(task)))) ?? null;

const sorted = (buckets: number[][][] | null): string[][] | null => buckets?.map((bucket) => bucket.map((n) => n.join(",")).sort()) ?? null;

describe("ordering strategy properties", () => {
  test("permuteOrder reorders each bucket without adding or losing nodes, and is reproducible per seed", () => {
    const baseArb = fc.constantFrom<[string, BreakFunc]>(
      ["byNumberAndComponent", byNumberAndComponent],
      ["flattenByNumberAndComponent", flattenByNumberAndComponent],
    );
    fc.assert(
      fc.property(taskListArb, baseArb, fc.nat(), (files, [, base], seed) => {
        const input = tasksOf(files);
        const plain = ids(base(input), input);
        const first = ids(permuteOrder(base, createRng(seed))(input), input);
        const again = ids(permuteOrder(base, createRng(seed))(input), input);
        assert.deepEqual(sorted(first), sorted(plain));
        assert.deepEqual(again, first);
      }),
      { numRuns },
    );
  });

  test("shuffle yields a permutation, the same one for the same seed", () => {
    fc.assert(
      fc.property(fc.array(fc.integer(), { maxLength: 50 }), fc.nat(), (items, seed) => {
        const a = [...items];
        const b = [...items];
        shuffle(a, createRng(seed));
        shuffle(b, createRng(seed));
        assert.deepEqual(
          [...a].sort((x, y) => x - y),
          [...items].sort((x, y) => x - y),
        );
        assert.deepEqual(b, a);
      }),
      { numRuns },
    );
  });

  test("shiftOrder rotates each bucket, and a cycle of `stride` steps leads with min(len, stride) nodes", () => {
    const lenArb = fc.integer({ min: 1, max: 30 });
    const strideArb = fc.integer({ min: 1, max: 16 });
    fc.assert(
      fc.property(lenArb, fc.nat({ max: 100 }), strideArb, (len, step, stride) => {
        const bucket = Array.from({ length: len }, (_, k) => newTaskNode(tasks(`n${k}`)));
        const fixed: BreakFunc = () => [[...bucket]];
        const got = (shiftOrder(fixed, step, stride)([])?.[0] ?? []).map((n) => bucket.indexOf(n));
        const shift = len < stride ? step % len : Math.floor((step * len) / stride) % len;
        assert.deepEqual(
          got,
          Array.from({ length: len }, (_, k) => (k + shift) % len),
        );

        const leaders = new Set<TaskNode | undefined>();
        for (let k = 0; k < stride; k++) leaders.add(shiftOrder(fixed, k, stride)([])?.[0]?.[0]);
        assert.equal(leaders.size, Math.min(len, stride));
      }),
      { numRuns },
    );
  });
});
