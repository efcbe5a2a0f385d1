/**
 * A real Prometheus for tests: Debian's `prometheus` binary (the metrics tier of scripts/setup.sh) on a loopback port,
 * with its own config, rules and TSDB in a temporary directory, scraping the given targets under one job every
 * second and evaluating the rules every second.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { stringify } from "yaml";
import { freePort } from "./ports.js";

/** How long Prometheus may take to answer /-/ready (a cold start on a loaded 2-core machine). */
const READY_TIMEOUT_MS = 120_000;
/** How long it may take to stop after SIGTERM (it flushes its head block) before it is killed. */
const STOP_GRACE_MS = 30_000;

/** One answer of the HTTP API's /api/v1/query. */
export interface QueryResult {
  readonly status: "success" | "error";
  readonly error?: string;
  readonly errorType?: string;
  readonly data?: { readonly resultType: string; readonly result: readonly { readonly metric: Record<string, string>; readonly value?: [number, string] }[] };
}

export interface TestPrometheus {
  /** `http://127.0.0.1:PORT`. */
  readonly url: string;
  /** An instant query at now, whatever its status (an HTTP 400 for bad PromQL is an answer too). */
  query(expr: string): Promise<QueryResult>;
  /** Everything Prometheus logged, for failure messages. */
  readonly log: () => string;
  stop(): Promise<void>;
}

/**
 * Starts Prometheus scraping `targets` (`HOST:PORT`, path /metrics) as job `job` with the rule `groups` (a rules
 * file's `groups`, as a PrometheusRule's spec carries them), and waits until it is ready. Killed when the test process exits.
 */
export async function startPrometheus(o: { readonly job: string; readonly targets: readonly string[]; readonly ruleGroups: unknown }): Promise<TestPrometheus> {
  const dir = await mkdtemp(join(tmpdir(), "syncworker-prometheus-"));
  await writeFile(join(dir, "rules.yaml"), stringify({ groups: o.ruleGroups }));
  await writeFile(
    join(dir, "prometheus.yaml"),
    stringify({
      global: { scrape_interval: "1s", scrape_timeout: "1s", evaluation_interval: "1s" },
      rule_files: [join(dir, "rules.yaml")],
      scrape_configs: [{ job_name: o.job, static_configs: [{ targets: o.targets }] }],
    }),
  );
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const args = [
    `--config.file=${join(dir, "prometheus.yaml")}`,
    `--storage.tsdb.path=${join(dir, "data")}`,
    `--web.listen-address=127.0.0.1:${port}`,
    "--log.level=warn",
  ];
  const child: ChildProcess = spawn("prometheus", args, { stdio: ["ignore", "pipe", "pipe"], cwd: dir });
  const kill = (): void => void child.kill("SIGKILL");
  process.once("exit", kill);
  let log = "";
  child.stdout?.on("data", (chunk: Buffer) => (log += chunk.toString()));
  child.stderr?.on("data", (chunk: Buffer) => (log += chunk.toString()));
  const stop = async (): Promise<void> => {
    process.off("exit", kill);
    if (child.exitCode === null && child.signalCode === null) {
      const exited = once(child, "exit");
      child.kill("SIGTERM");
      const timer = setTimeout(kill, STOP_GRACE_MS);
      await exited;
      clearTimeout(timer);
    }
    await rm(dir, { recursive: true, force: true });
  };
  try {
    for (const deadline = Date.now() + READY_TIMEOUT_MS; ;) {
      if (child.exitCode !== null) throw new Error(`prometheus exited with ${child.exitCode}: ${log}`);
      const ready = await fetch(`${url}/-/ready`).then(
        (r) => r.ok,
        () => false,
      );
      if (ready) break;
      if (Date.now() > deadline) throw new Error(`prometheus was not ready on ${url} within ${READY_TIMEOUT_MS} ms: ${log}`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  } catch (err) {
    await stop();
    throw err;
  }
  return {
    url,
    query: async (expr) => (await (await fetch(`${url}/api/v1/query?${new URLSearchParams({ query: expr })}`)).json()) as QueryResult,
    log: () => log,
    stop,
  };
}
