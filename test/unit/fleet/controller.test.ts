import assert from "node:assert/strict";
import { test } from "node:test";
import {
  FleetController,
  MemberCallError,
  NO_FLEET_METRICS,
  type HubPort,
  type MemberClusterStatus,
  type MemberObservation,
  type MemberPort,
  type MemberUpdate,
  type PreviewOutcome,
  type RolloutObject,
  type RolloutStatus,
} from "../../../src/fleet/index.js";
import { NO_LOG } from "../../../src/core/index.js";
import { ManualClock, settle } from "../../harness/manual-clock.js";

const SPEC = {
  release: { version: "1.1.0", image: "quay.io/example/release:1.1.0" },
  memberSelector: {},
  strategy: { maxConcurrent: 2, stages: [{ name: "all" }] },
};

/** The hub's API server in memory: one rollout, optimistic concurrency on its status, and a log of what happened in order. */
class MemoryHub implements HubPort {
  rolloutObject: RolloutObject = { namespace: "fleet", name: "r", uid: "u1", generation: 1, resourceVersion: "1", spec: SPEC };
  readonly log: string[] = [];
  conflicts = 0;

  constructor(readonly memberNames: readonly string[]) {}

  rollout(namespace: string, name: string): RolloutObject | undefined {
    return namespace === "fleet" && name === "r" ? this.rolloutObject : undefined;
  }
  rollouts(): readonly RolloutObject[] {
    return [this.rolloutObject];
  }
  members(): readonly { namespace: string; name: string; labels: Record<string, string> }[] {
    return this.memberNames.map((name) => ({ namespace: "fleet", name, labels: {} }));
  }
  allMembers(): readonly { namespace: string; name: string; labels: Record<string, string> }[] {
    return this.members();
  }
  readonly memberStatus = new Map<string, MemberClusterStatus>();
  memberCluster(_: string, name: string): { generation: number; status?: MemberClusterStatus } {
    const status = this.memberStatus.get(name);
    return { generation: 1, ...(status ? { status } : {}) };
  }
  async writeMemberStatus(_: string, name: string, status: MemberClusterStatus): Promise<void> {
    this.log.push(`member status ${name}: ${status.state} ${status.version}`);
    this.memberStatus.set(name, status);
  }
  async writeStatus(rollout: RolloutObject, status: Partial<RolloutStatus>): Promise<boolean> {
    if (this.conflicts > 0 || rollout.resourceVersion !== this.rolloutObject.resourceVersion) {
      this.conflicts = Math.max(0, this.conflicts - 1);
      this.log.push("conflict");
      return false;
    }
    const members = (status.members ?? []).map((m) => `${m.name}:${m.state}${m.generation ? `@${m.generation}` : ""}`);
    this.log.push(`status ${members.join(" ")}`);
    this.rolloutObject = { ...this.rolloutObject, resourceVersion: String(Number(this.rolloutObject.resourceVersion) + 1), status: status as RolloutStatus };
    return true;
  }
}

/** Members whose preview and Update answer at once, logging each call into the hub's log (so the order shows). */
class Members implements MemberPort {
  readonly updates: (MemberUpdate & { member: string })[] = [];
  /** Plan digests a member's preview returns in turn; an Update passes only with the digest the member holds now. */
  digests = new Map<string, string[]>();
  readonly generation = new Map<string, number>();

  constructor(private readonly log: string[]) {}

  observation(_: string, name: string): MemberObservation {
    const generation = this.generation.get(name) ?? 4;
    return { snapshot: { revision: generation, generation, image: "old", version: "1.0.0", done: 0, total: 10, complete: false } };
  }
  async preview(_: string, name: string, image: string): Promise<PreviewOutcome> {
    this.log.push(`preview ${name}`);
    const digests = this.digests.get(name) ?? ["d1"];
    const planDigest = digests.length > 1 ? (digests.shift() ?? "") : (digests[0] ?? "");
    return { planDigest, image: image.replace(":1.1.0", "@sha256:abc"), limitViolations: [] };
  }
  async update(_: string, name: string, update: MemberUpdate) {
    this.log.push(`update ${name}@${update.generation}`);
    const held = this.digests.get(name)?.[0] ?? "d1";
    if (update.planDigest !== held) throw new MemberCallError("planChanged", "PlanDigestMismatch", "the plan changed");
    this.updates.push({ ...update, member: name });
    this.generation.set(name, update.generation);
  }
  async pause() {}
  async resume() {}
  async cancel() {}
}

function controller(hub: HubPort, members: MemberPort, clock = new ManualClock()) {
  return new FleetController({
    hub,
    members,
    metrics: NO_FLEET_METRICS,
    clock,
    log: NO_LOG,
    resyncMs: 60_000,
    retryMs: 1_000,
    progressWriteMs: 2_000,
    workers: 2,
  });
}

async function lead(c: FleetController, until: () => boolean): Promise<void> {
  const term = new AbortController();
  const running = c.run(term.signal);
  for (let i = 0; i < 200 && !until(); i++) await settle();
  term.abort();
  await running;
}

test("each member's generation is in the written status before the member is called", async () => {
  const hub = new MemoryHub(["a", "b"]);
  const members = new Members(hub.log);
  await lead(controller(hub, members), () => members.updates.length === 2);
  const firstUpdate = hub.log.findIndex((l) => l.startsWith("update a"));
  const written = hub.log.findIndex((l) => l.includes("a:Starting@5"));
  assert.ok(written >= 0 && written < firstUpdate, hub.log.join("\n"));
  assert.deepEqual(
    members.updates.map((u) => [u.member, u.generation, u.image, u.planDigest]),
    [
      ["a", 5, "quay.io/example/release@sha256:abc", "d1"],
      ["b", 5, "quay.io/example/release@sha256:abc", "d1"],
    ],
  );
});

test("a status write refused as stale calls nobody", async () => {
  const hub = new MemoryHub(["a"]);
  hub.conflicts = 1_000;
  const members = new Members(hub.log);
  await lead(controller(hub, members), () => hub.log.length > 3);
  assert.ok(
    hub.log.every((l) => l === "conflict" || l.startsWith("member status")),
    hub.log.join("\n"),
  );
});

test("a new leader on the written status sends the same generation again, never another", async () => {
  const hub = new MemoryHub(["a"]);
  const members = new Members(hub.log);
  // The first leader wrote its plan and lost the lease before its Update reached the member.
  const stalled: MemberPort = {
    observation: (ns, name) => members.observation(ns, name),
    preview: () => new Promise(() => undefined),
    update: (ns, name, update) => members.update(ns, name, update),
    pause: async () => undefined,
    resume: async () => undefined,
    cancel: async () => undefined,
  };
  await lead(controller(hub, stalled), () => hub.log.some((l) => l.includes("a:Starting@5")));
  assert.equal(members.updates.length, 0);
  members.generation.set("a", 4);
  await lead(controller(hub, members), () => members.updates.length === 1);
  assert.deepEqual(
    members.updates.map((u) => u.generation),
    [5],
  );
});

test("a plan that changed between preview and Update is previewed again; changing every time, the member is blocked", async () => {
  const hub = new MemoryHub(["a", "b"]);
  const members = new Members(hub.log);
  members.digests.set("a", ["pinned", "d1", "d2"]);
  members.digests.set("b", ["x1", "x2", "x3", "x4"]);
  const originalUpdate = members.update.bind(members);
  // b's plan moves on again after each preview.
  members.update = async (ns, name, update) => {
    if (name === "b") {
      members.digests.get("b")?.shift();
      throw new MemberCallError("planChanged", "PlanDigestMismatch", "the plan changed");
    }
    return originalUpdate(ns, name, update);
  };
  await lead(
    controller(hub, members),
    () => hub.rolloutObject.status?.members.find((m) => m.name === "b")?.state === "Blocked" && members.updates.length === 1,
  );
  assert.equal(hub.log.filter((l) => l === "preview a").length, 3, "one to pin the release, then a preview per Update tried");
  const b = hub.rolloutObject.status?.members.find((m) => m.name === "b");
  assert.equal(b?.state, "Blocked");
  assert.match(b?.blocker ?? "", /PlanChanged: the plan changed between preview and Update 3 times/);
});

test("a member whose previewed plan exceeds the rollout's blast-radius limits is Blocked without an Update", async () => {
  const hub = new MemoryHub(["a"]);
  hub.rolloutObject = { ...hub.rolloutObject, spec: { ...SPEC, memberControls: { limits: { maxDeletions: 0 } } } };
  const members = new Members(hub.log);
  const preview = members.preview.bind(members);
  members.preview = async (ns, name, image) => ({ ...(await preview(ns, name, image)), limitViolations: ["3 deletions, more than --max-deletions 0"] });
  await lead(controller(hub, members), () => hub.rolloutObject.status?.members[0]?.state === "Blocked");
  assert.deepEqual(members.updates, []);
  assert.match(hub.rolloutObject.status?.members[0]?.blocker ?? "", /^BlastRadiusExceeded: 3 deletions/);
  assert.equal(hub.rolloutObject.status?.phase, "Halted", "a blocked member spends the budget of 0");
});

test("a MemberCluster's status follows its syncworker: written when its state, version or reachability changes, not on every snapshot", async () => {
  const hub = new MemoryHub(["a"]);
  const members = new Members(hub.log);
  let observation: MemberObservation = { snapshot: { revision: 3, generation: 4, image: "i", version: "1.0.0", done: 10, total: 10, complete: true } };
  members.observation = () => observation;
  hub.rolloutObject = { ...hub.rolloutObject, spec: { ...SPEC, paused: true } };
  const clock = new ManualClock();
  const c = controller(hub, members, clock);
  const term = new AbortController();
  const running = c.run(term.signal);
  const memberLines = (): string[] => hub.log.filter((l) => l.startsWith("member status"));
  for (let i = 0; i < 50 && memberLines().length < 1; i++) await settle();
  assert.deepEqual(memberLines(), ["member status a: Reconciling 1.0.0"]);
  assert.equal(hub.memberStatus.get("a")?.conditions[0]?.status, "True");
  // A new revision with nothing else changed: no write.
  observation = { snapshot: { ...observation.snapshot!, revision: 4 } };
  c.memberChanged("fleet", "a");
  for (let i = 0; i < 20; i++) await settle();
  assert.equal(memberLines().length, 1);
  observation = { ...observation, unreachableSince: clock.now() };
  c.memberChanged("fleet", "a");
  for (let i = 0; i < 50 && memberLines().length < 2; i++) await settle();
  assert.deepEqual(memberLines().at(-1), "member status a: Unreachable 1.0.0");
  assert.equal(hub.memberStatus.get("a")?.conditions[0]?.status, "False");
  term.abort();
  await running;
});

test("members' progress alone reaches the rollout's status at most every progressWriteMs; a change of state at once", async () => {
  const hub = new MemoryHub(["a"]);
  const members = new Members(hub.log);
  let done = 0;
  members.observation = (_, name) => {
    const generation = members.generation.get(name) ?? 4;
    return {
      snapshot: {
        revision: generation * 100 + done,
        generation,
        image: "quay.io/example/release@sha256:abc",
        version: "1.0.0",
        done,
        total: 10,
        complete: false,
      },
    };
  };
  const clock = new ManualClock();
  const c = controller(hub, members, clock);
  const term = new AbortController();
  const running = c.run(term.signal);
  const writes = (): number => hub.log.filter((l) => l.startsWith("status")).length;
  for (let i = 0; i < 100 && members.updates.length === 0; i++) await settle();
  for (let i = 0; i < 50; i++) await settle();
  const afterStart = writes();
  for (const reported of [1, 2, 3, 4, 5]) {
    done = reported;
    c.enqueue("fleet", "r");
    for (let i = 0; i < 20; i++) await settle();
  }
  assert.ok(writes() - afterStart <= 1, `progress written ${writes() - afterStart} times within the interval`);
  await clock.advance(2_000);
  for (let i = 0; i < 50; i++) await settle();
  assert.equal(hub.rolloutObject.status?.members[0]?.done, 5, "the latest progress is written once the interval is over");
  term.abort();
  await running;
});
