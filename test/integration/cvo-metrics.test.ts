/**
 * The CVO's own metrics on a real `syncworker serve` (embedded cluster, whose simulated operators report their
 * ClusterOperators): scraped from /metrics through an install of demo 1.0.0 and an update to 1.1.0, and the whole
 * exposition checked by Prometheus's own `promtool check metrics` (Debian's prometheus package).
 */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { join } from "node:path";
import parsePrometheus from "parse-prometheus-text-format";
import { isComplete } from "@syncworker/client";
import { REPO_ROOT, startServer, waitForStatus, type ServerProcess } from "../harness/server.js";
import { tierTests } from "../harness/tiers.js";

const { test } = tierTests("metrics");

const DEMO = join(REPO_ROOT, "examples/payloads");

/** One metric family's samples as `label=value,…` strings, sorted, from a scrape of /metrics. */
async function scrape(server: ServerProcess): Promise<{ text: string; family: (name: string) => string[] }> {
  const text = await (await fetch(`http://${server.metricsAddress}/metrics`)).text();
  const families = parsePrometheus(text);
  return {
    text,
    family: (name) =>
      (families.find((f) => f.name === name)?.metrics ?? [])
        .map(
          (m) =>
            `${Object.entries(m.labels ?? {})
              .map(([k, v]) => `${k}=${v}`)
              .join(",")} ${m.value}`,
        )
        .sort(),
  };
}

function promtoolCheck(text: string): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    const child = execFile("promtool", ["check", "metrics"], (err, stdout, stderr) =>
      resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, output: stdout + stderr }),
    );
    child.stdin!.end(text);
  });
}

const update = (server: ServerProcess, image: string, generation: number) =>
  server.client.update({ generation, desired: { version: "", image, force: false }, overrides: [], capabilities: undefined, state: 0 });

test(
  "/metrics shows the CVO's cluster_version, cluster_operator_up/_conditions and capabilities through an install and an update, clean under promtool",
  { timeout: 120_000 },
  async () => {
    const server = await startServer(["--metrics-listen", "127.0.0.1:0", "--operator-delay", "300ms"]);
    try {
      const idle = await scrape(server);
      assert.deepEqual(idle.family("cluster_version"), [], "no release taken yet: nothing to report");

      await update(server, join(DEMO, "demo-1.0.0"), 1);
      await waitForStatus(server.client, (s) => isComplete(s, "1.0.0"), 60_000);
      const installed = await scrape(server);
      const image0 = join(DEMO, "demo-1.0.0");
      const v = (type: string, version: string, image: string, from: string): string => `type=${type},version=${version},image=${image},from_version=${from}`;
      const versions = installed.family("cluster_version").map((s) => s.replace(/ \d+$/, ""));
      assert.deepEqual(
        versions.sort(),
        [
          v("cluster", "1.0.0", image0, "1.0.0"),
          v("completed", "1.0.0", image0, ""),
          v("current", "1.0.0", image0, "1.0.0"),
          v("initial", "1.0.0", image0, ""),
        ].sort(),
      );
      assert.deepEqual(installed.family("cluster_operator_up"), [
        "name=demo-api,version=1.0.0,reason=AsExpected 1",
        "name=demo-config,version=1.0.0,reason=AsExpected 1",
        "name=demo-web,version=1.0.0,reason=AsExpected 1",
        `name=version,version=1.0.0,reason= 1`,
      ]);
      const conditions = installed.family("cluster_operator_conditions");
      assert.ok(conditions.includes("name=demo-web,condition=Degraded,reason=AsExpected 0"), conditions.join("\n"));
      assert.ok(conditions.includes("name=version,condition=Failing,reason= 0"), conditions.join("\n"));
      assert.ok(installed.family("cluster_version_capability").length > 0, "the known capabilities are reported");

      // Every family on the endpoint, ours and upstream's names alike, as Prometheus's own linter sees them.
      assert.deepEqual(await promtoolCheck(installed.text), { code: 0, output: "" });

      const image1 = join(DEMO, "demo-1.1.0");
      await update(server, image1, 2);
      const updating = (await scrape(server)).family("cluster_version").map((s) => s.replace(/ \d+$/, ""));
      assert.ok(updating.includes(v("updating", "1.1.0", image1, "1.0.0")), updating.join("\n"));
      await waitForStatus(server.client, (s) => isComplete(s, "1.1.0"), 60_000);
      const updated = (await scrape(server)).family("cluster_version").map((s) => s.replace(/ \d+$/, ""));
      assert.deepEqual(
        updated.sort(),
        [
          v("cluster", "1.1.0", image1, "1.0.0"),
          v("completed", "1.1.0", image1, "1.0.0"),
          v("current", "1.1.0", image1, "1.1.0"),
          v("initial", "1.0.0", image0, ""),
        ].sort(),
      );
    } finally {
      assert.equal(await server.stop(), 0, server.stderr());
    }
  },
);
