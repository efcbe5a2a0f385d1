import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { TaskGraph, createRng, runGraph, type Rng, type Task, type TaskNode } from "../../../src/graph/index.js";
import { node, sleep, tasks } from "./helpers.js";
import { abortReason } from "../../../src/core/index.js";

/** One node execution as seen by the test's fn. */
interface Execution {
  node: number;
  start: number;
  end: number;
  failed: boolean;
}

/** Runs `nodes` and records task names plus per-node start/end ticks for invariant checks. */
async function run(
  nodes: TaskNode[],
  parallel: number,
  opts: {
    rng?: Rng;
    parent?: AbortController;
    errorOn?: (name: string, signal: AbortSignal, cancel: () => void) => Error | undefined | Promise<Error | undefined>;
  } = {},
): Promise<{ errs: Error[] | null; order: string[]; executions: Execution[] }> {
  const graph = TaskGraph.fromNodes(nodes);
  const parent = opts.parent ?? new AbortController();
  const nodeOf = new Map<readonly Task[], number>(nodes.map((n, i) => [n.tasks, i]));
  const order: string[] = [];
  const executions: Execution[] = [];
  let tick = 0;
  const errs = await runGraph(
    graph,
    parallel,
    async (nodeTasks, signal) => {
      const exec: Execution = { node: nodeOf.get(nodeTasks) ?? -1, start: tick++, end: -1, failed: true };
      executions.push(exec);
      try {
        for (const task of nodeTasks) {
          await sleep(opts.rng ? opts.rng.intn(4) : 0);
          const name = task.manifest.originalFilename;
          const err = await opts.errorOn?.(name, signal, () => parent.abort());
          if (err) throw err;
          order.push(name);
        }
        exec.failed = false;
      } finally {
        exec.end = tick++;
      }
    },
    parent.signal,
  );
  return { errs, order, executions };
}

/** Graph-level invariants every run must satisfy, whatever the scenario. */
function checkInvariants(nodes: TaskNode[], parallel: number, executions: Execution[]): void {
  const byNode = new Map<number, Execution>();
  for (const e of executions) {
    assert.ok(!byNode.has(e.node), `node ${e.node} ran twice`);
    byNode.set(e.node, e);
  }
  for (const e of executions) {
    for (const p of nodes[e.node]?.in ?? []) {
      const pred = byNode.get(p);
      assert.ok(pred && !pred.failed && pred.end < e.start, `node ${e.node} started before ${p} succeeded`);
    }
  }
  const events = executions.flatMap((e) => [
    { at: e.start, d: 1 },
    { at: e.end, d: -1 },
  ]);
  events.sort((a, b) => a.at - b.at);
  let live = 0;
  for (const ev of events) {
    live += ev.d;
    assert.ok(live <= Math.max(1, parallel), `more than ${parallel} nodes in flight`);
  }
}

interface Scenario {
  name: string;
  nodes: () => TaskNode[];
  parallel: number;
  errorOn?: (name: string, signal: AbortSignal, cancel: () => void) => Error | undefined | Promise<Error | undefined>;
  /** Exact execution order. */
  order?: string[];
  /** Executed set, any order. */
  want?: string[];
  invariants?: (got: string[]) => void;
  /** Messages in the order returned. */
  wantErrs: string[];
}

const before = (got: string[], a: string, b: string): void => assert.ok(got.indexOf(a) < got.indexOf(b), `${a} should run before ${b}: ${got.join(",")}`);

const scenarios: Scenario[] = [
  {
    name: "tasks executed in order",
    nodes: () => [node({ tasks: tasks("a", "b") })],
    parallel: 1,
    order: ["a", "b"],
    wantErrs: [],
  },
  {
    name: "nodes executed after dependencies",
    nodes: () => [
      node({ tasks: tasks("c"), in: [3] }),
      node({ tasks: tasks("d", "e"), in: [3] }),
      node({ tasks: tasks("f"), in: [3], out: [4] }),
      node({ tasks: tasks("a", "b"), out: [0, 1, 2] }),
      node({ tasks: tasks("g"), in: [2] }),
    ],
    parallel: 2,
    want: ["a", "b", "c", "d", "e", "f", "g"],
    invariants: (got) => {
      before(got, "a", "b");
      before(got, "d", "e");
      for (const x of ["c", "d", "e", "f", "g"]) before(got, "b", x);
      before(got, "f", "g");
    },
    wantErrs: [],
  },
  {
    name: "task error interrupts node processing",
    nodes: () => [
      node({ tasks: tasks("c"), in: [2] }),
      node({ tasks: tasks("d"), in: [2], out: [3] }),
      node({ tasks: tasks("a", "b"), out: [0, 1] }),
      node({ tasks: tasks("e"), in: [1] }),
    ],
    parallel: 2,
    errorOn: (name) => (name === "d" ? new Error("error A") : undefined),
    want: ["a", "b", "c"],
    wantErrs: ["error A"],
  },
  {
    name: "mid-task cancellation error interrupts node processing",
    nodes: () => [
      node({ tasks: tasks("c"), in: [2] }),
      node({ tasks: tasks("d"), in: [2], out: [3] }),
      node({ tasks: tasks("a", "b"), out: [0, 1] }),
      node({ tasks: tasks("e"), in: [1] }),
    ],
    parallel: 2,
    errorOn: async (name, signal, cancel) => {
      if (name !== "d") return undefined;
      cancel();
      if (!signal.aborted) {
        // The child signal must follow the parent; give it a bounded chance.
        await Promise.race([new Promise((resolve) => signal.addEventListener("abort", resolve, { once: true })), sleep(1000)]);
      }
      assert.ok(signal.aborted, "expected the child signal to be aborted");
      return abortReason(signal);
    },
    want: ["a", "b", "c"],
    wantErrs: ["context canceled"],
  },
  {
    name: "mid-task cancellation with work in queue does not deadlock",
    nodes: () => [node({ tasks: tasks("a1", "a2", "a3") }), node({ tasks: tasks("b") })],
    parallel: 1,
    errorOn: (name, signal, cancel) => {
      if (signal.aborted) return abortReason(signal);
      if (name === "a2") cancel();
      return undefined;
    },
    want: ["a1", "a2"],
    wantErrs: ["context canceled"],
  },
  {
    name: "task errors in parallel nodes both reported",
    nodes: () => [
      node({ tasks: tasks("a"), out: [1] }),
      node({ tasks: tasks("b"), in: [0], out: [2, 4, 8] }),
      node({ tasks: tasks("c1"), in: [1], out: [3] }),
      node({ tasks: tasks("c2"), in: [2], out: [7] }),
      node({ tasks: tasks("d1"), in: [1], out: [5] }),
      node({ tasks: tasks("d2"), in: [4], out: [6] }),
      node({ tasks: tasks("d3"), in: [5], out: [7] }),
      node({ tasks: tasks("e"), in: [3, 6] }),
      node({ tasks: tasks("f"), in: [1] }),
    ],
    parallel: 2,
    errorOn: (name) => (name === "c1" || name === "f" ? new Error(`error - ${name}`) : undefined),
    want: ["a", "b", "d1", "d2", "d3"],
    wantErrs: ["error - c1", "error - f"],
  },
  {
    name: "cancelation without task errors is reported",
    nodes: () => [node({ tasks: tasks("a"), out: [1] }), node({ tasks: tasks("b"), in: [0] })],
    parallel: 1,
    errorOn: async (name, _signal, cancel) => {
      if (name !== "a") return new Error("task b should never run");
      cancel();
      await sleep(20);
      return undefined;
    },
    want: ["a"],
    wantErrs: ['1 incomplete task nodes, beginning with configmap "default/b" (0 of 0)', "context canceled"],
  },
];

describe("runGraph scenarios", () => {
  for (const sc of scenarios) {
    // Several seeds vary the per-task sleeps, and so the interleavings.
    test(sc.name, async () => {
      for (const seed of [1, 2, 3, 4, 5, 6]) {
        const nodes = sc.nodes();
        const { errs, order, executions } = await run(nodes, sc.parallel, {
          rng: createRng(seed),
          ...(sc.errorOn ? { errorOn: sc.errorOn } : {}),
        });
        if (sc.order) assert.deepEqual(order, sc.order, `seed ${seed}`);
        if (sc.want) assert.deepEqual([...order].sort(), [...sc.want].sort(), `seed ${seed}`);
        sc.invariants?.(order);
        assert.deepEqual(errs?.map((e) => e.message) ?? [], sc.wantErrs, `seed ${seed}`);
        checkInvariants(nodes, sc.parallel, executions);
      }
    });
  }
});

describe("runGraph contract", () => {
  test("empty graph succeeds", async () => {
    assert.equal(await runGraph(TaskGraph.fromNodes([]), 4, async () => {}, new AbortController().signal), null);
  });

  test("anchor nodes are run with no tasks", async () => {
    const seen: number[] = [];
    const g = TaskGraph.fromNodes([node({ out: [1] }), node({ in: [0] })]);
    const errs = await runGraph(g, 1, async (ts) => void seen.push(ts.length), new AbortController().signal);
    assert.equal(errs, null);
    assert.deepEqual(seen, [0, 0]);
  });

  test("the lowest-index runnable node starts first", async () => {
    const nodes = [node({ tasks: tasks("x"), in: [2] }), node({ tasks: tasks("y") }), node({ tasks: tasks("z"), out: [0] }), node({ tasks: tasks("w") })];
    const { order } = await run(nodes, 1);
    assert.deepEqual(order, ["y", "z", "x", "w"]);
  });

  for (const [parallel, expected] of [
    [0, 1],
    [-3, 1],
    [2, 2],
    [100, 6],
    [Number.POSITIVE_INFINITY, 6],
  ] as const) {
    test(`parallelism ${parallel} runs at most ${expected} nodes at once`, async () => {
      let live = 0;
      let peak = 0;
      const g = TaskGraph.fromNodes(Array.from({ length: 6 }, (_, i) => node({ tasks: tasks(`n${i}`) })));
      const errs = await runGraph(
        g,
        parallel,
        async () => {
          peak = Math.max(peak, ++live);
          await sleep(5);
          live--;
        },
        new AbortController().signal,
      );
      assert.equal(errs, null);
      assert.equal(peak, expected);
    });
  }

  test("fn gets a child signal that is aborted when the run ends", async () => {
    const parent = new AbortController();
    let seen: AbortSignal | undefined;
    await runGraph(new TaskGraph(tasks("a")), 1, async (_, s) => void (seen = s), parent.signal);
    assert.ok(seen && seen !== parent.signal);
    assert.equal(seen.aborted, true);
    assert.equal(parent.signal.aborted, false);
  });

  test("nodes handed out together start even if a sibling aborts the parent synchronously", async () => {
    // Both are handed out before either starts; a's abort lands before b's start, so b is taken back.
    const parent = new AbortController();
    const ran: string[] = [];
    const errs = await runGraph(
      TaskGraph.fromNodes([node({ tasks: tasks("a") }), node({ tasks: tasks("b") })]),
      2,
      async (ts) => {
        const name = ts[0]?.manifest.originalFilename ?? "";
        ran.push(name);
        if (name === "a") parent.abort();
      },
      parent.signal,
    );
    assert.deepEqual(ran, ["a"]);
    assert.deepEqual(
      errs?.map((e) => e.message),
      ['1 incomplete task nodes, beginning with configmap "default/b" (0 of 0)', "context canceled"],
    );
  });

  test("an already aborted parent runs nothing and reports its reason", async () => {
    const parent = new AbortController();
    parent.abort(new Error("shutting down"));
    let calls = 0;
    const g = TaskGraph.fromNodes([node({ out: [1] }), node({ tasks: tasks("a"), in: [0] })]);
    const errs = await runGraph(g, 2, async () => void calls++, parent.signal);
    assert.equal(calls, 0);
    assert.deepEqual(
      errs?.map((e) => e.message),
      ['2 incomplete task nodes, beginning with configmap "default/a" (0 of 0)', "shutting down"],
    );
  });

  test("errors are returned in node-index order, not completion order", async () => {
    const nodes = [node({ tasks: tasks("slow") }), node({ tasks: tasks("fast") })];
    const errs = await runGraph(
      TaskGraph.fromNodes(nodes),
      2,
      async (ts) => {
        const name = ts[0]?.manifest.originalFilename ?? "";
        await sleep(name === "slow" ? 20 : 0);
        throw new Error(name);
      },
      new AbortController().signal,
    );
    assert.deepEqual(
      errs?.map((e) => e.message),
      ["slow", "fast"],
    );
  });

  test("non-Error rejections and synchronous throws become errors", async () => {
    const nodes = [node({ tasks: tasks("a") }), node({ tasks: tasks("b") })];
    const errs = await runGraph(
      TaskGraph.fromNodes(nodes),
      2,
      (ts) => {
        if (ts[0]?.manifest.originalFilename === "a") throw new Error("sync");
        // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- the case under test: a non-Error rejection
        return Promise.reject("plain string");
      },
      new AbortController().signal,
    );
    assert.deepEqual(
      errs?.map((e) => e.message),
      ["sync", "plain string"],
    );
  });

  test("a parent aborted mid-run waits for running nodes and keeps their results", async () => {
    const parent = new AbortController();
    const nodes = [node({ tasks: tasks("a") }), node({ tasks: tasks("b") }), node({ tasks: tasks("c") })];
    let finished = 0;
    const errs = await runGraph(
      TaskGraph.fromNodes(nodes),
      2,
      async (ts) => {
        await sleep(1);
        if (ts[0]?.manifest.originalFilename === "a") parent.abort();
        await sleep(10);
        finished++;
      },
      parent.signal,
    );
    assert.equal(finished, 2, "a and b complete, c never starts");
    assert.deepEqual(
      errs?.map((e) => e.message),
      ['1 incomplete task nodes, beginning with configmap "default/c" (0 of 0)', "context canceled"],
    );
  });
});
