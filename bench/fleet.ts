// `npm run bench -- fleet`: what the hub costs per member and how fast a stage reaches its members. The harness's
// kube-apiserver is the hub; member `serve` processes on embedded clusters run on this machine. For each fleet size
// (BENCH_FLEET_SIZES, default 20,50) a fresh `syncworker fleet` replica is measured in the same run: its RSS and CPU
// with no MemberCluster (the baseline), then with the members registered and watched, then during one rollout of a
// canary of 1 and the rest at once (maxConcurrent 100%): the time from the second stage's start, as the status
// records it, to each member's own first snapshot at the new generation.
import { setMaxListeners } from "node:events";
import { readFile } from "node:fs/promises";
import { startControlPlane } from "../test/harness/control-plane.js";
import { FLEET_API, MemberSampler, demoAt, installFleet, memberName, registerMembers, startHub, tempDir, waitForRollout } from "../test/harness/fleet.js";
import { startServer, type ServerProcess } from "../test/harness/server.js";

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
const quantile = (xs: readonly number[], q: number): number => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(q * xs.length))] ?? NaN;

export async function run(): Promise<void> {
  const cp = await startControlPlane();
  const members: ServerProcess[] = [];
  const hubs: ServerProcess[] = [];
  const lines: string[] = [];
  try {
    const releases = await tempDir("bench-fleet-");
    const largest = Math.max(...SIZES);
    for (let i = 0; i < largest; i += 5) {
      members.push(
        ...(await Promise.all(Array.from({ length: Math.min(5, largest - i) }, () => startServer(["--operator-delay", "1s", "--reconcile-interval", "120s"])))),
      );
      console.log(`${members.length} members running`);
    }
    for (const [round, size] of SIZES.entries()) {
      const namespace = `bench-${size}`;
      const version = `1.1.${round}`;
      const image = await demoAt(releases, version);
      await installFleet(cp, namespace);
      const hub = await startHub(cp, namespace, ["--resync", "30s"]);
      hubs.push(hub);
      const pid = hub.child.pid ?? 0;
      await sleep(10_000);
      const empty = await usage(pid);
      const fleet = members.slice(0, size);
      await registerMembers(cp, namespace, fleet);
      // Connected to every member and settled.
      await sleep(20_000);
      const watching = await usage(pid);
      await sleep(30_000);
      const idle = await usage(pid);

      const sampler = new MemberSampler(fleet);
      await cp.api.apply(
        {
          apiVersion: FLEET_API,
          kind: "ReleaseRollout",
          metadata: { name: `to-${version.replaceAll(".", "-")}`, namespace },
          spec: {
            release: { version, image },
            memberSelector: { matchLabels: { env: "test" } },
            strategy: { maxConcurrent: "100%", stages: [{ name: "canary", count: 1 }, { name: "rest" }] },
          },
        } as never,
        "bench",
      );
      const started = Date.now();
      const status = await waitForRollout(cp, namespace, `to-${version.replaceAll(".", "-")}`, (s) => s.phase === "Completed", 20 * 60_000);
      const rolloutMs = Date.now() - started;
      await sampler.stop();
      const rollout = await usage(pid);
      const stageStart = Date.parse(status.stages?.[1]?.startedAt ?? "");
      const accepted = fleet
        .map((_, i) => memberName(i))
        .filter((name) => status.members?.find((m) => m.name === name)?.stage === "rest")
        .map((name) => {
          const generation = status.members?.find((m) => m.name === name)?.generation ?? -1;
          return (sampler.firstSeen.get(name)?.get(generation) ?? NaN) - stageStart;
        });
      const result = {
        members: size,
        hub_rss_kib_empty: empty.rssKib,
        hub_rss_kib_per_member: Math.round((idle.rssKib - empty.rssKib) / size),
        hub_idle_cpu_ms_per_member_per_min: Number((((idle.cpuMs - watching.cpuMs) / size) * 2).toFixed(1)),
        hub_rollout_cpu_ms_per_member: Math.round((rollout.cpuMs - idle.cpuMs) / size),
        rollout_ms: rolloutMs,
        stage_accept_p50_ms: quantile(accepted, 0.5),
        stage_accept_max_ms: Math.max(...accepted),
      };
      const line = Object.entries(result)
        .map(([k, v]) => `${k}=${v}`)
        .join(" ");
      console.log(`fleet of ${size}: ${line}`);
      lines.push(line);
      await hub.stop();
    }
  } finally {
    for (const p of [...hubs, ...members]) await p.stop().catch(() => undefined);
    await cp.stop();
  }
  console.log(`RESULT fleet ${lines.at(-1) ?? "members=0"}${lines.length > 1 ? ` first_${lines[0]?.replace(/ /g, " first_")}` : ""}`);
}
