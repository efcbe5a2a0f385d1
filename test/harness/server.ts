import { spawn, type ChildProcess, type ChildProcessByStdio } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import type { Readable } from "node:stream";
import { fileURLToPath } from "node:url";
import { credentials } from "@grpc/grpc-js";
import { SyncWorkerClient, type SyncWorkerStatus } from "@syncworker/client";
import { SyncWorkerClient as RawSyncWorkerClient } from "@syncworker/client/gen/syncworker/v1/syncworker";

export const REPO_ROOT = fileURLToPath(new URL("../..", import.meta.url));
/** Node's own flags for every syncworker started here, e.g. BENCH_SERVER_NODE_ARGS="--cpu-prof --cpu-prof-dir=/tmp/prof" to profile it. */
const NODE_ARGS = (process.env["BENCH_SERVER_NODE_ARGS"] ?? "").split(" ").filter(Boolean);
/**
 * Node arguments that run the `syncworker` program from the sources through tsx, so every test sees the code as
 * it is rather than the last build (test/integration/package.test.ts covers the build and bin/syncworker.js).
 * BENCH_SERVER_BUILD=1 runs the build instead (`npm run build` first), for a benchmark that measures what users run.
 */
export const SYNCWORKER: readonly string[] = process.env["BENCH_SERVER_BUILD"]
  ? [...NODE_ARGS, join(REPO_ROOT, "bin/syncworker.js")]
  : [...NODE_ARGS, "--import", import.meta.resolve("tsx"), join(REPO_ROOT, "src/cli/bin.ts")];

/** How long a server may take to print its addresses (a cold tsx start on a loaded 2-core machine takes seconds). */
const START_TIMEOUT_MS = 120_000;
/** How long a server may take to stop after SIGTERM: Kubernetes' default termination grace period. */
const STOP_GRACE_MS = 30_000;

export interface ServerProcess {
  readonly address: string;
  readonly adminAddress: string;
  /** `HOST:PORT` of `/metrics` when started with `--metrics-listen`, else "". */
  readonly metricsAddress: string;
  readonly client: SyncWorkerClient;
  readonly child: ChildProcess;
  /** Everything the server wrote to stderr (its JSON log), for failure messages. */
  readonly stderr: () => string;
  /** Everything the server wrote to stdout (its address lines; spans with the console exporter). */
  readonly stdout: () => string;
  /** SIGTERM, then the exit code. */
  stop(): Promise<number | null>;
}

/**
 * Starts a real `syncworker serve` process on free ports and waits for its "listening on" line.
 * The process is killed when the test process exits, even if a test fails.
 */
export async function startServer(extraArgs: readonly string[] = [], env: NodeJS.ProcessEnv = {}): Promise<ServerProcess> {
  // Each embedded server gets a fresh state directory unless the test brings one (to restart on it).
  const stateArgs =
    extraArgs.includes("--kubeconfig") || extraArgs.includes("--state-dir") ? [] : ["--state-dir", mkdtempSync(join(tmpdir(), "syncworker-state-"))];
  const args = [
    ...SYNCWORKER,
    "serve",
    "--listen",
    "127.0.0.1:0",
    "--admin-listen",
    "127.0.0.1:0",
    "--reconcile-interval",
    "5s",
    "--operator-delay",
    "100ms",
    ...stateArgs,
    ...extraArgs,
  ];
  const child = spawn(process.execPath, args, { stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, LOG_LEVEL: "info", ...env } });
  return superviseServer(child, args.includes("--metrics-listen"));
}

/**
 * A started `syncworker serve` (spawned with piped stdout and stderr) once it printed its addresses, or a failure
 * naming why it did not. The process is killed when the test process exits, even if a test fails.
 */
export async function superviseServer(child: ChildProcessByStdio<null, Readable, Readable>, wantMetrics: boolean): Promise<ServerProcess> {
  const kill = (): void => void child.kill("SIGKILL");
  process.once("exit", kill);
  let stderr = "";
  let stdout = "";
  child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const lines = createInterface({ input: child.stdout });
  let address = "";
  let adminAddress = "";
  let metricsAddress = "";
  let startTimedOut = false;
  const ready = new Promise<void>((resolve, reject) => {
    child.once("exit", (code, signal) =>
      reject(
        new Error(
          startTimedOut ? `server printed no addresses within ${START_TIMEOUT_MS} ms: ${stderr}` : `server exited early with ${code ?? signal}: ${stderr}`,
        ),
      ),
    );
    lines.on("line", (line) => {
      const [, listening] = /^listening on (.+)$/.exec(line) ?? [];
      const [, admin] = /^admin on (.+)$/.exec(line) ?? [];
      const [, metrics] = /^metrics on http:\/\/(.+)\/metrics$/.exec(line) ?? [];
      if (listening) address = listening;
      if (admin) adminAddress = admin;
      if (metrics) metricsAddress = metrics;
      if (address && adminAddress && (metricsAddress || !wantMetrics)) resolve();
    });
  });
  // A server that never announces itself fails the test naming why, instead of leaving it waiting forever.
  const startTimer = setTimeout(() => {
    startTimedOut = true;
    child.kill("SIGKILL");
  }, START_TIMEOUT_MS);
  await ready.finally(() => clearTimeout(startTimer));
  const client = new SyncWorkerClient(address);
  return {
    address,
    adminAddress,
    metricsAddress,
    client,
    child,
    stderr: () => stderr,
    stdout: () => stdout,
    stop: async () => {
      client.close();
      process.off("exit", kill);
      // Already gone (a test killed it): "exit" will not fire again.
      if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
      const exited = once(child, "exit");
      child.kill("SIGTERM");
      // A deployment's grace period: a server that does not stop by then is a bug to report, not to wait for.
      const timer = setTimeout(() => child.kill("SIGKILL"), STOP_GRACE_MS);
      const [code, signal] = (await exited) as [number | null, NodeJS.Signals | null];
      clearTimeout(timer);
      if (signal === "SIGKILL") throw new Error(`the server did not stop within ${STOP_GRACE_MS} ms of SIGTERM; its log ends:\n${stderr.slice(-4_000)}`);
      return code;
    },
  };
}

/** Reads statuses from a watch until `predicate` holds; fails with the last status after `timeoutMs`. */
export async function waitForStatus(client: SyncWorkerClient, predicate: (s: SyncWorkerStatus) => boolean, timeoutMs: number): Promise<SyncWorkerStatus> {
  let last: SyncWorkerStatus | undefined;
  try {
    for await (const status of client.watchStatus({ signal: AbortSignal.timeout(timeoutMs) })) {
      last = status;
      if (predicate(status)) return status;
    }
  } catch {
    // aborted by the timeout (or a non-transient error); reported below with the last status
  }
  throw new Error(`status did not reach the expected state within ${timeoutMs}ms; last: ${JSON.stringify(last)}`);
}

/**
 * A generated grpc-js client without the TS client's resuming and client-side revision filter, for tests that check
 * the server's stream itself (since_revision, no duplicates, a clean end on shutdown) or send raw metadata.
 */
export function rawClient(address: string): RawSyncWorkerClient {
  return new RawSyncWorkerClient(address, credentials.createInsecure());
}

/** The embedded cluster's objects, read from the admin endpoint. */
export async function embeddedObjects(
  adminAddress: string,
): Promise<Array<{ apiVersion: string; kind: string; metadata: { name: string; namespace?: string } }>> {
  const res = await fetch(`http://${adminAddress}/debug/embedded/objects`);
  return (await res.json()) as Array<{ apiVersion: string; kind: string; metadata: { name: string; namespace?: string } }>;
}
