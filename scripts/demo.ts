// The README's first command: starts the service on the embedded cluster, updates it to the first
// demo release, then to the second, showing progress, and stops the service.
import { spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { SyncWorkerClient } from "@syncworker/client";
import { watch } from "../src/cli/watch.js";
import { SYNCWORKER } from "../test/harness/server.js";

const root = fileURLToPath(new URL("..", import.meta.url));
const releases = [
  { version: "1.0.0", image: `${root}examples/payloads/demo-1.0.0` },
  { version: "1.1.0", image: `${root}examples/payloads/demo-1.1.0` },
];

// A fresh state directory: the demo starts from an empty cluster every time it runs.
const stateDir = mkdtempSync(join(tmpdir(), "syncworker-demo-"));
const server = spawn(
  process.execPath,
  [...SYNCWORKER, "serve", "--listen", "127.0.0.1:0", "--reconcile-interval", "30s", "--operator-delay", "800ms", "--state-dir", stateDir],
  { stdio: ["ignore", "pipe", "ignore"] },
);
const [line] = (await once(createInterface({ input: server.stdout }), "line")) as [string];
const address = line.replace(/^listening on /, "");
console.log(`syncworker ${line} (embedded cluster)`);

const client = new SyncWorkerClient(address);
const started = Date.now();
for (const release of releases) {
  console.log(`\n→ Update to ${release.version} from ${release.image}`);
  const status = await client.update({ generation: releases.indexOf(release) + 1, desired: { version: release.version, image: release.image } });
  const load = status.loadPayloadStatus;
  console.log(`  ${load?.step}: ${load?.message}`);
  if (load?.failure) throw new Error(load.failure.message);
  const last = await watch(client, { untilComplete: release.version, signal: new AbortController().signal, out: process.stdout, plain: "lines" });
  console.log(`✓ ${last?.message} (${last?.done}/${last?.total} manifests, hash ${last?.versionHash}, ${((Date.now() - started) / 1000).toFixed(1)}s)`);
}
client.close();
server.kill("SIGTERM");
const [code] = (await once(server, "exit")) as [number | null];
rmSync(stateDir, { recursive: true, force: true });
console.log(`\nservice stopped (exit ${code})`);
process.exitCode = code ?? 1;
