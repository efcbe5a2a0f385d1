import { spawn } from "node:child_process";
import { realPayload } from "../test/harness/tiers.js";
import { once } from "node:events";
import { cp, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { isComplete, PayloadState, SyncWorkerClient } from "@syncworker/client";
import { startJaeger } from "../test/harness/jaeger.js";
import { SYNCWORKER } from "../test/harness/server.js";

const REAL_A = realPayload("real-a");
const MANIFESTS = Number(process.env["BENCH_MANIFESTS"] ?? 1000);
const ROUNDS = Number(process.env["BENCH_ROUNDS"] ?? 3);

/**
 * real-a (267 manifests, ClusterOperators included) topped up with ConfigMaps in ten components of one run
 * level to `MANIFESTS`, so the sync exercises parallel nodes as a real payload does.
 */
async function payload(dir: string): Promise<void> {
  await cp(REAL_A, dir, { recursive: true });
  const extra = MANIFESTS - 267;
  for (let i = 0; i < extra; i++) {
    const component = `bench-${i % 10}`;
    const doc = [
      "apiVersion: v1",
      "kind: ConfigMap",
      "metadata:",
      `  name: bench-${i}`,
      "  namespace: openshift-config",
      "  annotations:",
      '    include.release.openshift.io/self-managed-high-availability: "true"',
      "data:",
      `  index: "${i}"`,
      "",
    ].join("\n");
    await writeFile(join(dir, "release-manifests", `0000_60_${component}_${String(i).padStart(4, "0")}_configmap.yaml`), doc);
  }
}

/** CPU seconds (user + system) a process has used, from /proc (clock ticks of 1/100 s on Linux). */
async function cpuSeconds(pid: number): Promise<number> {
  const fields = (await readFile(`/proc/${pid}/stat`, "utf8")).split(") ")[1]?.split(" ") ?? [];
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/**
 * Seconds from Update to a complete sync in a fresh `serve` process with `env`, and the CPU the server
 * spent: the sync waits on simulated operators, so wall time alone could hide a CPU cost.
 */
async function syncSeconds(image: string, env: NodeJS.ProcessEnv): Promise<{ seconds: number; cpu: number; total: number }> {
  const stateDir = await mkdtemp(join(tmpdir(), "syncworker-bench-state-"));
  const args = ["serve", "--listen", "127.0.0.1:0", "--reconcile-interval", "120s", "--operator-delay", "10ms", "--state-dir", stateDir];
  const server = spawn(process.execPath, [...SYNCWORKER, ...args], {
    stdio: ["ignore", "pipe", "inherit"],
    env: { ...process.env, LOG_LEVEL: "warn", ...env },
  });
  let address = "";
  for await (const line of createInterface({ input: server.stdout })) {
    if (line.startsWith("listening on ")) {
      address = line.slice("listening on ".length);
      break;
    }
  }
  const client = new SyncWorkerClient(address);
  const cpuBefore = await cpuSeconds(server.pid!);
  const started = process.hrtime.bigint();
  await client.update({
    generation: 1,
    desired: { version: "", image, force: false },
    overrides: [],
    capabilities: undefined,
    state: PayloadState.PAYLOAD_STATE_UPDATING,
  });
  let total = 0;
  for (;;) {
    const status = await client.getStatus();
    if (isComplete(status)) {
      total = status.total;
      break;
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const cpu = (await cpuSeconds(server.pid!)) - cpuBefore;
  client.close();
  server.kill("SIGTERM");
  await once(server, "exit");
  return { seconds, cpu, total };
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;

/**
 * Tracing overhead: the same sync (state Updating, so ordered by run level like an upgrade) with tracing off,
 * then exporting every span over OTLP/gRPC to a local Jaeger. Rounds alternate off/on so machine load
 * affects both alike; the medians are compared.
 */
export async function run(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), "syncworker-bench-tracing-"));
  const jaeger = await startJaeger();
  try {
    await payload(dir);
    const on: NodeJS.ProcessEnv = {
      OTEL_SERVICE_NAME: "syncworker-bench",
      OTEL_EXPORTER_OTLP_ENDPOINT: `http://${jaeger.otlpGrpc}`,
      OTEL_EXPORTER_OTLP_PROTOCOL: "grpc",
    };
    const off: NodeJS.ProcessEnv = { OTEL_TRACES_EXPORTER: "none" };
    await syncSeconds(dir, off); // warm the file cache and tsx's compile cache
    const times = { off: [] as number[], on: [] as number[] };
    const cpu = { off: [] as number[], on: [] as number[] };
    for (let round = 0; round < ROUNDS; round++) {
      for (const mode of ["off", "on"] as const) {
        const result = await syncSeconds(dir, mode === "on" ? on : off);
        console.log(`round ${round + 1} tracing ${mode}: ${result.total} manifests in ${result.seconds.toFixed(3)} s, server CPU ${result.cpu.toFixed(2)} s`);
        times[mode].push(result.seconds);
        cpu[mode].push(result.cpu);
      }
    }
    const spans = (await jaeger.traces("syncworker-bench", 100)).reduce((n, t) => n + t.spans.length, 0);
    console.log(`spans stored in Jaeger for the traced runs (first 100 traces): ${spans}`);
    console.log(`server CPU per sync (median): off ${median(cpu.off).toFixed(2)} s, on ${median(cpu.on).toFixed(2)} s`);
    const a = median(times.off);
    const b = median(times.on);
    console.log(`RESULT tracing off_s=${a.toFixed(3)} on_s=${b.toFixed(3)} overhead=${(b / a).toFixed(3)}`);
  } finally {
    await jaeger.stop();
    await rm(dir, { recursive: true, force: true });
  }
}
