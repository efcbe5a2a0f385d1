// `npm run bench -- health-rules`: what a health rule costs per readiness check. One rule (inProgress, failed and
// current over a custom resource's status) evaluated against an object that is current, the same verdict computed
// by the built-in TypeScript Deployment check as the baseline of the same run, and the time to compile a rules file.
import { UpdateError } from "../src/core/index.js";
import type { KubeObject } from "../src/payload/manifest.js";
import { checkDeployment, compileHealthRules } from "../src/readiness/index.js";

const N = Number(process.env["BENCH_EVALUATIONS"] ?? 200_000);

const RULES = `rules:
  - group: example.com
    kind: Widget
    inProgress: "status.?phase.orValue('') == 'Provisioning'"
    failed: "status.?conditions.orValue([]).exists(c, c.type == 'Degraded' && c.status == 'True')"
    current: "status.?conditions.orValue([]).exists(c, c.type == 'Ready' && c.status == 'True') && status.?observedGeneration.orValue(0) == metadata.generation"
`;

const conditions = [
  { type: "Available", status: "True", reason: "MinimumReplicasAvailable" },
  { type: "Progressing", status: "True", reason: "NewReplicaSetAvailable" },
  { type: "Ready", status: "True" },
];
const widget: KubeObject = {
  apiVersion: "example.com/v1",
  kind: "Widget",
  metadata: { name: "w", namespace: "demo", generation: 3 },
  status: { observedGeneration: 3, phase: "Running", conditions },
};
const deployment: KubeObject = {
  apiVersion: "apps/v1",
  kind: "Deployment",
  metadata: { name: "d", namespace: "demo", generation: 3 },
  status: { observedGeneration: 3, conditions },
};

/** Microseconds per call of `fn` over N calls, after a warm-up of a tenth of them. */
function perCall(fn: () => unknown): number {
  for (let i = 0; i < N / 10; i++) fn();
  const start = performance.now();
  for (let i = 0; i < N; i++) fn();
  return ((performance.now() - start) * 1000) / N;
}

export async function run(): Promise<void> {
  const compileUs = perCall(() => compileHealthRules(RULES, "bench.yaml"));
  const check = compileHealthRules(RULES, "bench.yaml").checkFor("example.com", "Widget");
  if (!check || check(widget) !== undefined) throw new Error("the bench's widget must be current under its rule");
  const ruleUs = perCall(() => check(widget));
  const builtInUs = perCall(() => checkDeployment(deployment, "Updating"));
  const failing = check({ ...widget, status: { phase: "Running", conditions: [{ type: "Degraded", status: "True" }] } });
  if (!(failing instanceof UpdateError) || failing.reason !== "HealthRuleFailed") throw new Error("the failed expression must fail the widget");
  console.log(`compiling a rules file of one rule (3 expressions): ${compileUs.toFixed(1)} us`);
  console.log(`one readiness check by the rule: ${ruleUs.toFixed(2)} us; by the built-in Deployment check: ${builtInUs.toFixed(2)} us`);
  console.log(
    `RESULT health-rules evaluations=${N} rule_us=${ruleUs.toFixed(2)} builtin_us=${builtInUs.toFixed(2)} ratio=${(ruleUs / builtInUs).toFixed(1)} compile_us=${compileUs.toFixed(1)}`,
  );
}
