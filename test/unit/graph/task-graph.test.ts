import { describe, test } from "node:test";
import assert from "node:assert/strict";
import {
  TaskGraph,
  byNumberAndComponent,
  flattenByNumberAndComponent,
  newTaskNode,
  permuteOrder,
  shiftOrder,
  createRng,
  splitOnJobs,
  type Task,
  type TaskNode,
} from "../../../src/graph/index.js";
import { job, node, pod, shape, shapeOf, tasks, type NodeShape } from "./helpers.js";

describe("splitOnJobs", () => {
  test("only batch/v1 Job matches", () => {
    assert.equal(splitOnJobs(job("j")), true);
    assert.equal(splitOnJobs(pod("p")), false);
  });
});

describe("TaskGraph basics", () => {
  test("constructor puts every task in one node", () => {
    const ts = tasks("a", "b");
    const g = new TaskGraph(ts);
    assert.equal(g.nodes.length, 1);
    assert.deepEqual(g.nodes[0]?.tasks, ts);
    assert.notEqual(g.nodes[0]?.tasks, ts, "the task list is copied");
  });

  test("roots are the nodes without predecessors, ascending", () => {
    const g = TaskGraph.fromNodes([node({ in: [2] }), node({}), node({ out: [0] }), node({ in: [1] })]);
    assert.deepEqual(g.roots(), [1, 2]);
  });
});

describe("Split(splitOnJobs)", () => {
  const cases: { name: string; input: Task[] | null; want: NodeShape[] }[] = [
    { name: "no nodes", input: null, want: [] },
    { name: "single pod unchanged", input: [pod("p1")], want: [shape(["P(p1)"])] },
    {
      name: "split right",
      input: [job("j1"), pod("p1")],
      want: [shape(["J(j1)"], { out: [1] }), shape(["P(p1)"], { in: [0] })],
    },
    {
      name: "split left",
      input: [pod("p1"), job("j1")],
      want: [shape(["J(j1)"], { in: [1] }), shape(["P(p1)"], { out: [0] })],
    },
    {
      name: "interior",
      input: [pod("p1"), pod("p2"), job("j1"), pod("p3")],
      want: [shape(["J(j1)"], { in: [1], out: [2] }), shape(["P(p1)", "P(p2)"], { out: [0] }), shape(["P(p3)"], { in: [0] })],
    },
    {
      name: "interspersed",
      input: [pod("p1"), pod("p2"), job("j1"), pod("p3"), job("j2"), pod("p4")],
      want: [
        shape(["J(j1)"], { in: [1], out: [3] }),
        shape(["P(p1)", "P(p2)"], { out: [0] }),
        shape(["J(j2)"], { in: [3], out: [4] }),
        shape(["P(p3)"], { in: [0], out: [2] }),
        shape(["P(p4)"], { in: [2] }),
      ],
    },
    {
      name: "ends",
      input: [job("j1"), pod("p1"), pod("p2"), job("j2")],
      want: [shape(["J(j1)"], { out: [2] }), shape(["J(j2)"], { in: [2] }), shape(["P(p1)", "P(p2)"], { in: [0], out: [1] })],
    },
  ];
  for (const tc of cases) {
    test(tc.name, () => {
      const g = tc.input === null ? TaskGraph.fromNodes([]) : new TaskGraph(tc.input);
      g.split(splitOnJobs);
      assert.deepEqual(g.nodes.map(shapeOf), tc.want);
    });
  }

  test("rewires existing predecessors and successors of a split node", () => {
    const g = TaskGraph.fromNodes([
      node({ tasks: [pod("a")], out: [1] }),
      node({ tasks: [pod("b"), job("j"), pod("c")], in: [0], out: [2] }),
      node({ tasks: [pod("d")], in: [1] }),
    ]);
    g.split(splitOnJobs);
    assert.deepEqual(g.nodes.map(shapeOf), [
      shape(["P(a)"], { out: [3] }),
      shape(["J(j)"], { in: [3], out: [4] }),
      shape(["P(d)"], { in: [4] }),
      shape(["P(b)"], { in: [0], out: [1] }),
      shape(["P(c)"], { in: [1], out: [2] }),
    ]);
  });
});

describe("Split(splitOnJobs) then Parallelize(byNumberAndComponent)", () => {
  const cases: { name: string; input: Task[]; want: NodeShape[] }[] = [
    {
      name: "pod then job",
      input: [pod("a"), job("0000_50_a_0")],
      want: [shape(["J(0000_50_a_0)"], { in: [1] }), shape(["P(a)"], { out: [0] })],
    },
    {
      name: "job between pods of one component",
      input: [pod("a"), job("0000_50_a_0"), pod("0000_50_a_1"), pod("0000_50_a_2")],
      want: [shape(["J(0000_50_a_0)"], { in: [1], out: [2] }), shape(["P(a)"], { out: [0] }), shape(["P(0000_50_a_1)", "P(0000_50_a_2)"], { in: [0] })],
    },
    {
      name: "job then a parallel level (left anchor, no right anchor)",
      input: [job("a"), pod("0000_50_a_0"), pod("0000_50_b_0"), pod("0000_50_b_1")],
      want: [
        shape(["J(a)"], { out: [1] }),
        shape([], { in: [0], out: [2, 3] }),
        shape(["P(0000_50_a_0)"], { in: [1] }),
        shape(["P(0000_50_b_0)", "P(0000_50_b_1)"], { in: [1] }),
      ],
    },
    {
      name: "parallel level between jobs (right anchor)",
      input: [job("a"), pod("0000_50_a_0"), pod("0000_50_b_0"), pod("0000_50_b_1"), pod("0000_50_c_0"), job("b")],
      want: [
        shape(["J(a)"], { out: [2] }),
        shape(["J(b)"], { in: [6] }),
        shape([], { in: [0], out: [3, 4, 5] }),
        shape(["P(0000_50_a_0)"], { in: [2], out: [6] }),
        shape(["P(0000_50_b_0)", "P(0000_50_b_1)"], { in: [2], out: [6] }),
        shape(["P(0000_50_c_0)"], { in: [2], out: [6] }),
        shape([], { in: [3, 4, 5], out: [1] }),
      ],
    },
    {
      name: "serial levels merge around a parallel level",
      input: ["07_a_0", "08_a_0", "09_a_0", "09_a_1", "09_b_0", "09_b_1", "10_a_0", "10_a_1", "11_a_0", "11_a_1"].map((s) => pod(`0000_${s}`)),
      want: [
        shape([], { out: [1] }),
        shape(["P(0000_07_a_0)", "P(0000_08_a_0)"], { in: [0], out: [2, 3] }),
        shape(["P(0000_09_a_0)", "P(0000_09_a_1)"], { in: [1], out: [4] }),
        shape(["P(0000_09_b_0)", "P(0000_09_b_1)"], { in: [1], out: [4] }),
        shape(["P(0000_10_a_0)", "P(0000_10_a_1)", "P(0000_11_a_0)", "P(0000_11_a_1)"], { in: [2, 3] }),
      ],
    },
  ];
  for (const tc of cases) {
    test(tc.name, () => {
      const g = new TaskGraph(tc.input);
      g.split(splitOnJobs);
      g.parallelize(byNumberAndComponent);
      assert.deepEqual(g.nodes.map(shapeOf), tc.want);
    });
  }

  test("two adjacent parallel buckets are joined by a spacer", () => {
    const g = new TaskGraph(["10_a_0", "10_b_0", "20_a_0", "20_b_0"].map((s) => pod(`0000_${s}`)));
    g.parallelize(byNumberAndComponent);
    assert.deepEqual(g.nodes.map(shapeOf), [
      shape([], { out: [1, 2] }),
      shape(["P(0000_10_a_0)"], { in: [0], out: [3] }),
      shape(["P(0000_10_b_0)"], { in: [0], out: [3] }),
      shape([], { in: [1, 2], out: [4, 5] }),
      shape(["P(0000_20_a_0)"], { in: [3] }),
      shape(["P(0000_20_b_0)"], { in: [3] }),
    ]);
  });

  test("a break function returning only empty buckets leaves the node alone", () => {
    const g = new TaskGraph([pod("a"), pod("b")]);
    g.parallelize(() => [[], []]);
    assert.deepEqual(g.nodes.map(shapeOf), [shape(["P(a)", "P(b)"])]);
  });
});

describe("bulkAdd", () => {
  const cases: { name: string; nodes: TaskNode[]; add: TaskNode[]; in: number[]; want: number[]; expect: NodeShape[] }[] = [
    {
      name: "into a lone node",
      nodes: [node({ tasks: tasks("a", "b") })],
      add: [node({ tasks: tasks("c") }), node({ tasks: tasks("d") })],
      in: [0],
      want: [1, 2],
      expect: [shape(["C(a)", "C(b)"], { out: [1, 2] }), shape(["C(c)"], { in: [0] }), shape(["C(d)"], { in: [0] })],
    },
    {
      name: "keeps existing out edges",
      nodes: [node({ tasks: tasks("a", "b"), out: [1] }), node({ tasks: tasks("e") })],
      add: [node({ tasks: tasks("c") }), node({ tasks: tasks("d") })],
      in: [0],
      want: [2, 3],
      expect: [shape(["C(a)", "C(b)"], { out: [1, 2, 3] }), shape(["C(e)"]), shape(["C(c)"], { in: [0] }), shape(["C(d)"], { in: [0] })],
    },
  ];
  for (const tc of cases) {
    test(tc.name, () => {
      const g = TaskGraph.fromNodes(tc.nodes);
      assert.deepEqual(g.bulkAdd(tc.add, tc.in), tc.want);
      assert.deepEqual(g.nodes.map(shapeOf), tc.expect);
    });
  }

  test("gives each added node its own copy of the in list", () => {
    const g = TaskGraph.fromNodes([node({ out: [1] }), node({ in: [0] })]);
    const added = g.bulkAdd([newTaskNode(), newTaskNode()], [0, 1]);
    assert.deepEqual(g.bulkAdd([], [0]), []);
    assert.notEqual(g.nodes[2]?.in, g.nodes[3]?.in);
    assert.deepEqual(added, [2, 3]);
    assert.deepEqual(g.nodes[0]?.out, [1, 2, 3]);
  });
});

describe("graph invariants after reshaping a synthetic payload", () => {
  const files = [
    "0000_03_config-operator_01_crd.yaml",
    "0000_03_config-operator_02_crd.yaml",
    "0000_05_a_job.yaml",
    "0000_10_a_x.yaml",
    "0000_10_b_x.yaml",
    "0000_10_b_y.yaml",
    "0000_10_c_x.yaml",
    "unmatched.yaml",
    "0000_20_a_x.yaml",
    "0000_30_a_x.yaml",
    "0000_30_d-e_x.yaml",
    "0000_40_z_job.yaml",
    "0000_50_a_x.yaml",
    "0000_50_b_x.yaml",
  ];
  const input = (): Task[] => files.map((f) => (f.includes("job") ? job(f) : pod(f)));
  const strategies = {
    byNumberAndComponent,
    flattenByNumberAndComponent,
    shifted: shiftOrder(byNumberAndComponent, 3, 2),
    permuted: permuteOrder(flattenByNumberAndComponent, createRng(7)),
    both: shiftOrder(permuteOrder(flattenByNumberAndComponent, createRng(9)), 5, 8),
  };
  for (const [name, breakFn] of Object.entries(strategies)) {
    test(name, () => {
      const g = new TaskGraph(input());
      g.split(splitOnJobs);
      g.parallelize(breakFn);
      // Every task appears exactly once.
      const seen = g.nodes.flatMap((n) => n.tasks.map((t) => t.manifest.originalFilename));
      assert.deepEqual([...seen].sort(), [...files].sort());
      // Edges are symmetric and within bounds.
      g.nodes.forEach((n, i) => {
        for (const o of n.out) assert.ok(g.nodes[o]?.in.includes(i), `${i}->${o} missing in-edge`);
        for (const p of n.in) assert.ok(g.nodes[p]?.out.includes(i), `${p}->${i} missing out-edge`);
      });
      // Jobs are alone in their node.
      for (const n of g.nodes) {
        if (n.tasks.some(splitOnJobs)) assert.equal(n.tasks.length, 1);
      }
      assert.equal(g.roots().length, 1, "one entry point");
    });
  }
});
