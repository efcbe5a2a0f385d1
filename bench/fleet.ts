// `npm run bench -- fleet`: what the hub costs per member and how fast a stage reaches its members. The harness's
// kube-apiserver is the hub; member `serve` processes on embedded clusters run on this machine. One `syncworker fleet`
// replica is measured in the same run with no MemberCluster (the baseline), then at each fleet size (BENCH_FLEET_SIZES,
// default 20,50): its heap and RSS with the members registered and watched (the growth from the size before, per
// member added), its CPU while idle, and during one rollout of a canary of 1 and the rest at once (maxConcurrent
// 100%) its CPU and the time from the second stage's start, as the status records it, to each member's own first
// snapshot at the new generation.
import { once, setMaxListeners } from "node:events";
import { readFile } from "node:fs/promises";
import WebSocket from "ws";
import { startControlPlane } from "../test/harness/control-plane.js";
import { FLEET_API, MemberSampler, demoAt, installFleet, registerMembers, startHub, tempDir, waitForRollout } from "../test/harness/fleet.js";
import { startServer, type ServerProcess } from "../test/harness/server.js";
import { quantile } from "./stats.js";

// Every sampled member listens on the sampler's one signal; 50 of them are expected.
setMaxListeners(200);
const SIZES = (process.env["BENCH_FLEET_SIZES"] ?? "20,50").split(",").map(Number);
const TICKS_PER_SECOND = 100;

async function usage(pid: number): Promise<{ cpuMs: number; rssKib: number }> {
  const stat = (await readFile(`/proc/${pid}/stat`, "utf8")).split(") ")[1]?.split(" ") ?? [];
  // Fields 14 and 15 (utime, stime), counted from after the command's closing parenthesis (field 3 is index 0).
  const ticks = Number(stat[11]) + Number(stat[12]);
  const rss = /VmRSS:\s+(\d+) kB/.exec(await readFile(`/proc/${pid}/status`, "utf8"))?.[1];
  return { cpuMs: (ticks * 1000) / TICKS_PER_SECOND, rssKib: Number(rss) };
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The hub's V8 heap in use right after a full garbage collection, asked over the inspector protocol (the hub runs
 * with --inspect for the bench): without the collection, what a member adds is lost in the garbage of start-up.
 */
async function heapKib(hub: ServerProcess): Promise<number> {
  const url = /Debugger listening on (ws:\/\/\S+)/.exec(hub.stderr())?.[1];
  if (!url) throw new Error(`the hub did not announce its inspector: ${hub.stderr().slice(0, 2_000)}`);
  const socket = new WebSocket(url);
  await once(socket, "open");
  let next = 0;
  const call = (method: string): Promise<Record<string, unknown>> =>
    new Promise((resolve, reject) => {
      const id = ++next;
      // The inspector sends each message as one text frame.
      const answer = (data: Buffer): void => {
        const message = JSON.parse(data.toString("utf8")) as { id?: number; result?: Record<string, unknown>; error?: { message: string } };
        if (message.id !== id) return;
        socket.off("message", answer);
        if (message.error) reject(new Error(`${method}: ${message.error.message}`));
        else resolve(message.result ?? {});
      };
      socket.on("message", answer);
      socket.send(JSON.stringify({ id, method }));
    });
  try {
    await call("HeapProfiler.collectGarbage");
    return Math.round(Number((await call("Runtime.getHeapUsage"))["usedSize"]) / 1024);
  } finally {
    socket.close();
  }
}

export async function run(): Promise<void> {
  const cp = await startControlPlane();
  const members: ServerProcess[] = [];
  let hub: ServerProcess | undefined;
  const results: Record<string, number>[] = [];
  try {
    const releases = await tempDir("bench-fleet-");
    const largest = Math.max(...SIZES);
    for (let i = 0; i < largest; i += 5) {
      members.push(
        ...(await Promise.all(Array.from({ length: Math.min(5, largest - i) }, () => startServer(["--operator-delay", "1s", "--reconcile-interval", "120s"])))),
      );
      console.log(`${members.length} members running`);
    }
    const namespace = "bench";
    await installFleet(cp, namespace);
    // One hub for every size, so the growth of its memory from one size to the next is the members' alone.
    hub = await startHub(cp, namespace, ["--resync", "30s"], { NODE_OPTIONS: "--inspect=127.0.0.1:0" });
    const pid = hub.child.pid ?? 0;
    await sleep(15_000);
    let before = { size: 0, heapKib: await heapKib(hub), rssKib: (await usage(pid)).rssKib };
    console.log(`hub with no members: heap ${before.heapKib} KiB after a collection, rss ${before.rssKib} KiB`);
    for (const [round, size] of SIZES.entries()) {
      const version = `1.1.${round}`;
      const name = `to-${version.replaceAll(".", "-")}`;
      const image = await demoAt(releases, version);
      const fleet = members.slice(0, size);
      await registerMembers(cp, namespace, fleet);
      // Connected to every member and settled.
      await sleep(20_000);
      const idleFrom = await usage(pid);
      await sleep(30_000);
      const idle = await usage(pid);
      const held = { heapKib: await heapKib(hub), rssKib: (await usage(pid)).rssKib };

      const sampler = new MemberSampler(fleet);
      await cp.api.apply(
        {
          apiVersion: FLEET_API,
          kind: "ReleaseRollout",
          metadata: { name, namespace },
          spec: {
            release: { version, image },
            memberSelector: { matchLabels: { env: "test" } },
            strategy: { maxConcurrent: "100%", stages: [{ name: "canary", count: 1 }, { name: "rest" }] },
          },
        } as never,
        "bench",
      );
      const started = Date.now();
      const status = await waitForRollout(cp, namespace, name, (s) => s.phase === "Completed", 20 * 60_000);
      const rolloutMs = Date.now() - started;
      await sampler.stop();
      const rollout = await usage(pid);
      const stageStart = Date.parse(status.stages?.[1]?.startedAt ?? "");
      const accepted = (status.members ?? [])
        .filter((m) => m.stage === "rest")
        .map((m) => (sampler.firstSeen.get(m.name)?.get(m.generation ?? -1) ?? NaN) - stageStart);
      const added = size - before.size;
      const result = {
        members: size,
        hub_rss_kib: held.rssKib,
        hub_heap_kib: held.heapKib,
        hub_heap_kib_per_added_member: Math.round((held.heapKib - before.heapKib) / added),
        hub_rss_kib_per_added_member: Math.round((held.rssKib - before.rssKib) / added),
        hub_idle_cpu_ms_per_member_per_min: Number((((idle.cpuMs - idleFrom.cpuMs) / size) * 2).toFixed(1)),
        hub_rollout_cpu_ms_per_member: Math.round((rollout.cpuMs - idle.cpuMs) / size),
        rollout_ms: rolloutMs,
        stage_accept_p50_ms: quantile(accepted, 0.5),
        stage_accept_max_ms: Math.max(...accepted),
      };
      console.log(
        `fleet of ${size}: ${Object.entries(result)
          .map(([k, v]) => `${k}=${v}`)
          .join(" ")}`,
      );
      results.push(result);
      before = { size, ...held };
    }
  } finally {
    for (const p of [hub, ...members]) await p?.stop().catch(() => undefined);
    await cp.stop();
  }
  const last = results.at(-1) ?? { members: 0 };
  const first = results.length > 1 ? results[0] : undefined;
  const line = [...Object.entries(last).map(([k, v]) => `${k}=${v}`), ...(first ? Object.entries(first).map(([k, v]) => `first_${k}=${v}`) : [])].join(" ");
  console.log(`RESULT fleet ${line}`);
}
