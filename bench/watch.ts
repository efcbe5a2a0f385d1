import { execFile, spawn } from "node:child_process";
import { realPayload } from "../test/harness/tiers.js";
import { mkdtemp, readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { isComplete, SyncWorkerClient } from "@syncworker/client";
import { startServer } from "../test/harness/server.js";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const PAYLOAD = realPayload("real-a");
const STREAMS = Number(process.env["BENCH_STREAMS"] ?? 1000);
/** Who watches: "go" (bench/go-watchers, whose decoding is not the bottleneck) or "node" (grpc-js, as watch-clients.ts). */
const WATCHER = process.env["BENCH_WATCHER"] ?? "go";

/** The watcher process's command line for `address`. */
async function watcherCommand(address: string, work: string): Promise<[string, string[]]> {
  if (WATCHER === "node") return [process.execPath, ["--import", "tsx", `${ROOT}bench/watch-clients.ts`, address, String(STREAMS)]];
  if (WATCHER !== "go") throw new Error(`BENCH_WATCHER must be go or node, got ${WATCHER}`);
  const binary = join(work, "go-watchers");
  await promisify(execFile)("go", ["build", "-o", binary, "."], { cwd: `${ROOT}bench/go-watchers` });
  return [binary, [address, String(STREAMS)]];
}

/** User plus system CPU time of a process so far, in milliseconds (/proc/PID/stat, in clock ticks of 10 ms). */
async function cpuMs(pid: number): Promise<number> {
  const fields = (await readFile(`/proc/${pid}/stat`, "utf8")).replace(/^.*\) /s, "").split(" ");
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

interface ServerSample {
  readonly rssKiB: number;
  readonly cpuMs: number;
  /** The delivery histogram's cumulative buckets: writes completed within `le` seconds of publication, per stream. */
  readonly delivery: ReadonlyArray<{ le: number; n: number }>;
}

/** A sample of the server's own /metrics: resident memory, CPU time so far, and the delivery histogram. */
async function serverSample(adminAddress: string): Promise<ServerSample> {
  const text = await (await fetch(`http://${adminAddress}/metrics`)).text();
  const value = (name: string): number => Number(new RegExp(`^${name} (\\S+)$`, "m").exec(text)?.[1] ?? NaN);
  return {
    rssKiB: value("process_resident_memory_bytes") / 1024,
    cpuMs: value("process_cpu_seconds_total") * 1000,
    delivery: [...text.matchAll(/^syncworker_status_watch_delivery_seconds_bucket\{le="([^"]+)"\} (\d+)$/gm)].map(([, le, n]) => ({
      le: Number(le),
      n: Number(n),
    })),
  };
}

/** The upper bound, in ms, of the delivery bucket holding quantile `q` of the writes between two samples. */
function deliveryQuantileMs(before: ServerSample, after: ServerSample, q: number): number {
  const counts = after.delivery.map((b, i) => ({ le: b.le, n: b.n - (before.delivery[i]?.n ?? 0) }));
  const total = counts.at(-1)?.n ?? 0;
  return (counts.find((b) => b.n >= q * total)?.le ?? NaN) * 1000;
}

const settle = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/**
 * One server; STREAMS concurrent StatusWatch streams from a separate process during a sync of
 * real-a on the embedded cluster. Reports the publish-to-arrival delay of every snapshot at every
 * watcher, the server's own publish-to-written delay (so the tail splits into the server's part and the
 * rest: the watchers' process, the kernel), the CPU each side spent during the sync, and the server's
 * resident memory per open stream.
 */
export async function run(): Promise<void> {
  const work = await mkdtemp(join(tmpdir(), "syncworker-bench-watch-"));
  // Every stream comes from this host: allow them all (the default is 100 per client), and the bench's own watch.
  const server = await startServer(["--reconcile-interval", "60s", "--max-watches-per-client", String(STREAMS + 1)], { LOG_LEVEL: "warn" });
  await settle(1000);
  const baseline = (await serverSample(server.adminAddress)).rssKiB;

  const [command, commandArgs] = await watcherCommand(server.address, work);
  const watchers = spawn(command, commandArgs, { stdio: ["pipe", "pipe", "inherit"] });
  const output = createInterface({ input: watchers.stdout });
  const lines = output[Symbol.asyncIterator]();
  if ((await lines.next()).value !== "connected") throw new Error("watchers did not connect");
  await settle(1000);
  const withStreams = (await serverSample(server.adminAddress)).rssKiB;

  const client = new SyncWorkerClient(server.address);
  const before = await serverSample(server.adminAddress);
  const watchersCpuBefore = await cpuMs(watchers.pid!);
  const started = Date.now();
  await client.update({ generation: 1, desired: { version: "", image: PAYLOAD, force: false }, overrides: [], capabilities: undefined, state: 0 });
  // Watched, not polled: a read flushes the server's progress throttle, so polling would add snapshots of its own.
  for await (const status of client.watchStatus({ signal: AbortSignal.timeout(300_000) })) if (isComplete(status)) break;
  const syncMs = Date.now() - started;
  await settle(500);
  const after = await serverSample(server.adminAddress);
  const serverCpuMs = Math.round(after.cpuMs - before.cpuMs);
  const watchersCpuMs = (await cpuMs(watchers.pid!)) - watchersCpuBefore;
  const serverP50Ms = deliveryQuantileMs(before, after, 0.5);
  const serverP99Ms = deliveryQuantileMs(before, after, 0.99);
  watchers.stdin.write("stop\n");
  const summary = JSON.parse((await lines.next()).value as string) as { deliveries: number; p50: number; p99: number; max: number };
  client.close();
  await server.stop();

  const kibPerStream = (withStreams - baseline) / STREAMS;
  console.log(`sync of real-a: ${syncMs} ms; snapshots delivered: ${summary.deliveries}; delay p50 ${summary.p50} ms, max ${summary.max} ms`);
  console.log(`server RSS: ${baseline} KiB idle, ${withStreams} KiB with ${STREAMS} streams`);
  console.log(
    `CPU during the sync and fan-out: server ${serverCpuMs} ms, watchers ${watchersCpuMs} ms; written by the server (bucket bounds) p50 ≤ ${serverP50Ms} ms, p99 ≤ ${serverP99Ms} ms`,
  );
  console.log(
    `RESULT watch watcher=${WATCHER} streams=${STREAMS} p99_ms=${summary.p99} server_p99_le_ms=${serverP99Ms} server_cpu_ms=${serverCpuMs} watchers_cpu_ms=${watchersCpuMs} kib_per_stream=${kibPerStream.toFixed(1)} deliveries=${summary.deliveries} sync_ms=${syncMs}`,
  );
}
