import { describe, test } from "node:test";
import assert from "node:assert/strict";
import {
  byNumberAndComponent,
  createRng,
  flattenByNumberAndComponent,
  newTaskNode,
  parseRunLevel,
  permuteOrder,
  shiftOrder,
  type BreakFunc,
  type TaskNode,
} from "../../../src/graph/index.js";
import { bucketNames, tasks } from "./helpers.js";

describe("parseRunLevel", () => {
  const cases: { name: string; file: string; want: { number: string; component: string } | null }[] = [
    {
      name: "dashed component",
      file: "0000_50_cluster-version-operator_02_roles.yaml",
      want: { number: "50", component: "cluster-version-operator" },
    },
    { name: "short component", file: "0000_10_a_file.yaml", want: { number: "10", component: "a" } },
    { name: "leading zero kept", file: "0000_01_x-y-z_file1", want: { number: "01", component: "x-y-z" } },
    { name: "no prefix", file: "a", want: null },
    { name: "no component", file: "0000_10.yaml", want: null },
    { name: "component must end with underscore", file: "0000_10_abc", want: null },
    { name: "dangling dash", file: "0000_10_a-_x", want: null },
    { name: "not anchored", file: "x0000_10_a_x", want: null },
  ];
  for (const tc of cases) {
    test(tc.name, () => assert.deepEqual(parseRunLevel(tc.file), tc.want));
  }
});

type Case = { name: string; input: string[]; want: string[][][] | null };

const X = (n: string): string => `0000_01_x-y-z_${n}`;
const ABC = (n: string): string => `0000_01_a-b-c_${n}`;

function checkFreshNodes(buckets: TaskNode[][] | null): void {
  for (const n of (buckets ?? []).flat()) {
    assert.deepEqual(n.in, []);
    assert.deepEqual(n.out, []);
  }
}

describe("byNumberAndComponent", () => {
  const cases: Case[] = [
    { name: "empty tasks", input: [], want: null },
    { name: "no grouping possible", input: ["a"], want: null },
    { name: "no recognizable groups", input: ["a", "b", "c"], want: [[["a", "b", "c"]]] },
    { name: "single grouped item", input: [X("file1")], want: null },
    { name: "multiple grouped items in single node", input: [X("file1"), X("file2")], want: [[[X("file1"), X("file2")]]] },
    { name: "unmatched around a single run merge", input: ["a", X("file1"), "c"], want: [[["a", X("file1"), "c"]]] },
    {
      name: "two components of one level in parallel",
      input: [ABC("file1"), X("file2")],
      want: [[[ABC("file1")], [X("file2")]]],
    },
    {
      name: "parallel bucket then merged serial node",
      input: [ABC("file1"), X("file1"), X("file2"), "a", X("file2"), X("file3")],
      want: [[[ABC("file1")], [X("file1"), X("file2")]], [["a", X("file2"), X("file3")]]],
    },
    {
      name: "numbers compare as strings",
      input: ["0000_01_a_x", "0000_1_b_x"],
      want: [[["0000_01_a_x", "0000_1_b_x"]]],
    },
  ];
  for (const tc of cases) {
    test(tc.name, () => {
      const got = byNumberAndComponent(tasks(...tc.input));
      assert.deepEqual(bucketNames(got), tc.want);
      checkFreshNodes(got);
    });
  }

  test("does not alias the input array", () => {
    const input = tasks("a", "b");
    const got = byNumberAndComponent(input);
    got?.[0]?.[0]?.tasks.push(...tasks("c"));
    assert.equal(input.length, 2);
  });
});

describe("flattenByNumberAndComponent", () => {
  const cases: Case[] = [
    { name: "empty tasks", input: [], want: null },
    { name: "no grouping possible", input: ["a"], want: null },
    { name: "single grouped item", input: [X("file1")], want: null },
    { name: "no recognizable groups", input: ["a", "b", "c"], want: [[["a"], ["b"], ["c"]]] },
    { name: "multiple grouped items in single node", input: [X("file1"), X("file2")], want: [[[X("file1"), X("file2")]]] },
    { name: "unmatched around a single run", input: ["a", X("file1"), "c"], want: [[["a"], [X("file1")], ["c"]]] },
    { name: "two components", input: [ABC("file1"), X("file2")], want: [[[ABC("file1")], [X("file2")]]] },
    {
      name: "one node per run across unmatched",
      input: [ABC("file1"), X("file1"), X("file2"), "a", X("file2"), X("file3")],
      want: [[[ABC("file1")], [X("file1"), X("file2")], ["a"], [X("file2"), X("file3")]]],
    },
    {
      name: "one node per run across levels",
      input: [ABC("file1"), X("file1"), X("file2"), "0000_02_x-y-z_file2", "0000_02_x-y-z_file3"],
      want: [[[ABC("file1")], [X("file1"), X("file2")], ["0000_02_x-y-z_file2", "0000_02_x-y-z_file3"]]],
    },
  ];
  for (const tc of cases) {
    test(tc.name, () => {
      const got = flattenByNumberAndComponent(tasks(...tc.input));
      assert.deepEqual(bucketNames(got), tc.want);
      checkFreshNodes(got);
    });
  }
});

/** A break function returning one fixed bucket of single-task nodes, as upstream's ShiftOrder test does. */
function fixed(...names: string[]): BreakFunc {
  return () => [tasks(...names).map((t) => newTaskNode([t]))];
}

describe("shiftOrder", () => {
  const L = (n: string): string => `0000_${n}_x-y-z_file1`;
  const cases: { name: string; step: number; stride: number; input: string[]; want: string[] }[] = [
    { name: "step 0 stride 8", step: 0, stride: 8, input: ["01", "02"], want: ["01", "02"] },
    { name: "step 1 stride 8", step: 1, stride: 8, input: ["01", "02"], want: ["02", "01"] },
    { name: "step 2 stride 8", step: 2, stride: 8, input: ["01", "02"], want: ["01", "02"] },
    { name: "step 1 stride 2", step: 1, stride: 2, input: ["01", "02", "03"], want: ["02", "03", "01"] },
    { name: "step 2 stride 3", step: 2, stride: 3, input: ["01", "02", "03"], want: ["03", "01", "02"] },
  ];
  for (const tc of cases) {
    test(tc.name, () => {
      const got = shiftOrder(fixed(...tc.input.map(L)), tc.step, tc.stride)([]);
      assert.deepEqual(bucketNames(got), [tc.want.map((n) => [L(n)])]);
    });
  }

  test("null and empty buckets pass through", () => {
    assert.equal(shiftOrder(() => null, 3, 8)([]), null);
    assert.deepEqual(shiftOrder(() => [[]], 3, 8)([]), [[]]);
  });
});

describe("permuteOrder", () => {
  const names = Array.from({ length: 12 }, (_, i) => `n${i}`);
  const order = (seed: number): string[] | undefined =>
    bucketNames(permuteOrder(flattenByNumberAndComponent, createRng(seed))(tasks(...names)))?.[0]?.map((n) => n[0] ?? "");

  test("same seed gives the same order", () => {
    assert.deepEqual(order(42), order(42));
  });

  test("different seeds usually give different orders", () => {
    const distinct = new Set([1, 2, 3, 4, 5, 6, 7, 8].map((s) => JSON.stringify(order(s))));
    assert.ok(distinct.size >= 7, `only ${distinct.size} distinct orders`);
  });

  test("is a permutation of each bucket and keeps buckets in sequence", () => {
    const got = permuteOrder(byNumberAndComponent, createRng(3))(tasks("0000_10_a_x", "0000_10_b_x", "0000_10_c_x", "z", "0000_20_a_x", "0000_20_b_x"));
    const buckets = bucketNames(got) ?? [];
    assert.equal(buckets.length, 3);
    assert.deepEqual(buckets[0]?.flat().sort(), ["0000_10_a_x", "0000_10_b_x", "0000_10_c_x"]);
    assert.deepEqual(buckets[1], [["z"]]);
    assert.deepEqual(buckets[2]?.flat().sort(), ["0000_20_a_x", "0000_20_b_x"]);
  });

  test("passes null through", () => {
    assert.equal(permuteOrder(() => null, createRng(1))([]), null);
  });
});
