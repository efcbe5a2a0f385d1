import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import {
  assignStages,
  planRollout,
  rolloutSpec,
  type Action,
  type MemberObservation,
  type MemberSnapshot,
  type Outcome,
  type RolloutStatus,
} from "../../../src/fleet/index.js";

const IMAGE = "quay.io/example/release:1.1.0";
const PINNED = "quay.io/example/release@sha256:abc";

/** A member as the planner sees it, moved by the actions the plan asks for: it takes `ticks` plans to apply. */
interface SimMember {
  name: string;
  labels: Record<string, string>;
  snapshot: MemberSnapshot;
  applying?: { left: number };
  down?: boolean;
  downSince?: Date;
  willFail?: boolean;
  /** Every generation this member was sent. */
  sent: number[];
}

function fleet(n: number, extra: (i: number) => Partial<SimMember> = () => ({})): SimMember[] {
  return Array.from({ length: n }, (_, i) => ({
    name: `m-${String(i).padStart(2, "0")}`,
    labels: { env: "prod" },
    snapshot: { revision: 1, generation: 4, image: "old", version: "1.0.0", done: 10, total: 10, complete: true },
    sent: [],
    ...extra(i),
  }));
}

const spec = (overrides: Record<string, unknown> = {}, strategy: Record<string, unknown> = {}) =>
  rolloutSpec.parse({
    release: { version: "1.1.0", image: IMAGE },
    memberSelector: { matchLabels: { env: "prod" } },
    strategy: { maxConcurrent: 3, stages: [{ name: "canary", count: 1 }, { name: "wave", percent: 25 }, { name: "rest" }], ...strategy },
    ...overrides,
  });

/** Drives planRollout like the controller does, one plan per tick, the members answering at once. */
class Sim {
  status: RolloutStatus | undefined;
  now = new Date(Date.UTC(2026, 0, 1));
  outcomes = new Map<string, Outcome>();
  actions: Action[] = [];
  maxBusy = 0;
  startOrder: string[] = [];

  constructor(
    public members: SimMember[],
    public rolloutSpec: ReturnType<typeof spec>,
  ) {}

  tick(ms = 1000): void {
    this.now = new Date(this.now.getTime() + ms);
    for (const m of this.members) this.#advance(m);
    const observed = new Map<string, MemberObservation>(
      this.members.map((m) => [m.name, m.down ? { snapshot: m.snapshot, unreachableSince: (m.downSince ??= this.now) } : { snapshot: m.snapshot }]),
    );
    const plan = planRollout({
      generation: 1,
      spec: this.rolloutSpec,
      status: this.status,
      candidates: this.members,
      observed,
      outcomes: this.outcomes,
      inFlight: new Set(),
      now: this.now,
    });
    this.status = plan.status;
    this.actions.push(...plan.actions);
    for (const action of plan.actions) this.#act(action);
    const busy = this.members.filter((m) => m.applying).length;
    this.maxBusy = Math.max(this.maxBusy, busy);
  }

  run(ticks = 200): void {
    for (let i = 0; i < ticks && !["Completed", "Halted", "Cancelled"].includes(this.status?.phase ?? ""); i++) this.tick();
  }

  member(name: string): SimMember {
    const m = this.members.find((x) => x.name === name);
    assert.ok(m);
    return m;
  }

  #advance(m: SimMember): void {
    if (!m.applying || m.down || m.snapshot.paused) return;
    m.applying.left--;
    m.snapshot = { ...m.snapshot, revision: m.snapshot.revision + 1, done: m.snapshot.done + 1 };
    if (m.willFail) {
      // It keeps retrying on its own; the fleet no longer counts it as under way.
      m.snapshot = { ...m.snapshot, failure: { reason: "HealthCheckFailed", message: "web-config is failed", effect: "Fail" } };
      delete m.applying;
    } else if (m.applying.left <= 0) {
      m.snapshot = { ...m.snapshot, complete: true, done: m.snapshot.total, version: "1.1.0" };
      delete m.applying;
    }
  }

  #act(action: Action): void {
    const m = this.member(action.member);
    if (m.down) return;
    switch (action.kind) {
      case "pin":
        this.outcomes.set(m.name, { kind: "pinned", image: PINNED });
        return;
      case "start":
        m.sent.push(action.generation);
        this.startOrder.push(m.name);
        assert.equal(action.image, PINNED);
        m.snapshot = { ...m.snapshot, generation: action.generation, image: action.image, complete: false, done: 0, revision: m.snapshot.revision + 1 };
        m.applying = { left: 3 };
        this.outcomes.set(m.name, { kind: "accepted", generation: action.generation, planDigest: "d", previews: 1 });
        return;
      case "pause":
        m.snapshot = { ...m.snapshot, paused: "paused by fleet" };
        return;
      case "resume": {
        const { paused: _, ...rest } = m.snapshot;
        m.snapshot = rest;
        return;
      }
      case "cancel":
        if (m.applying && m.snapshot.done > 0) this.outcomes.set(m.name, { kind: "cancelRefused", message: "applying started" });
        else {
          delete m.applying;
          this.outcomes.set(m.name, { kind: "cancelled" });
        }
    }
  }
}

test("stages take 1, then 25 % of all, then the rest, by name", () => {
  const members = fleet(21);
  const stages = assignStages(spec().strategy.stages, members);
  const byStage = (s: string) => [...stages].filter(([, stage]) => stage === s).map(([name]) => name);
  assert.deepEqual(byStage("canary"), ["m-00"]);
  assert.deepEqual(byStage("wave"), ["m-01", "m-02", "m-03", "m-04", "m-05", "m-06"]);
  assert.equal(byStage("rest").length, 14);
});

test("a staged rollout completes in stage order, never more than maxConcurrent at once, one generation per member", () => {
  const sim = new Sim(fleet(21), spec());
  sim.run();
  assert.equal(sim.status?.phase, "Completed");
  assert.equal(sim.status?.stageSummary, "canary 1/1 · wave 6/6 · rest 14/14");
  assert.ok(sim.maxBusy <= 3, `at most 3 at once, saw ${sim.maxBusy}`);
  assert.equal(sim.startOrder[0], "m-00");
  const stageOf = new Map(sim.status?.members.map((m) => [m.name, m.stage]));
  const order = sim.startOrder.map((n) => ["canary", "wave", "rest"].indexOf(stageOf.get(n) ?? ""));
  assert.deepEqual(order, [...order].sort(), "no member of a later stage starts before an earlier stage is done");
  for (const m of sim.members) assert.deepEqual(m.sent, [5], `${m.name} is sent one generation, its own plus one`);
});

test("a later stage waits for the soak after the stage before it", () => {
  const sim = new Sim(fleet(4), spec({}, { stages: [{ name: "canary", count: 1, soak: "30s" }, { name: "rest" }] }));
  for (let i = 0; i < 10; i++) sim.tick();
  assert.equal(sim.status?.phase, "Soaking");
  assert.equal(sim.startOrder.length, 1);
  const completedAt = Date.parse(sim.status?.stages[0]?.completedAt ?? "");
  sim.run();
  assert.equal(sim.status?.phase, "Completed");
  const restStarted = Date.parse(sim.status?.stages[1]?.startedAt ?? "");
  assert.ok(restStarted - completedAt >= 30_000, `rest started ${restStarted - completedAt} ms after the canary completed`);
});

test("a failure past the budget halts: its stage finishes, no later stage starts", () => {
  const sim = new Sim(
    fleet(21, (i) => (i === 3 ? { willFail: true } : {})),
    spec(),
  );
  for (let i = 0; i < 100; i++) sim.tick();
  assert.equal(sim.status?.phase, "Halted");
  const record = (n: string) => sim.status?.members.find((m) => m.name === n);
  assert.equal(record("m-03")?.state, "Failed");
  assert.match(record("m-03")?.blocker ?? "", /HealthCheckFailed/);
  for (const n of ["m-01", "m-02", "m-04", "m-05", "m-06"]) assert.equal(record(n)?.state, "Succeeded", n);
  for (const m of sim.status?.members.filter((r) => r.stage === "rest") ?? []) assert.equal(m.state, "Pending");
  assert.equal(sim.status?.conditions.find((c) => c.type === "Halted")?.reason, "FailureBudgetExceeded");
});

test("pause holds the members under way and starts no one; resume releases only those it paused", () => {
  const sim = new Sim(fleet(8), spec({}, { stages: [{ name: "all" }] }));
  sim.member("m-07").snapshot = { ...sim.member("m-07").snapshot, paused: "by hand" };
  sim.tick();
  sim.tick();
  const started = sim.startOrder.length;
  sim.rolloutSpec = { ...sim.rolloutSpec, paused: true };
  sim.tick();
  assert.equal(sim.status?.phase, "Paused");
  for (let i = 0; i < 10; i++) sim.tick();
  assert.equal(sim.startOrder.length, started, "no member starts while paused");
  const held = sim.members.filter((m) => m.applying);
  assert.ok(held.length > 0 && held.every((m) => m.snapshot.paused));
  sim.rolloutSpec = { ...sim.rolloutSpec, paused: false };
  sim.run();
  assert.ok(held.every((m) => !m.snapshot.paused && !m.applying));
  assert.equal(sim.member("m-07").snapshot.paused, "by hand", "a member paused by hand stays paused");
});

test("cancel starts no one else; members not started keep their release", () => {
  const sim = new Sim(fleet(10), spec());
  for (let i = 0; i < 6; i++) sim.tick();
  sim.rolloutSpec = { ...sim.rolloutSpec, cancel: true };
  const started = new Set(sim.startOrder);
  sim.run();
  assert.equal(sim.status?.phase, "Cancelled");
  for (const m of sim.members.filter((x) => !started.has(x.name))) {
    assert.deepEqual(m.sent, []);
    assert.equal(m.snapshot.generation, 4);
  }
  assert.ok(sim.status?.members.filter((m) => m.state === "Cancelled").length);
});

test("an unreachable member is Unavailable within the grace period, holds its stage, and completes when back", () => {
  const sim = new Sim(fleet(3), spec({}, { maxConcurrent: 3, unavailableGracePeriod: "2m", stages: [{ name: "a", count: 2 }, { name: "b" }] }));
  sim.tick(); // pin
  sim.tick(); // dispatch
  sim.member("m-01").down = true;
  for (let i = 0; i < 60; i++) sim.tick();
  const m01 = sim.status?.members.find((m) => m.name === "m-01");
  assert.equal(m01?.state, "Unavailable");
  assert.equal(sim.status?.counts.unavailable, 1);
  assert.equal(sim.status?.stages[1]?.startedAt, undefined, "stage b waits");
  sim.member("m-01").down = false;
  delete sim.member("m-01").downSince;
  sim.run();
  assert.equal(sim.status?.phase, "Completed");
  assert.deepEqual(sim.member("m-01").sent, [5]);
});

test("unreachable past the grace period counts as failed", () => {
  const sim = new Sim(fleet(2), spec({}, { unavailableGracePeriod: "1m", maxFailures: 1, stages: [{ name: "all" }] }));
  sim.tick();
  sim.tick();
  sim.member("m-01").down = true;
  sim.run();
  assert.equal(sim.status?.members.find((m) => m.name === "m-01")?.state, "Failed");
  assert.match(sim.status?.members.find((m) => m.name === "m-01")?.blocker ?? "", /past the grace period/);
});

test("a new leader planning from the written status resends the same generation, never another", () => {
  fc.assert(
    fc.property(fc.integer({ min: 2, max: 30 }), fc.integer({ min: 1, max: 4 }), (crashAt, maxConcurrent) => {
      const sim = new Sim(fleet(12), spec({}, { maxConcurrent }));
      for (let i = 0; i < crashAt; i++) sim.tick();
      // The new leader knows only the status: no outcomes; members dispatched but not reached get the same Update.
      sim.outcomes = new Map();
      for (const m of sim.members) if (m.sent.length > 0 && Math.random() < 0.3) m.snapshot = { ...m.snapshot, generation: 4 };
      sim.run();
      for (const m of sim.members) assert.equal(new Set(m.sent).size, 1, `${m.name} got ${m.sent.join(",")}`);
      assert.equal(sim.status?.phase, "Completed");
    }),
    { numRuns: 50 },
  );
});

test("random failures and outages never exceed maxConcurrent busy nor start a stage early", () => {
  fc.assert(
    fc.property(fc.array(fc.boolean(), { minLength: 12, maxLength: 12 }), fc.integer({ min: 1, max: 5 }), (fails, maxConcurrent) => {
      const sim = new Sim(
        fleet(12, (i) => ({ willFail: fails[i] ?? false })),
        spec({}, { maxConcurrent, maxFailures: 12 }),
      );
      sim.run();
      assert.ok(sim.maxBusy <= maxConcurrent);
      const stageOf = new Map(sim.status?.members.map((m) => [m.name, m.stage]));
      const order = sim.startOrder.map((n) => ["canary", "wave", "rest"].indexOf(stageOf.get(n) ?? ""));
      assert.deepEqual(order, [...order].sort());
    }),
    { numRuns: 50 },
  );
});

test("a stage with pauseBefore waits for its approval", () => {
  const sim = new Sim(
    fleet(3),
    spec(
      {},
      {
        stages: [
          { name: "canary", count: 1 },
          { name: "rest", pauseBefore: true },
        ],
      },
    ),
  );
  for (let i = 0; i < 10; i++) sim.tick();
  assert.equal(sim.status?.phase, "WaitingApproval");
  assert.equal(sim.startOrder.length, 1);
  sim.rolloutSpec = { ...sim.rolloutSpec, approvedStages: ["rest"] };
  sim.run();
  assert.equal(sim.status?.phase, "Completed");
});

test("members no one can reach say so before the release is pinned, and fail past the grace period", () => {
  const sim = new Sim(
    fleet(2, () => ({ down: true })),
    spec({}, { unavailableGracePeriod: "1m", maxFailures: 2, stages: [{ name: "all" }] }),
  );
  sim.tick();
  assert.equal(sim.status?.pinnedImage, undefined);
  assert.ok(sim.status?.members.every((m) => m.state === "Pending" && m.blocker?.startsWith("unreachable since")));
  sim.run();
  assert.ok(sim.status?.members.every((m) => m.state === "Failed" && /past the grace period/.test(m.blocker ?? "")));
  assert.equal(sim.status?.phase, "Completed");
});
