import { execFile, spawn, type ChildProcess } from "node:child_process";
import { realPayload } from "../test/harness/tiers.js";
import { once } from "node:events";
import { mkdtemp, readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { isComplete, SyncWorkerClient } from "@syncworker/client";
import { SYNCWORKER } from "../test/harness/server.js";

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

async function rssKiB(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, "utf8");
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? NaN);
}

async function firstLine(child: ChildProcess, pattern: RegExp): Promise<string> {
  const lines = createInterface({ input: child.stdout! });
  for await (const line of lines) if (pattern.test(line)) return line;
  throw new Error(`process ended before printing ${pattern}`);
}

const settle = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/**
 * One server; STREAMS concurrent StatusWatch streams from a separate process during a sync of
 * real-a on the embedded cluster. Reports the publish-to-arrival delay of every snapshot at every
 * watcher, and the server's resident memory per open stream.
 */
export async function run(): Promise<void> {
  const stateDir = await mkdtemp(join(tmpdir(), "syncworker-bench-state-"));
  // Every stream comes from this host: allow them all (the default is 100 per client).
  const args = [
    "serve",
    "--listen",
    "127.0.0.1:0",
    "--reconcile-interval",
    "60s",
    "--operator-delay",
    "100ms",
    "--state-dir",
    stateDir,
    "--max-watches-per-client",
    String(STREAMS + 1),
  ]; // the watchers and the bench's own watch for completion
  const server = spawn(process.execPath, [...SYNCWORKER, ...args], {
    stdio: ["ignore", "pipe", "inherit"],
    env: { ...process.env, LOG_LEVEL: "warn" },
  });
  const address = (await firstLine(server, /^listening on /)).replace(/^listening on /, "");
  await settle(1000);
  const baseline = await rssKiB(server.pid!);

  const [command, commandArgs] = await watcherCommand(address, stateDir);
  const watchers = spawn(command, commandArgs, { stdio: ["pipe", "pipe", "inherit"] });
  const output = createInterface({ input: watchers.stdout });
  const lines = output[Symbol.asyncIterator]();
  if ((await lines.next()).value !== "connected") throw new Error("watchers did not connect");
  await settle(1000);
  const withStreams = await rssKiB(server.pid!);

  const client = new SyncWorkerClient(address);
  const started = Date.now();
  await client.update({ generation: 1, desired: { version: "", image: PAYLOAD, force: false }, overrides: [], capabilities: undefined, state: 0 });
  // Watched, not polled: a read flushes the server's progress throttle, so polling would add snapshots of its own.
  for await (const status of client.watchStatus({ signal: AbortSignal.timeout(300_000) })) if (isComplete(status)) break;
  const syncMs = Date.now() - started;
  await settle(500);
  watchers.stdin.write("stop\n");
  const summary = JSON.parse((await lines.next()).value as string) as { deliveries: number; p50: number; p99: number; max: number };
  client.close();
  server.kill("SIGTERM");
  await once(server, "exit");

  const kibPerStream = (withStreams - baseline) / STREAMS;
  console.log(`sync of real-a: ${syncMs} ms; snapshots delivered: ${summary.deliveries}; delay p50 ${summary.p50} ms, max ${summary.max} ms`);
  console.log(`server RSS: ${baseline} KiB idle, ${withStreams} KiB with ${STREAMS} streams`);
  console.log(
    `RESULT watch watcher=${WATCHER} streams=${STREAMS} p99_ms=${summary.p99} kib_per_stream=${kibPerStream.toFixed(1)} deliveries=${summary.deliveries} sync_ms=${syncMs}`,
  );
}
