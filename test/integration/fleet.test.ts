// The fleet end to end: the harness's real kube-apiserver as the hub with deploy/fleet's CRDs, 20 member `serve`
// processes on embedded clusters plus one on the real kube-apiserver (its own namespace, the test playing its
// operators), and two `syncworker fleet --leader-elect` replicas. Each test rolls every member one
// z-stream further with a ReleaseRollout and checks it against what the members themselves report.
import assert from "node:assert/strict";
import { setMaxListeners } from "node:events";
import { cp as copy, mkdir } from "node:fs/promises";
import { join } from "node:path";
import {
  Code,
  FleetClient,
  MemberState,
  type SyncWorkerError,
  isComplete,
  type FleetWatchResponse,
  type MemberView,
  type RolloutView,
} from "@syncworker/client";
import { startControlPlane, type ControlPlane } from "../harness/control-plane.js";
import {
  FLEET_API,
  MemberSampler,
  demoAt,
  installFleet,
  kubectl,
  memberName,
  registerMembers,
  rolloutStatus,
  startHub,
  startMembers,
  tempDir,
  waitForRollout,
  type RolloutStatusView,
} from "../harness/fleet.js";
import { createForeignNamespaces, installMissingKinds, payloadManifests, playOperators, type OperatorPlayer } from "../harness/cluster-play.js";
import { runCli } from "../harness/cli.js";
import { runFleetExamples } from "../harness/fleet-examples.js";
import { startTcpProxy } from "../harness/tcp-proxy.js";
import { REPO_ROOT, startServer, waitForStatus, type ServerProcess } from "../harness/server.js";
import { tierTests } from "../harness/tiers.js";

const { after, before, test } = tierTests("kube");
// Each member process registers an exit handler and each sampled member an abort listener: 20 of them are expected.
process.setMaxListeners(100);
setMaxListeners(100);

const NAMESPACE = "fleet";
/** Members on embedded clusters; one more, the last, applies to the real kube-apiserver. */
const EMBEDDED = Number(process.env["SYNCWORKER_FLEET_MEMBERS"] ?? 20);
const MEMBERS = EMBEDDED + 1;
const KUBE_MEMBER_NAMESPACE = "fleet-member-kube";
/** The member whose syncworker may not read the 1.1.2 release (outside its --payload-root): its Update is refused. */
const REFUSING = 3;
const DONE = ["Completed", "Halted", "Cancelled"];

let cp: ControlPlane;
let members: ServerProcess[] = [];
const hubs: ServerProcess[] = [];
/** Releases every member may read, and the one the refusing member may not. */
let releases: string;
let forbidden: string;
let stateDirs: string[] = [];
let player: OperatorPlayer | undefined;

/** The kube member's operators report the versions of `version`'s release, as they would once it is applied. */
async function playRelease(version: string): Promise<void> {
  await player?.stop();
  const { manifests } = await payloadManifests(image(version));
  player = playOperators(cp.api, manifests);
}

before(
  async () => {
    cp = await startControlPlane();
    await installFleet(cp, NAMESPACE);
    const root = await tempDir("fleet-releases-");
    releases = join(root, "ok");
    forbidden = join(root, "forbidden");
    await mkdir(releases);
    await mkdir(forbidden);
    await copy(join(REPO_ROOT, "examples/payloads/demo-1.0.0"), join(releases, "demo-1.0.0"), { recursive: true });
    for (const version of ["1.1.0", "1.1.3", "1.1.4", "1.1.5", "1.1.6"]) await demoAt(releases, version);
    await demoAt(forbidden, "1.1.2");
    stateDirs = await Promise.all(Array.from({ length: EMBEDDED }, () => tempDir("fleet-member-")));
    members = await startMembers(EMBEDDED, join(releases, "demo-1.0.0"), (i) => [
      "--state-dir",
      stateDirs[i] ?? "",
      ...(i === REFUSING ? ["--payload-root", releases] : []),
    ]);
    const { manifests } = await payloadManifests(image("1.0.0"));
    await installMissingKinds(cp.api, manifests);
    await createForeignNamespaces(cp.api, manifests);
    await playRelease("1.0.0");
    const kubeMember = await startServer(["--kubeconfig", cp.kubeconfig, "--namespace", KUBE_MEMBER_NAMESPACE, "--reconcile-interval", "60s"]);
    members.push(kubeMember);
    await kubeMember.client.update({ generation: 1, desired: { image: image("1.0.0") } });
    await waitForStatus(kubeMember.client, (s) => isComplete(s), 5 * 60_000);
    await registerMembers(cp, NAMESPACE, members);
    hubs.push(await startHub(cp, NAMESPACE, ["--leader-elect"]), await startHub(cp, NAMESPACE, ["--leader-elect"]));
  },
  { timeout: 90 * 60_000 },
);

after(async () => {
  await player?.stop();
  for (const p of [...hubs, ...members]) await p.stop().catch(() => undefined);
  await cp?.stop();
});

const image = (version: string): string => join(version === "1.1.2" ? forbidden : releases, `demo-${version}`);

interface RolloutOptions {
  readonly maxConcurrent?: number | string;
  readonly maxFailures?: number;
  readonly stages?: readonly Record<string, unknown>[];
  readonly grace?: string;
}

/** The canary of 1, then 25 %, then the rest, at most 3 at once unless told otherwise. */
async function createRollout(name: string, version: string, o: RolloutOptions = {}): Promise<void> {
  await playRelease(version);
  await cp.api.apply(
    {
      apiVersion: FLEET_API,
      kind: "ReleaseRollout",
      metadata: { name, namespace: NAMESPACE },
      spec: {
        release: { version, image: image(version) },
        memberSelector: { matchLabels: { env: "test" } },
        strategy: {
          maxConcurrent: o.maxConcurrent ?? 3,
          maxFailures: o.maxFailures ?? 0,
          unavailableGracePeriod: o.grace ?? "5m",
          stages: o.stages ?? [{ name: "canary", count: 1 }, { name: "wave", percent: 25 }, { name: "rest" }],
        },
      },
    } as never,
    "fleet-test",
  );
}

async function patchSpec(name: string, spec: Record<string, unknown>): Promise<void> {
  await kubectl(cp, "patch", "releaserollout", name, "-n", NAMESPACE, "--type=merge", "-p", JSON.stringify({ spec }));
}

/** The members not succeeded, with what holds each, for a failing assertion's message. */
const unfinished = (status: RolloutStatusView): string =>
  JSON.stringify((status.members ?? []).filter((m) => m.state !== "Succeeded").map((m) => [m.name, m.state, m.blocker]));

/** `kubectl` output lines once `done` holds for them (the controller writes MemberCluster status as members change). */
async function waitForRows(args: string[], done: (rows: string[]) => boolean, timeoutMs = 60_000): Promise<string[]> {
  const deadline = Date.now() + timeoutMs;
  let rows: string[] = [];
  while (Date.now() < deadline) {
    rows = (await kubectl(cp, ...args)).trim().split("\n");
    if (done(rows)) return rows;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  assert.fail(`kubectl ${args.join(" ")} never showed what was expected:\n${rows.join("\n")}`);
}

/** A FleetWatch kept open in the background: the latest views, and each member's revisions in the order they came. */
function followFleet(address: string, rollout: string) {
  const client = new FleetClient(address);
  const stop = new AbortController();
  const state = { rollout: undefined as RolloutView | undefined, members: new Map<string, MemberView>(), revisions: new Map<string, number[]>() };
  const running = (async () => {
    try {
      for await (const event of client.watchFleet({ rollout, signal: stop.signal, backoff: { initialMs: 100, maxMs: 1_000 } })) {
        if (event.rollout) state.rollout = event.rollout;
        if (event.member) {
          state.members.set(event.member.member, event.member);
          state.revisions.set(event.member.member, [...(state.revisions.get(event.member.member) ?? []), event.member.revision]);
        }
      }
    } catch (err) {
      if (!stop.signal.aborted) throw err;
    }
  })();
  return {
    async until(done: (s: typeof state) => boolean, timeoutMs = 60_000): Promise<typeof state> {
      const deadline = Date.now() + timeoutMs;
      while (!done(state) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 200));
      stop.abort();
      await running;
      client.close();
      assert.ok(done(state), `the watch got there: ${JSON.stringify(state.rollout)}`);
      return state;
    },
  };
}

const stageOf = (status: RolloutStatusView): Map<string, string> => new Map((status.members ?? []).map((m) => [m.name, m.stage]));

/** The members' own reports: each member went through at most one new generation since `sampler` began, the one in the rollout's status. */
function assertOneGenerationEach(sampler: MemberSampler, status: RolloutStatusView, before: ReadonlyMap<string, number>): void {
  for (const record of status.members ?? []) {
    const seen = [...(sampler.firstSeen.get(record.name)?.keys() ?? [])].filter((g) => g > (before.get(record.name) ?? 0));
    if (record.generation === undefined) assert.deepEqual(seen, [], `${record.name} was never dispatched, yet took ${seen.join(", ")}`);
    else
      assert.ok(
        seen.length <= 1 && (seen.length === 0 || seen[0] === record.generation),
        `${record.name}: saw generations ${seen.join(", ")}, status says ${record.generation}`,
      );
  }
}

async function generations(): Promise<Map<string, number>> {
  return new Map(await Promise.all(members.map(async (m, i) => [memberName(i), (await m.client.getStatus()).generation] as const)));
}

test(
  "a staged rollout completes in stage order, never more than 3 at once; kubectl get shows the stage counts; FleetWatch shows every member",
  { timeout: 20 * 60_000 },
  async () => {
    const before = await generations();
    const sampler = new MemberSampler(members);
    await createRollout("to-1-1-0", "1.1.0", {
      stages: [{ name: "canary", count: 1, soak: "2s" }, { name: "wave", percent: 25 }, { name: "rest" }],
    });
    // FleetWatch through a proxy that drops the connection twice during the rollout: it resumes from its cursors.
    await waitForRollout(cp, NAMESPACE, "to-1-1-0", (s) => s.phase !== undefined, 60_000);
    const proxy = await startTcpProxy(hubs[1]?.address ?? "");
    const watcher = followFleet(proxy.address, "to-1-1-0");
    await waitForRollout(cp, NAMESPACE, "to-1-1-0", (s) => (s.counts?.["succeeded"] ?? 0) >= 3, 5 * 60_000);
    proxy.cut();
    await waitForRollout(cp, NAMESPACE, "to-1-1-0", (s) => (s.counts?.["succeeded"] ?? 0) >= 10, 5 * 60_000);
    proxy.cut();
    const status = await waitForRollout(cp, NAMESPACE, "to-1-1-0", (s) => DONE.includes(s.phase ?? ""), 12 * 60_000);
    await sampler.stop();
    const watched = await watcher.until(
      (w) => w.rollout?.phase === "Completed" && [...w.members.values()].every((m) => m.state === MemberState.MEMBER_STATE_SUCCEEDED),
    );
    await proxy.close();
    assert.ok(proxy.accepted() >= 3, `the watch reconnected after each cut (${proxy.accepted()} connections)`);
    assert.equal(watched.members.size, MEMBERS);
    for (const [name, revisions] of watched.revisions)
      assert.deepEqual(
        revisions,
        [...revisions].sort((a, b) => a - b),
        `${name}'s views came in revision order across the drops`,
      );
    assert.equal(status.phase, "Completed", unfinished(status));
    const wave = Math.ceil(MEMBERS / 4);
    assert.equal(status.stageSummary, `canary 1/1 · wave ${wave}/${wave} · rest ${MEMBERS - 1 - wave}/${MEMBERS - 1 - wave}`);
    assert.ok(sampler.maxUpdating <= 3, `the members reported ${sampler.maxUpdating} updating at once`);
    assert.ok(sampler.maxUpdating >= 2, `the rollout ran members in parallel (saw ${sampler.maxUpdating})`);
    assertOneGenerationEach(sampler, status, before);

    // Stage order, from the members' own reports: each took the new generation only after every member of the stages
    // before it had.
    const stages = stageOf(status);
    const tookAt = (name: string): number => sampler.firstSeen.get(name)?.get((before.get(name) ?? 0) + 1) ?? Number.NaN;
    const byStage = (stage: string): number[] => [...stages].filter(([, s]) => s === stage).map(([n]) => tookAt(n));
    assert.ok(Math.max(...byStage("canary")) < Math.min(...byStage("wave")));
    assert.ok(Math.max(...byStage("wave")) < Math.min(...byStage("rest")));
    for (const m of members) assert.equal((await m.client.getStatus()).actual?.version, "1.1.0");

    const table = (await kubectl(cp, "get", "releaserollouts", "-n", NAMESPACE)).trim().split("\n");
    assert.match(table[0] ?? "", /NAME\s+RELEASE\s+PHASE\s+STAGE\s+STAGES/);
    assert.match(table[1] ?? "", new RegExp(`to-1-1-0\\s+1\\.1\\.0\\s+Completed\\s+.*canary 1/1 · wave ${wave}/${wave} · rest`));

    // One stream for the fleet, from the standby as much as the leader: the rollout and every member, then synced.
    const fleet = new FleetClient(hubs[1]?.address ?? "");
    const seen: FleetWatchResponse[] = [];
    const stop = new AbortController();
    for await (const event of fleet.watchFleet({ rollout: "to-1-1-0", signal: stop.signal })) {
      seen.push(event);
      if (event.synced) break;
    }
    fleet.close();
    assert.equal(seen[0]?.rollout?.phase, "Completed");
    const views = seen.flatMap((e) => (e.member ? [e.member] : []));
    assert.equal(views.length, MEMBERS);
    assert.ok(views.every((v) => v.state === MemberState.MEMBER_STATE_SUCCEEDED && v.version === "1.1.0"));

    // Each MemberCluster shows what its syncworker runs, as kubectl prints it.
    const smc = await waitForRows(
      ["get", "memberclusters", "-n", NAMESPACE, "--no-headers"],
      (rows) => rows.length === MEMBERS && rows.every((r) => /\s1\.1\.0\s+Reconciling\s+True\s/.test(r)),
    );
    assert.equal(smc.length, MEMBERS);

    // The leader's metrics: the rollout's members by state, its leadership, its calls to members.
    const leader = await leaderHub();
    const metrics = await (await fetch(`http://${leader.adminAddress}/metrics`)).text();
    assert.match(metrics, new RegExp(`syncworker_fleet_members\\{rollout="${NAMESPACE}/to-1-1-0",state="succeeded"\\} ${MEMBERS}\\b`));
    assert.match(metrics, /^syncworker_fleet_leader 1$/m);
    assert.match(metrics, /syncworker_fleet_member_calls_total\{call="start",outcome="ok"\} \d+/);
    assert.match(metrics, /syncworker_fleet_reconcile_seconds_count\{result="written"\} \d+/);

    // The three clients' watch-fleet examples, against the real hub.
    const examples = await runFleetExamples(hubs[0]?.address ?? "", "to-1-1-0");
    for (const [client, line] of Object.entries(examples)) assert.equal(line, `rollout to-1-1-0 Completed: ${MEMBERS}/${MEMBERS} succeeded`, client);
    await assert.rejects(
      async () => {
        for await (const _ of new FleetClient(hubs[0]?.address ?? "").watchFleet({ rollout: "no-such-rollout" })) assert.fail("no event for a missing rollout");
      },
      (err: SyncWorkerError) => err.code === Code.NotFound && /ReleaseRollout fleet\/no-such-rollout not found/.test(err.message),
    );

    // The CLI, as a script calls it: JSON lines, exit 0 once the rollout completed.
    const cli = await runCli(["watch", "--fleet", "to-1-1-0", "--address", hubs[0]?.address ?? "", "--until-complete"]);
    assert.equal(cli.code, 0, cli.stderr);
    const lines = cli.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { rollout?: { phase: string }; member?: { state: string } });
    assert.equal(lines[0]?.rollout?.phase, "Completed");
    assert.equal(lines.filter((l) => l.member?.state === "MEMBER_STATE_SUCCEEDED").length, MEMBERS);
  },
);

test("a member that fails past the budget halts the rollout: its stage finishes, no later stage starts", { timeout: 10 * 60_000 }, async () => {
  const before = await generations();
  await createRollout("to-1-1-2", "1.1.2");
  const status = await waitForRollout(
    cp,
    NAMESPACE,
    "to-1-1-2",
    (s) => s.phase === "Halted" && (s.members ?? []).filter((m) => m.stage === "wave").every((m) => ["Succeeded", "Failed"].includes(m.state)),
    8 * 60_000,
  );
  const refusing = status.members?.find((m) => m.name === memberName(REFUSING));
  assert.equal(refusing?.stage, "wave");
  assert.equal(refusing?.state, "Failed");
  assert.match(refusing?.blocker ?? "", /payload-root|outside|not under/i);
  assert.equal(status.conditions?.find((c) => c.type === "Halted")?.reason, "FailureBudgetExceeded");
  for (const m of status.members ?? []) {
    if (m.stage === "wave" && m.name !== memberName(REFUSING)) assert.equal(m.state, "Succeeded", m.name);
    if (m.stage === "rest") assert.equal(m.state, "Pending", m.name);
  }
  // No member of the later stage was touched: same generation, same release.
  for (const [i, m] of members.entries()) {
    if (stageOf(status).get(memberName(i)) !== "rest") continue;
    const s = await m.client.getStatus();
    assert.equal(s.generation, before.get(memberName(i)));
    assert.equal(s.actual?.version, "1.1.0");
  }
  assert.equal((await rolloutStatus(cp, NAMESPACE, "to-1-1-2")).stages?.[2]?.startedAt, undefined);
  const cli = await runCli(["watch", "--fleet", "to-1-1-2", "--address", hubs[1]?.address ?? "", "--until-complete"]);
  assert.equal(cli.code, 1, "a halted rollout fails the wait");
  assert.match(cli.stderr, /rollout to-1-1-2 ended Halted/);
});

test(
  "pause holds the members under way at a task boundary and starts no one; resume releases them and the rollout completes",
  { timeout: 10 * 60_000 },
  async () => {
    await createRollout("to-1-1-3", "1.1.3", { stages: [{ name: "all" }] });
    await waitForRollout(cp, NAMESPACE, "to-1-1-3", (s) => (s.counts?.["updating"] ?? 0) >= 3, 5 * 60_000);
    await patchSpec("to-1-1-3", { paused: true });
    const paused = await waitForRollout(
      cp,
      NAMESPACE,
      "to-1-1-3",
      (s) => s.phase === "Paused" && (s.members ?? []).every((m) => m.state !== "Updating" && m.state !== "Starting"),
      60_000,
    );
    const held = (paused.members ?? []).filter((m) => m.state === "Paused").map((m) => m.name);
    assert.ok(held.length > 0, `some members were held: ${JSON.stringify(paused.members?.map((m) => [m.name, m.state]))}`);
    const doneOf = async (): Promise<Map<string, number>> =>
      new Map(await Promise.all(held.map(async (n) => [n, (await members[Number(n.slice(2))]!.client.getStatus()).done] as const)));
    const heldAt = await doneOf();
    const succeeded = paused.counts?.["succeeded"] ?? 0;
    await new Promise((resolve) => setTimeout(resolve, 5_000));
    assert.deepEqual(await doneOf(), heldAt, "held members make no progress while paused");
    for (const n of held) assert.ok((await members[Number(n.slice(2))]!.client.getStatus()).pause?.paused, `${n} is paused on its own syncworker`);
    assert.equal((await rolloutStatus(cp, NAMESPACE, "to-1-1-3")).counts?.["succeeded"], succeeded, "no one started while paused");
    await patchSpec("to-1-1-3", { paused: false });
    const status = await waitForRollout(cp, NAMESPACE, "to-1-1-3", (s) => DONE.includes(s.phase ?? ""), 8 * 60_000);
    assert.equal(status.phase, "Completed");
    assert.equal(status.counts?.["succeeded"], MEMBERS);
  },
);

async function leaderHub(): Promise<ServerProcess> {
  const lease = await cp.api.get("coordination.k8s.io/v1", "Lease", NAMESPACE, "syncworker-fleet-leader");
  const holder = (lease?.["spec"] as { holderIdentity?: string } | undefined)?.holderIdentity ?? "";
  const hub = hubs.find((h) => holder.endsWith(`_${h.child.pid}`));
  assert.ok(hub, `the Lease holder ${holder} is one of our hubs`);
  return hub;
}

test(
  "the leading hub SIGKILLed mid-rollout: the standby takes over within its lease, and no member gets a second generation",
  { timeout: 10 * 60_000 },
  async () => {
    const before = await generations();
    const sampler = new MemberSampler(members);
    await createRollout("to-1-1-4", "1.1.4");
    await waitForRollout(cp, NAMESPACE, "to-1-1-4", (s) => s.stages?.[1]?.startedAt !== undefined, 5 * 60_000);
    const leader = await leaderHub();
    const killedAt = Date.now();
    leader.child.kill("SIGKILL");
    hubs.splice(hubs.indexOf(leader), 1);
    const survivor = hubs[0]!;
    await waitForRollout(cp, NAMESPACE, "to-1-1-4", () => survivor.stderr().includes("leading the fleet"), 60_000);
    const tookOverMs = Date.now() - killedAt;
    assert.ok(tookOverMs < 25_000, `the standby led ${tookOverMs} ms after the kill (lease 15 s)`);
    hubs.push(await startHub(cp, NAMESPACE, ["--leader-elect"]));
    const status = await waitForRollout(cp, NAMESPACE, "to-1-1-4", (s) => DONE.includes(s.phase ?? ""), 8 * 60_000);
    await sampler.stop();
    assert.equal(status.phase, "Completed", unfinished(status));
    assertOneGenerationEach(sampler, status, before);
  },
);

test("a member down for a minute is counted unavailable, its stage waits, and it completes when back", { timeout: 10 * 60_000 }, async () => {
  const last = EMBEDDED - 1;
  const name = memberName(last);
  const victim = members[last]!;
  await createRollout("to-1-1-5", "1.1.5", { stages: [{ name: "first", count: EMBEDDED - 1 }, { name: "last" }] });
  const record = (s: RolloutStatusView) => s.members?.find((m) => m.name === name);
  // Killed in the middle of its own update.
  await waitForRollout(cp, NAMESPACE, "to-1-1-5", (s) => record(s)?.state === "Updating", 8 * 60_000);
  victim.child.kill("SIGKILL");
  await waitForRollout(cp, NAMESPACE, "to-1-1-5", (s) => record(s)?.state === "Unavailable" && s.counts?.["unavailable"] === 1, 60_000);
  await waitForRows(["get", "membercluster", name, "-n", NAMESPACE, "--no-headers"], (rows) => /\sUnreachable\s+False\s/.test(rows[0] ?? ""));
  await new Promise((resolve) => setTimeout(resolve, 60_000));
  const waiting = await rolloutStatus(cp, NAMESPACE, "to-1-1-5");
  assert.equal(record(waiting)?.state, "Unavailable", "within the grace period it is unavailable, not failed");
  assert.equal(waiting.stages?.find((s) => s.name === "last")?.completedAt, undefined, "its stage waits");
  assert.equal(waiting.phase, "Progressing", unfinished(waiting));
  members[last] = await startServer([
    "--state-dir",
    stateDirs[last] ?? "",
    "--listen",
    victim.address,
    "--operator-delay",
    "1s",
    "--reconcile-interval",
    "60s",
  ]);
  const status = await waitForRollout(cp, NAMESPACE, "to-1-1-5", (s) => DONE.includes(s.phase ?? ""), 5 * 60_000);
  assert.equal(status.phase, "Completed");
  assert.equal(record(status)?.state, "Succeeded");
  assert.equal((await members[last].client.getStatus()).actual?.version, "1.1.5");
});

test("cancel: nobody starts after it, and members not started keep their release", { timeout: 10 * 60_000 }, async () => {
  const before = await generations();
  await createRollout("to-1-1-6", "1.1.6", { maxConcurrent: 1, stages: [{ name: "canary", count: 1 }, { name: "rest" }] });
  await waitForRollout(cp, NAMESPACE, "to-1-1-6", (s) => s.stages?.[1]?.startedAt !== undefined, 5 * 60_000);
  await patchSpec("to-1-1-6", { cancel: true });
  const status = await waitForRollout(cp, NAMESPACE, "to-1-1-6", (s) => s.phase === "Cancelled" && (s.counts?.["updating"] ?? 0) === 0, 3 * 60_000);
  const notStarted = (status.members ?? []).filter((m) => m.generation === undefined);
  assert.ok(notStarted.length >= MEMBERS - 3, `most members never started: ${notStarted.length}`);
  for (const record of notStarted) {
    assert.equal(record.state, "Cancelled");
    const s = await members[Number(record.name.slice(2))]!.client.getStatus();
    assert.equal(s.generation, before.get(record.name), `${record.name} keeps its generation`);
    assert.equal(s.actual?.version, "1.1.5", `${record.name} keeps its release`);
  }
});
