import { spawn } from "node:child_process";
import { realPayload } from "../test/harness/tiers.js";
import { once } from "node:events";
import { copyFile, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { loadUpdate, parseManifests, type PayloadUpdate } from "../src/payload/index.js";
import { nodePayloadFs } from "../src/retrieval/node-fs.js";
import { KNOWN_CAPABILITIES } from "../src/policy/index.js";

const SOURCE = realPayload("real-a");
const MANIFESTS = Number(process.env["BENCH_MANIFESTS"] ?? 1000);
const RUNS = Number(process.env["BENCH_RUNS"] ?? 3);

/**
 * Renames the objects of copy `k` of a file (`metadata.name` gets `-rK`) so every copy adds new
 * resources; the file name gets `-rK` after its component, keeping run level and order.
 */
function replicate(name: string, text: string, k: number): { name: string; text: string } {
  const renamed = text.replace(/^(metadata:\n(?:(?: {2,}.*)?\n)*? {2}name: )(["']?)([^"'\s]+)\2/gm, `$1$2$3-r${k}$2`);
  const file = /^0000_\d+_[A-Za-z0-9-]+?_/.test(name) ? name.replace(/^(0000_\d+_[A-Za-z0-9-]+?)_/, `$1-r${k}_`) : `r${k}-${name}`;
  return { name: file, text: renamed };
}

/**
 * Writes a payload of exactly `target` documents: real-a's metadata and `manifests/`, then copies of its
 * `release-manifests/` files (renamed objects) until the document count is reached.
 */
export async function buildPayload(dir: string, target: number): Promise<number> {
  await mkdir(join(dir, "manifests"), { recursive: true });
  await mkdir(join(dir, "release-manifests"));
  let total = 0;
  for (const name of await readdir(join(SOURCE, "manifests"))) {
    await copyFile(join(SOURCE, "manifests", name), join(dir, "manifests", name));
    total += parseManifests((await readFile(join(SOURCE, "manifests", name), "utf8")).replaceAll(/\{\{[^}]*\}\}/g, "x"), name).length;
  }
  const release = join(SOURCE, "release-manifests");
  const files: { name: string; text: string; docs: number }[] = [];
  for (const name of (await readdir(release)).sort()) {
    const text = await readFile(join(release, name), "utf8");
    if (name === "release-metadata" || name === "image-references") await writeFile(join(dir, "release-manifests", name), text);
    else files.push({ name, text, docs: parseManifests(text, name).length });
  }
  for (let k = 0; total < target; k++) {
    let added = 0;
    for (const f of files) {
      if (total + f.docs > target || f.docs === 0) continue;
      const copy = k === 0 ? f : replicate(f.name, f.text, k);
      await writeFile(join(dir, "release-manifests", copy.name), copy.text);
      total += f.docs;
      added += f.docs;
    }
    if (added === 0) break;
  }
  return total;
}

/** A full garbage collection, without needing `node --expose-gc`. */
function collectGarbage(): void {
  setFlagsFromString("--expose-gc");
  (runInNewContext("gc") as () => void)();
}

interface LoadFigures {
  readonly times: number[];
  /** CPU time of each run (all threads): a steadier figure than wall time on a busy machine. */
  readonly cpu: number[];
  readonly documents: number;
  readonly included: number;
  readonly hash: string;
  readonly maxRssMb: number;
}

/**
 * Runs in a fresh process (see {@link run}), so its peak resident memory is the loader's and not the
 * payload builder's: loads `dir` RUNS+1 times, a full GC before each so runs do not pile up garbage.
 */
async function loadRuns(dir: string): Promise<LoadFigures> {
  let documents = 0;
  let update: PayloadUpdate | undefined;
  const times: number[] = [];
  const cpu: number[] = [];
  for (let i = 0; i <= RUNS; i++) {
    update = undefined;
    collectGarbage();
    documents = 0;
    const start = performance.now();
    const startCpu = process.cpuUsage();
    update = await loadUpdate(
      dir,
      "quay.io/bench/release@sha256:0",
      { knownCapabilities: KNOWN_CAPABILITIES, architecture: "amd64", onManifest: () => documents++ },
      nodePayloadFs,
    );
    times.push(performance.now() - start);
    const used = process.cpuUsage(startCpu);
    cpu.push((used.user + used.system) / 1000);
  }
  return { times, cpu, documents, included: update?.manifests.length ?? 0, hash: update?.manifestHash ?? "", maxRssMb: process.resourceUsage().maxRSS / 1024 };
}

/** Builds a 1,000-manifest payload from real-a in a temp dir, loads it in a child process, and reports. */
export async function run(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), "syncworker-bench-payload-"));
  try {
    const documents = await buildPayload(dir, MANIFESTS);
    if (documents !== MANIFESTS) throw new Error(`built ${documents} documents, wanted ${MANIFESTS}`);
    const child = spawn(process.execPath, ["--import", "tsx", fileURLToPath(import.meta.url), LOAD_FLAG, dir], { stdio: ["ignore", "pipe", "inherit"] });
    let out = "";
    child.stdout.on("data", (chunk: Buffer) => (out += chunk.toString()));
    const [code] = (await once(child, "exit")) as [number | null];
    if (code !== 0) throw new Error(`the loading process exited with ${code}`);
    const f = JSON.parse(out) as LoadFigures;
    if (f.documents !== MANIFESTS) throw new Error(`loaded ${f.documents} documents, wanted ${MANIFESTS}`);
    // The first load includes JIT warm-up; the result is the median of the runs after it.
    const warm = f.times.slice(1).sort((a, b) => a - b);
    const ms = warm[Math.floor(warm.length / 2)] ?? f.times[0] ?? 0;
    console.log(`payload: ${MANIFESTS} documents from real-a, ${f.included} included, hash ${f.hash}`);
    const list = (xs: number[]): string => xs.map((t) => t.toFixed(0)).join(", ");
    console.log(
      `loads (ms wall): first ${f.times[0]?.toFixed(0)}, then ${list(f.times.slice(1))}; CPU (ms): ${list(f.cpu)}; rss_mb is the loading process's peak`,
    );
    console.log(
      `RESULT payload-load manifests=${MANIFESTS} ms=${ms.toFixed(0)} ms_per_manifest=${(ms / MANIFESTS).toFixed(2)} rss_mb=${f.maxRssMb.toFixed(0)}`,
    );
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

const LOAD_FLAG = "--load-payload";
if (process.argv[2] === LOAD_FLAG && process.argv[3]) process.stdout.write(JSON.stringify(await loadRuns(process.argv[3])));
