/**
 * The Grafana dashboard as it ships (deploy/grafana-dashboard.yaml) against real data: a real `syncworker serve` on the
 * embedded cluster goes through what the panels show (an install of demo 1.0.0 paused and resumed, a refused RPC,
 * a StatusWatch stream open throughout, an update to demo 1.1.0 that passes its progress deadline and pauses, so
 * SyncWorkerUpdateDeadlineExceeded fires), while Debian's real Prometheus scrapes it every second with the rules of
 * deploy/prometheusrule.yaml. Then every query of every panel, its template variables made concrete, must be
 * accepted by Prometheus and return at least one series; a failure names the panel.
 */
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { parse } from "yaml";
import { Code, isComplete, OnDeadline, SyncWorkerError, type SyncWorkerClient } from "@syncworker/client";
import { startPrometheus, type TestPrometheus } from "../harness/prometheus.js";
import { REPO_ROOT, startServer, waitForStatus, type ServerProcess } from "../harness/server.js";
import { tierTests } from "../harness/tiers.js";

const { test } = tierTests("metrics");

const DEMO = join(REPO_ROOT, "examples/payloads");

interface Target {
  readonly refId: string;
  readonly expr: string;
}
interface Panel {
  readonly type: string;
  readonly title: string;
  readonly targets?: readonly Target[];
  readonly panels?: readonly Panel[];
}
interface Variable {
  readonly name: string;
  readonly type: string;
  readonly includeAll?: boolean;
  readonly allValue?: string;
  readonly current?: { readonly value: string | string[] };
}
interface Dashboard {
  readonly panels: readonly Panel[];
  readonly templating: { readonly list: readonly Variable[] };
}

/** The shipped ConfigMap: its labels and the dashboard under syncworker.json. */
async function shipped(): Promise<{ labels: Record<string, string>; dashboard: Dashboard }> {
  const configMap = parse(await readFile(join(REPO_ROOT, "deploy/grafana-dashboard.yaml"), "utf8")) as {
    kind: string;
    metadata: { labels: Record<string, string> };
    data: Record<string, string>;
  };
  assert.equal(configMap.kind, "ConfigMap");
  const json = configMap.data["syncworker.json"];
  assert.ok(json, "the dashboard is under data.syncworker.json");
  return { labels: configMap.metadata.labels, dashboard: JSON.parse(json) as Dashboard };
}

/** Every query of every panel (a collapsed row holds its panels), with the panel's title. */
const queries = (panels: readonly Panel[]): { panel: string; refId: string; expr: string }[] =>
  panels.flatMap((p) => [...(p.targets ?? []).map((t) => ({ panel: p.title, refId: t.refId, expr: t.expr })), ...queries(p.panels ?? [])]);

/**
 * What Grafana would send for `expr`: the variables at the values the dashboard opens with (All as its allValue), and
 * Grafana's interval variables as `window`, which the test makes cover everything it did.
 */
function concrete(expr: string, variables: readonly Variable[], window: string): string {
  const values = new Map<string, string>([
    ["__rate_interval", window],
    ["__interval", window],
    ["__range", window],
  ]);
  for (const v of variables) {
    if (v.type !== "query") continue;
    const current = v.current?.value;
    values.set(v.name, v.includeAll && (current === "$__all" || current === undefined) ? (v.allValue ?? ".*") : String(current ?? ""));
  }
  return expr.replace(/\$\{(\w+)\}|\$(\w+)/g, (whole, braced?: string, bare?: string) => values.get(braced ?? bare ?? "") ?? whole);
}

/** Polls an instant query until it returns a series; fails with the last answer after `timeoutMs`. */
async function untilSeries(prometheus: TestPrometheus, expr: string, timeoutMs: number): Promise<void> {
  let last: unknown;
  for (const deadline = Date.now() + timeoutMs; Date.now() < deadline;) {
    const result = await prometheus.query(expr);
    if (result.status === "success" && (result.data?.result.length ?? 0) > 0) return;
    last = result;
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
  throw new Error(`Prometheus returned no series for ${expr} within ${timeoutMs} ms; last: ${JSON.stringify(last)}\n${prometheus.log()}`);
}

/** Reads a status stream to its end: an open StatusWatch for the watcher panels, until `signal` aborts it. */
async function watchAll(client: SyncWorkerClient, signal: AbortSignal): Promise<void> {
  try {
    for await (const _status of client.watchStatus({ signal })) {
      // Only the stream being open and fed matters.
    }
  } catch {
    // aborted at the end of the test
  }
}

/** The server answered FAILED_PRECONDITION, which its gRPC metrics count. */
const refused = (err: unknown): boolean => err instanceof SyncWorkerError && err.code === Code.FailedPrecondition;

test("the shipped ConfigMap is for Grafana's dashboard sidecar", async () => {
  const { labels, dashboard } = await shipped();
  assert.equal(labels["grafana_dashboard"], "1");
  assert.ok(queries(dashboard.panels).length > 0);
});

test("every query of every panel of the shipped dashboard returns series from a real Prometheus scraping a real sync", { timeout: 20 * 60_000 }, async () => {
  const started = Date.now();
  const { dashboard } = await shipped();
  const variables = dashboard.templating.list;
  const job = variables.find((v) => v.name === "job")?.current?.value;
  assert.equal(job, "syncworker", "the job variable opens at the ServiceMonitor's job, the alerts' job");
  const rule = parse(await readFile(join(REPO_ROOT, "deploy/prometheusrule.yaml"), "utf8")) as { spec: { groups: unknown } };

  // The simulated operators report their version after 4 s: each update waits on them, longer than its 1 s deadline.
  const server: ServerProcess = await startServer(["--metrics-listen", "127.0.0.1:0", "--operator-delay", "4s"]);
  let prometheus: TestPrometheus | undefined;
  const watching = new AbortController();
  let watcher: Promise<void> | undefined;
  try {
    prometheus = await startPrometheus({ job, targets: [server.metricsAddress], ruleGroups: rule.spec.groups });
    await untilSeries(prometheus, `up{job="${job}"} == 1`, 120_000);
    watcher = watchAll(server.client, watching.signal);

    // A refused call for the error panels: nothing is paused.
    await assert.rejects(server.client.resumeUpdate(), refused);

    // Install, paused (Prometheus sees it) and resumed.
    await server.client.update({ generation: 1, desired: { image: join(DEMO, "demo-1.0.0") } });
    await server.client.pauseUpdate("grafana dashboard test");
    await untilSeries(prometheus, `syncworker_update_paused{job="${job}"} == 1`, 120_000);
    await server.client.resumeUpdate();
    await waitForStatus(server.client, (s) => isComplete(s, "1.0.0"), 300_000);
    // Refused again, now that Prometheus has the series: a rate counts increases of a series it saw before.
    await assert.rejects(server.client.resumeUpdate(), refused);

    // An update that passes its progress deadline while an operator rolls out, and pauses there: the alert fires.
    await server.client.update({
      generation: 2,
      desired: { image: join(DEMO, "demo-1.1.0") },
      progressDeadline: { seconds: 1, nanos: 0 },
      onDeadline: OnDeadline.ON_DEADLINE_PAUSE,
    });
    await untilSeries(prometheus, `ALERTS{alertname="SyncWorkerUpdateDeadlineExceeded", alertstate="firing"}`, 300_000);
    await untilSeries(prometheus, `syncworker_update_paused{job="${job}"} == 1`, 120_000);

    // Every query as Grafana would send it, over a window holding all of the above.
    const window = `${Math.ceil((Date.now() - started) / 1000) + 60}s`;
    const failures: string[] = [];
    const all = queries(dashboard.panels);
    for (const { panel, refId, expr } of all) {
      const promql = concrete(expr, variables, window);
      const where = `panel "${panel}" query ${refId}: ${promql}`;
      if (/\$/.test(promql)) {
        failures.push(`${where}: a variable the dashboard does not define`);
        continue;
      }
      const result = await prometheus.query(promql);
      if (result.status !== "success") failures.push(`${where}: ${result.errorType ?? "error"}: ${result.error ?? ""}`);
      else if ((result.data?.result.length ?? 0) === 0) failures.push(`${where}: no series`);
    }
    assert.deepEqual(failures, [], `${failures.length} of ${all.length} queries failed:\n${failures.join("\n")}`);

    // Resumed each time its deadline pauses it again (it still has one), the update completes.
    for (const deadline = Date.now() + 300_000; ;) {
      const status = await server.client.getStatus();
      if (isComplete(status, "1.1.0")) break;
      assert.ok(Date.now() < deadline, `the update to 1.1.0 did not complete within 300 s: ${status.message}`);
      // A resume racing the worker's own pause may find nothing paused yet: the next round resumes it.
      if (status.pause?.paused) await server.client.resumeUpdate().catch(() => undefined);
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  } finally {
    watching.abort();
    await watcher;
    await prometheus?.stop();
    assert.equal(await server.stop(), 0, server.stderr());
  }
});
