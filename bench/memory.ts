// `npm run bench -- memory`: the server's resident memory and JavaScript heap at the points where it could grow —
// after start, after syncing 1,000 and then 5,000 manifests, with 1,000 StatusWatch streams open, and across
// BENCH_UPDATES (default 200) updates between two 1,000-manifest releases (history, learned durations, payload and
// live caches, metrics label sets). A heap that keeps growing over the updates fails the bench, naming the growth.
import { spawn } from "node:child_process";
import { rm } from "node:fs/promises";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { isComplete, type SyncWorkerStatus } from "@syncworker/client";
import { tempRelease } from "../test/harness/payload-gen.js";
import { startServer, type ServerProcess } from "../test/harness/server.js";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const UPDATES = Number(process.env["BENCH_UPDATES"] ?? 200);
const STREAMS = Number(process.env["BENCH_STREAMS"] ?? 1000);
/** Components of a generated release: ~11 manifests each (test/harness/payload-gen.ts). */
const COMPONENTS_1000 = 90;
const COMPONENTS_5000 = 450;
/** Growth of the heap that survives collection, from the first tenth of the updates to the last, that counts as a leak. */
const LEAK_FRACTION = 0.2;
const LEAK_FLOOR_MB = 16;

const settle = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

interface Memory {
  readonly rssMb: number;
  readonly heapMb: number;
}

/** RSS and heap now, in MB, from the server's own /metrics. */
async function sample(server: ServerProcess): Promise<Memory> {
  const text = await (await fetch(`http://${server.adminAddress}/metrics`)).text();
  const mbOf = (name: string): number => Number(new RegExp(`^${name} (\\S+)$`, "m").exec(text)?.[1] ?? NaN) / 2 ** 20;
  return { rssMb: mbOf("process_resident_memory_bytes"), heapMb: mbOf("nodejs_heap_size_used_bytes") };
}

/** RSS and heap; the heap is the least of a few samples, so a pending collection does not count. */
async function memory(server: ServerProcess): Promise<Memory> {
  let heapMb = Infinity;
  let rssMb = 0;
  for (let i = 0; i < 5; i++) {
    const now = await sample(server);
    heapMb = Math.min(heapMb, now.heapMb);
    rssMb = now.rssMb;
    await settle(400);
  }
  return { rssMb, heapMb };
}

/** Updates to `image` and waits, on one watch, until that release is complete (waiting on operators reads as a failure meanwhile, as upstream). */
async function updateTo(server: ServerProcess, image: string, generation: number): Promise<SyncWorkerStatus> {
  await server.client.update({ generation, desired: { version: "", image, force: false }, overrides: [], capabilities: undefined, state: 0 });
  for await (const status of server.client.watchStatus({ signal: AbortSignal.timeout(600_000) })) {
    if (isComplete(status) && status.actual?.image === image) return status;
  }
  throw new Error(`the status watch ended before ${image} completed`);
}

const mb = (x: number): string => x.toFixed(1);

export async function run(): Promise<void> {
  const releases = {
    a1000: await tempRelease({ version: "1.0.0", variant: "a", components: COMPONENTS_1000 }),
    b1000: await tempRelease({ version: "1.1.0", variant: "b", components: COMPONENTS_1000 }),
    a5000: await tempRelease({ version: "2.0.0", variant: "a", components: COMPONENTS_5000 }),
  };
  const server = await startServer(["--reconcile-interval", "600s", "--operator-delay", "10ms", "--max-watches-per-client", String(STREAMS + 10)], {
    LOG_LEVEL: "warn",
  });
  const points: Array<[string, Memory]> = [];
  const mark = async (name: string): Promise<Memory> => {
    const m = await memory(server);
    points.push([name, m]);
    console.log(`${name}: RSS ${mb(m.rssMb)} MB, heap ${mb(m.heapMb)} MB`);
    return m;
  };
  let generation = 1;
  try {
    await settle(1000);
    await mark("start");
    const first = await updateTo(server, releases.a1000, generation++);
    await mark(`synced_${first.total}`);
    const big = await updateTo(server, releases.a5000, generation++);
    await mark(`synced_${big.total}`);

    const watchers = spawn(process.execPath, ["--import", "tsx", `${ROOT}bench/watch-clients.ts`, server.address, String(STREAMS)], {
      stdio: ["pipe", "pipe", "inherit"],
    });
    const lines = createInterface({ input: watchers.stdout })[Symbol.asyncIterator]();
    if ((await lines.next()).value !== "connected") throw new Error("watchers did not connect");
    await settle(2000);
    const withWatchers = await mark(`watchers_${STREAMS}`);
    watchers.stdin.write("stop\n");
    await lines.next();
    watchers.kill();

    // Updates back and forth between two releases of the same size. The heap is read after every update; without a
    // forced collection one reading says little, but the least of a window is what survived the collections in it:
    // the first tenth's least is the baseline, the last tenth's must not be far above it.
    const window = Math.max(1, Math.round(UPDATES / 10));
    const heaps: number[] = [];
    const rss: number[] = [];
    const started = performance.now();
    for (let i = 1; i <= UPDATES; i++) {
      await updateTo(server, i % 2 === 1 ? releases.b1000 : releases.a1000, generation++);
      const now = await sample(server);
      heaps.push(now.heapMb);
      rss.push(now.rssMb);
    }
    const perUpdateS = (performance.now() - started) / 1000 / UPDATES;
    const end = await mark(`updates_${UPDATES}`);
    const firstMin = Math.min(...heaps.slice(0, window));
    const lastMin = Math.min(...heaps.slice(-window));
    const growth = lastMin - firstMin;
    console.log(
      `${UPDATES} updates, ${perUpdateS.toFixed(2)} s each; least heap of the first ${window}: ${mb(firstMin)} MB, of the last ${window}: ${mb(lastMin)} MB`,
    );
    console.log(
      `RSS after each tenth of the updates: ${rss
        .filter((_, i) => (i + 1) % window === 0)
        .map(mb)
        .join(", ")} MB`,
    );
    console.log(
      `RESULT memory ${points.map(([name, m]) => `rss_mb_${name}=${mb(m.rssMb)} heap_mb_${name}=${mb(m.heapMb)}`).join(" ")} ` +
        `kib_per_stream=${(((withWatchers.rssMb - points[2]![1].rssMb) * 1024) / STREAMS).toFixed(1)} heap_growth_mb=${mb(growth)} s_per_update=${perUpdateS.toFixed(2)} rss_mb_end=${mb(end.rssMb)}`,
    );
    if (growth > Math.max(LEAK_FLOOR_MB, firstMin * LEAK_FRACTION)) {
      throw new Error(`the heap that survives collection grew ${mb(growth)} MB over ${UPDATES} updates: something keeps what each update leaves behind`);
    }
  } finally {
    await server.stop();
    await Promise.all(Object.values(releases).map((dir) => rm(dir, { recursive: true, force: true })));
  }
}
