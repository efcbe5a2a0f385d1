// `npm run bench -- pull`: a 1,000-manifest payload image pushed to a real registry (Debian's docker-registry on
// loopback), pulled by the registry retriever cold (empty cache) and warm (the same digest again, served from the
// cache after its self-check), and copied by `skopeo copy` to a local directory in the same run for comparison.
// Each figure is the median of BENCH_RUNS runs, after one uncounted warm-up run.
import { execFile } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { goArch } from "../src/payload/index.js";
import { RegistryClient, RegistryRetriever } from "../src/retrieval/index.js";
import { payloadLayer, pushPayload } from "../src/retrieval/registry/index.js";
import { writePayload, type GeneratedManifest } from "../test/harness/payload-gen.js";
import { startRegistry } from "../test/harness/registry.js";

const MANIFESTS = Number(process.env["BENCH_MANIFESTS"] ?? 1000);
const RUNS = Number(process.env["BENCH_RUNS"] ?? 5);

/** Manifests with some bulk (2 KiB of seeded pseudo-random config each), so the layer is not all repetition. */
function manifests(): GeneratedManifest[] {
  let seed = 42;
  const next = (): number => (seed = (seed * 1103515245 + 12345) % 2 ** 31);
  return Array.from({ length: MANIFESTS }, (_, i) => ({
    file: `0000_50_bench-${String(i % 20).padStart(2, "0")}_${String(i).padStart(4, "0")}_config.yaml`,
    obj: {
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: `bench-${i}`, namespace: "bench", annotations: { "include.release.openshift.io/self-managed-high-availability": "true" } },
      data: { "config.yaml": Array.from({ length: 256 }, () => next().toString(16).padStart(8, "0")).join("") },
    },
  }));
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const seconds = (start: bigint): number => Number(process.hrtime.bigint() - start) / 1e9;

export async function run(): Promise<void> {
  const work = await mkdtemp(join(tmpdir(), "syncworker-bench-pull-"));
  const payload = join(work, "payload");
  await writePayload(payload, "1.0.0", manifests());
  const registry = await startRegistry();
  const arch = goArch(process.arch);
  const signal = new AbortController().signal;
  const options = { authFile: "", authFileOptional: true, insecureHosts: [registry.host] };
  try {
    const pusher = new RegistryClient(options);
    const image = await pushPayload(pusher, payload, `${registry.host}/bench/release:1.0.0`, arch, signal);
    await pusher.close();
    const mib = (await payloadLayer(payload)).length / 2 ** 20;
    const cold: number[] = [];
    const warm: number[] = [];
    const skopeo: number[] = [];
    // One uncounted run first: under tsx the first pull in a process also compiles the modules it loads, which the
    // built service does not (skopeo is a compiled binary too).
    for (let i = -1; i < RUNS; i++) {
      const cacheDir = join(work, `cache-${i}`);
      const client = new RegistryClient(options);
      const retriever = new RegistryRetriever({ client, cacheDir, architecture: arch });
      let start = process.hrtime.bigint();
      await retriever.retrieve({ image, force: false }, signal);
      cold.push(seconds(start));
      start = process.hrtime.bigint();
      await retriever.retrieve({ image, force: false }, signal);
      warm.push(seconds(start));
      await client.close();
      await rm(cacheDir, { recursive: true });

      const dest = join(work, `skopeo-${i}`);
      start = process.hrtime.bigint();
      await promisify(execFile)("skopeo", ["copy", "--quiet", "--src-tls-verify=false", `docker://${image}`, `dir:${dest}`]);
      skopeo.push(seconds(start));
      await rm(dest, { recursive: true });
      if (i < 0) {
        [cold, warm, skopeo].forEach((xs) => xs.pop());
        continue;
      }
      console.log(`run ${i + 1}: cold ${cold.at(-1)!.toFixed(3)}s warm ${warm.at(-1)!.toFixed(3)}s skopeo ${skopeo.at(-1)!.toFixed(3)}s`);
    }
    const [c, w, s] = [median(cold), median(warm), median(skopeo)];
    console.log(`cold/skopeo ${(c / s).toFixed(2)}x (goal <= 1.5x), warm ${w.toFixed(3)}s (goal <= 0.2s)`);
    console.log(`RESULT pull manifests=${MANIFESTS} cold_s=${c.toFixed(3)} warm_s=${w.toFixed(3)} skopeo_s=${s.toFixed(3)} mib=${mib.toFixed(2)}`);
  } finally {
    await registry.stop();
    await rm(work, { recursive: true, force: true });
  }
}
