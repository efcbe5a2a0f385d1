/**
 * The PrometheusRule shipped in deploy/ checked and unit-tested by Prometheus's own promtool (Debian's prometheus
 * package): its spec.groups become a plain rules file beside the tests of test/fixtures/prometheusrule-tests.yaml.
 */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { copyFile, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { parse, stringify } from "yaml";
import { tierTests } from "../../harness/tiers.js";

const { after, before, test } = tierTests("metrics");

const REPO_ROOT = new URL("../../..", import.meta.url).pathname;
const RULE = join(REPO_ROOT, "deploy/prometheusrule.yaml");
const TESTS = join(REPO_ROOT, "test/fixtures/prometheusrule-tests.yaml");
const run = promisify(execFile);

interface PrometheusRule {
  kind: string;
  spec: { groups: { name: string; rules: { alert?: string }[] }[] };
}

let dir = "";
let rule: PrometheusRule;
before(async () => {
  dir = await mkdtemp(join(tmpdir(), "syncworker-rules-"));
  rule = parse(await readFile(RULE, "utf8")) as PrometheusRule;
  await writeFile(join(dir, "rules.yaml"), stringify({ groups: rule.spec.groups }));
  await copyFile(TESTS, join(dir, "tests.yaml"));
});
after(async () => rm(dir, { recursive: true, force: true }));

/** Runs promtool; resolves with its exit code and output whatever the code, so a failure shows what it said. */
async function promtool(...args: string[]): Promise<{ code: number; output: string }> {
  try {
    const { stdout, stderr } = await run("promtool", args, { cwd: dir });
    return { code: 0, output: stdout + stderr };
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string };
    return { code: Number(e.code ?? 1), output: `${e.stdout ?? ""}${e.stderr ?? ""}` };
  }
}

test("deploy/prometheusrule.yaml is a PrometheusRule whose rules promtool accepts", async () => {
  assert.equal(rule.kind, "PrometheusRule");
  const checked = await promtool("check", "rules", "rules.yaml");
  assert.equal(checked.code, 0, checked.output);
});

test("every alert of the PrometheusRule fires and stays quiet as its promtool unit tests expect", async () => {
  const tested = await promtool("test", "rules", "tests.yaml");
  assert.equal(tested.code, 0, tested.output);
  // A rule without a test could fire on anything: each alert is named by at least one alert_rule_test.
  const tests = parse(await readFile(TESTS, "utf8")) as { tests: { alert_rule_test?: { alertname: string }[] }[] };
  const covered = new Set(tests.tests.flatMap((t) => (t.alert_rule_test ?? []).map((a) => a.alertname)));
  const alerts = rule.spec.groups.flatMap((g) => g.rules.map((r) => r.alert ?? ""));
  assert.deepEqual(
    alerts.filter((a) => !covered.has(a)),
    [],
    "alerts without a test",
  );
});
