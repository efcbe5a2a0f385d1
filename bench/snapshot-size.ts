import { spawn, type ChildProcess } from "node:child_process";
import { realPayload } from "../test/harness/tiers.js";
import { once } from "node:events";
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { isComplete, SyncWorkerClient, SyncWorkerStatus } from "@syncworker/client";
import { SYNCWORKER } from "../test/harness/server.js";
import { buildPayload } from "./payload-load.js";

const REAL_A = realPayload("real-a");
/** BENCH_MANIFESTS=1000: a payload of that many manifests built from real-a (bench payload-load's), instead of real-a. */
const MANIFESTS = process.env["BENCH_MANIFESTS"];

async function listening(child: ChildProcess): Promise<string> {
  for await (const line of createInterface({ input: child.stdout! })) if (line.startsWith("listening on ")) return line.slice("listening on ".length);
  throw new Error("serve ended before listening");
}

/**
 * The encoded size of every snapshot one watcher receives during a sync of real-a (or a BENCH_MANIFESTS
 * payload built from it) on the embedded cluster, with the per-component progress and timing ("after") and without them, as the same
 * snapshot was sent before they existed ("before"): what a watcher's stream costs per snapshot.
 */
export async function run(): Promise<void> {
  const stateDir = await mkdtemp(join(tmpdir(), "syncworker-bench-state-"));
  const payload = MANIFESTS ? join(stateDir, "payload") : REAL_A;
  if (MANIFESTS) await buildPayload(payload, Number(MANIFESTS));
  const server = spawn(
    process.execPath,
    [...SYNCWORKER, "serve", "--listen", "127.0.0.1:0", "--reconcile-interval", "60s", "--operator-delay", "300ms", "--state-dir", stateDir],
    {
      stdio: ["ignore", "pipe", "inherit"],
      env: { ...process.env, LOG_LEVEL: "warn" },
    },
  );
  const client = new SyncWorkerClient(await listening(server));
  const sizes: Array<{ before: number; after: number; components: number }> = [];
  try {
    const { revision } = await client.getStatus();
    const watching = (async () => {
      for await (const status of client.watchStatus({ sinceRevision: revision, signal: AbortSignal.timeout(300_000) })) {
        const after = SyncWorkerStatus.encode(status).finish().length;
        const before = SyncWorkerStatus.encode({ ...status, components: [], timing: undefined }).finish().length;
        sizes.push({ before, after, components: status.components.length });
        if (isComplete(status)) return;
      }
    })();
    await client.update({ generation: 1, desired: { version: "", image: payload, force: false }, overrides: [], capabilities: undefined, state: 0 });
    await watching;
  } finally {
    client.close();
    server.kill("SIGTERM");
    await once(server, "exit");
  }
  const mean = (values: number[]): number => Math.round(values.reduce((a, b) => a + b, 0) / Math.max(1, values.length));
  const before = sizes.map((s) => s.before);
  const after = sizes.map((s) => s.after);
  const components = Math.max(...sizes.map((s) => s.components));
  console.log(
    `snapshots: ${sizes.length}; components: ${components}; bytes per snapshot before ${mean(before)} (max ${Math.max(...before)}), after ${mean(after)} (max ${Math.max(...after)})`,
  );
  console.log(
    `RESULT snapshot-size payload=${MANIFESTS ? `${MANIFESTS}-manifests` : "real-a"} snapshots=${sizes.length} components=${components} before_mean_b=${mean(before)} after_mean_b=${mean(after)} before_max_b=${Math.max(...before)} after_max_b=${Math.max(...after)} kib_per_stream_before=${(before.reduce((a, b) => a + b, 0) / 1024).toFixed(1)} kib_per_stream_after=${(after.reduce((a, b) => a + b, 0) / 1024).toFixed(1)}`,
  );
}
