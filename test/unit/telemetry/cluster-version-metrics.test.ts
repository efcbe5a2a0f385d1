import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { test } from "node:test";
import parsePrometheus from "parse-prometheus-text-format";
import { Registry } from "prom-client";
import type { Condition, HistoryEntry, ServiceStatus } from "../../../src/status/index.js";
import { capabilitySeries, clusterVersionMetrics, clusterVersionSeries, operatorConditionSeries, operatorUpSeries } from "../../../src/telemetry/index.js";
import type { KubeObject, Release } from "../../../src/payload/index.js";
import { EMPTY_STATUS, type ComponentProgress } from "../../../src/worker/index.js";
import { skipTier } from "../../harness/tiers.js";

const t = (s: number): Date => new Date(s * 1000);
const completed = (version: string, image: string, start: number, end: number): HistoryEntry => ({
  state: "Completed",
  version,
  image,
  verified: false,
  startedTime: t(start),
  completionTime: t(end),
});
const partial = (version: string, image: string, start: number): HistoryEntry => ({ state: "Partial", version, image, verified: false, startedTime: t(start) });
const condition = (type: string, status: Condition["status"], reason: string, at = 0): Condition => ({
  type,
  status,
  reason,
  message: "",
  lastTransitionTime: t(at),
});

function status(o: {
  actual?: Partial<Release>;
  desired?: { version: string; image: string };
  history?: HistoryEntry[];
  conditions?: Condition[];
  enabled?: string[];
  known?: string[];
}): ServiceStatus {
  return {
    worker: {
      ...EMPTY_STATUS,
      actual: { ...EMPTY_STATUS.actual, ...o.actual },
      loadPayloadStatus: {
        ...EMPTY_STATUS.loadPayloadStatus,
        update: { force: false, ...(o.desired ?? { version: o.actual?.version ?? "", image: o.actual?.image ?? "" }) },
      },
      capabilitiesStatus: { enabled: o.enabled ?? [], known: o.known ?? [], implicitlyEnabled: [] },
    },
    clusterVersion: { history: o.history ?? [], conditions: o.conditions ?? [], message: "" },
  };
}

const operator = (
  name: string,
  versions: { name: string; version: string }[],
  conditions: { type: string; status: string; reason?: string }[],
): KubeObject => ({
  apiVersion: "config.openshift.io/v1",
  kind: "ClusterOperator",
  metadata: { name },
  status: { versions, conditions },
});

/** A sample as `label|label|… = value`, labels in their declared order. */
const row = (labels: Record<string, string>, value: number): string => `${Object.values(labels).join("|")} = ${value}`;

// Upstream's TestOperator_Collect cases for cluster_version (pkg/cvo/metrics_test.go), with our ClusterVersion
// created at its oldest history entry's start. Rows are "type|version|image|from_version = value".
for (const tc of [
  {
    name: "the current release is reported with its creation time",
    status: status({ actual: { version: "0.0.2", image: "test/image:1" } }),
    created: t(3),
    want: ["current|0.0.2|test/image:1| = 3"],
  },
  {
    name: "a release that does not say when it was created is reported at 0",
    status: status({ actual: { version: "0.0.2", image: "test/image:1" } }),
    created: undefined,
    want: ["current|0.0.2|test/image:1| = 0"],
  },
  {
    name: "nothing before the service took a release",
    status: status({}),
    created: undefined,
    want: [],
  },
  {
    name: "an update towards a new release after a completed one: completed, initial, cluster, updating",
    status: status({
      actual: { version: "0.0.2", image: "test/image:1" },
      history: [partial("0.0.2", "test/image:1", 5), completed("0.0.1", "test/image:0", 2, 4)],
    }),
    created: t(3),
    want: [
      "current|0.0.2|test/image:1|0.0.1 = 3",
      "completed|0.0.1|test/image:0| = 4",
      "initial|0.0.1|test/image:0| = 2",
      "cluster|0.0.2|test/image:1|0.0.1 = 2",
      "updating|0.0.2|test/image:1|0.0.1 = 5",
    ],
  },
  {
    name: "with a prior completion, completed comes from it and updating from the newest completion",
    status: status({
      actual: { version: "0.0.3", image: "test/image:2" },
      history: [partial("0.0.3", "test/image:2", 6), completed("0.0.2", "test/image:1", 3, 4), completed("0.0.1", "test/image:0", 2, 3)],
    }),
    created: t(3),
    want: [
      "current|0.0.3|test/image:2|0.0.2 = 3",
      "completed|0.0.2|test/image:1|0.0.1 = 4",
      "initial|0.0.1|test/image:0| = 2",
      "cluster|0.0.3|test/image:2|0.0.1 = 2",
      "updating|0.0.3|test/image:2|0.0.2 = 6",
    ],
  },
  {
    name: "a cluster that never completed a release has no initial version on its cluster series",
    status: status({ actual: { version: "0.0.2", image: "test/image:1" }, history: [partial("0.0.2", "test/image:1", 2)] }),
    created: t(3),
    want: ["current|0.0.2|test/image:1| = 3", "initial|0.0.2|test/image:1| = 2", "cluster|0.0.2|test/image:1| = 2", "updating|0.0.2|test/image:1| = 2"],
  },
  {
    name: "a desired release not yet applied is reported at the latest change",
    status: status({
      actual: { version: "0.0.2", image: "test/image:1" },
      desired: { version: "1.0.0", image: "test/image:2" },
      history: [completed("0.0.2", "test/image:1", 2, 3)],
      conditions: [condition("Available", "True", "Because stuff", 5)],
    }),
    created: undefined,
    want: [
      "current|0.0.2|test/image:1|0.0.2 = 0",
      "completed|0.0.2|test/image:1| = 3",
      "initial|0.0.2|test/image:1| = 2",
      "cluster|0.0.2|test/image:1|0.0.2 = 2",
      "desired|1.0.0|test/image:2|0.0.2 = 5",
    ],
  },
  {
    name: "failing towards a desired release: the failure names the desired release, at Failing's transition",
    status: status({
      actual: { version: "0.0.2", image: "test/image:1" },
      desired: { version: "1.0.0", image: "test/image:2" },
      history: [completed("0.0.2", "test/image:1", 1, 2)],
      conditions: [condition("Failing", "True", "Because stuff", 4)],
    }),
    created: t(6),
    want: [
      "current|0.0.2|test/image:1|0.0.2 = 6",
      "completed|0.0.2|test/image:1| = 2",
      "initial|0.0.2|test/image:1| = 1",
      "cluster|0.0.2|test/image:1|0.0.2 = 1",
      "desired|1.0.0|test/image:2|0.0.2 = 4",
      "failure|1.0.0|test/image:2|0.0.2 = 4",
    ],
  },
  {
    name: "failing while reconciling: the failure names the current release",
    status: status({
      actual: { version: "0.0.2", image: "test/image:1" },
      history: [completed("0.0.2", "test/image:1", 1, 2)],
      conditions: [condition("Failing", "True", "Because stuff", 7), condition("Progressing", "False", "", 8)],
    }),
    created: undefined,
    want: [
      "current|0.0.2|test/image:1|0.0.2 = 0",
      "completed|0.0.2|test/image:1| = 2",
      "initial|0.0.2|test/image:1| = 1",
      "cluster|0.0.2|test/image:1|0.0.2 = 1",
      "failure|0.0.2|test/image:1|0.0.2 = 7",
    ],
  },
]) {
  test(`cluster_version: ${tc.name}`, () => {
    assert.deepEqual(
      clusterVersionSeries(tc.status, tc.created).map((s) => row(s.labels, s.value)),
      tc.want,
    );
  });
}

// Upstream's ClusterOperator cases; rows are "name|version|reason = value" and "name|condition|reason = value".
for (const tc of [
  {
    name: "an operator without conditions is down with NoAvailableCondition, labelled with its operator version",
    operators: [
      operator(
        "test",
        [
          { name: "operator", version: "10.1.5-1" },
          { name: "operand", version: "10.1.5-2" },
        ],
        [],
      ),
    ],
    up: ["test|10.1.5-1|NoAvailableCondition = 0"],
    conditions: [],
  },
  {
    name: "an unavailable operator is down",
    operators: [operator("test", [{ name: "operator", version: "10.1.5-1" }], [{ type: "Available", status: "False", reason: "Broken" }])],
    up: ["test|10.1.5-1|Broken = 0"],
    conditions: ["test|Available|Broken = 0"],
  },
  {
    name: "a degraded operator is up and shows Degraded=1",
    operators: [
      operator(
        "test",
        [{ name: "operator", version: "10.1.5-1" }],
        [
          { type: "Available", status: "True" },
          { type: "Degraded", status: "True", reason: "Sick" },
        ],
      ),
    ],
    up: ["test|10.1.5-1| = 1"],
    conditions: ["test|Available| = 1", "test|Degraded|Sick = 1"],
  },
  {
    name: "custom conditions are reported, Unknown ones left out",
    operators: [
      operator(
        "test",
        [],
        [
          { type: "Available", status: "True" },
          { type: "Custom", status: "False", reason: "CustomReason" },
          { type: "Unknown", status: "Unknown" },
        ],
      ),
    ],
    up: ["test|| = 1"],
    conditions: ["test|Available| = 1", "test|Custom|CustomReason = 0"],
  },
  {
    name: "an operator whose status is not what the schema says is still reported, as down",
    operators: [{ apiVersion: "config.openshift.io/v1", kind: "ClusterOperator", metadata: { name: "odd" }, status: { versions: "x", conditions: 3 } }],
    up: ["odd||NoAvailableCondition = 0"],
    conditions: [],
  },
]) {
  test(`cluster_operator_up and _conditions: ${tc.name}`, () => {
    const none = status({});
    assert.deepEqual(
      operatorUpSeries(none, tc.operators).map((s) => row(s.labels, s.value)),
      tc.up,
    );
    assert.deepEqual(
      operatorConditionSeries(none, tc.operators).map((s) => row(s.labels, s.value)),
      tc.conditions,
    );
  });
}

test("the cluster version shows as operator 'version': up from Available with its last completed release, every True or False condition", () => {
  const s = status({
    actual: { version: "0.0.2", image: "test/image:1" },
    history: [partial("0.0.2", "test/image:1", 3), completed("0.0.1", "test/image:0", 1, 2)],
    conditions: [
      condition("Available", "True", "Done"),
      condition("Failing", "False", ""),
      condition("Progressing", "Unknown", "Hm"),
      condition("RetrievedUpdates", "False", "NoUpstream"),
    ],
  });
  assert.deepEqual(
    operatorUpSeries(s, []).map((x) => row(x.labels, x.value)),
    ["version|0.0.1|Done = 1"],
  );
  assert.deepEqual(
    operatorConditionSeries(s, []).map((x) => row(x.labels, x.value)),
    ["version|Available|Done = 1", "version|Failing| = 0", "version|RetrievedUpdates|NoUpstream = 0"],
  );
  assert.deepEqual(
    operatorUpSeries(status({ conditions: [condition("Progressing", "True", "")] }), []),
    [],
    "no Available condition: no up series for the cluster version",
  );
});

test("cluster_version_capability: enabled 1, known but disabled 0", () => {
  const s = status({ enabled: ["Console", "baremetal"], known: ["Console", "Insights", "baremetal"] });
  assert.deepEqual(
    capabilitySeries(s).map((x) => row(x.labels, x.value)),
    ["Console = 1", "baremetal = 1", "Insights = 0"],
  );
});

test("the scraped CVO metrics follow the status between scrapes and pass promtool check metrics", { skip: skipTier("metrics") }, async () => {
  const registry = new Registry();
  let current = status({
    actual: { version: "1.0.0", image: "img:1" },
    history: [partial("1.0.0", "img:1", 10)],
    conditions: [condition("Available", "False", ""), condition("Failing", "True", "ClusterOperatorNotAvailable", 12)],
    enabled: ["Console"],
    known: ["Console", "Insights"],
  });
  let operators = [operator("web", [{ name: "operator", version: "1.0.0" }], [{ type: "Available", status: "False", reason: "Starting" }])];
  const sink = clusterVersionMetrics(registry, { status: () => current, operators: () => operators, role: () => "leader" });
  sink.releaseLoaded("img:1", t(7));
  const scrape = async (): Promise<Map<string, string[]>> => {
    const families = parsePrometheus(await registry.metrics());
    return new Map(families.map((f) => [f.name, f.metrics.map((m) => row(m.labels ?? {}, Number(m.value)))]));
  };

  const first = await scrape();
  assert.deepEqual(first.get("cluster_version"), [
    "current|1.0.0|img:1| = 7",
    "initial|1.0.0|img:1| = 10",
    "cluster|1.0.0|img:1| = 10",
    "failure|1.0.0|img:1| = 12",
    "updating|1.0.0|img:1| = 10",
  ]);
  assert.deepEqual(first.get("cluster_operator_up"), ["version|| = 0", "web|1.0.0|Starting = 0"]);
  assert.deepEqual(first.get("cluster_version_capability"), ["Console = 1", "Insights = 0"]);

  // Prometheus's own linter on upstream's names, labels and types as we expose them: nothing to say.
  const checked = await new Promise<{ code: number | null; output: string }>((resolve) => {
    const child = execFile("promtool", ["check", "metrics"], (err, stdout, stderr) =>
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, output: stdout + stderr }),
    );
    void registry.metrics().then((text) => child.stdin!.end(text));
  });
  assert.deepEqual(checked, { code: 0, output: "" });

  current = status({
    actual: { version: "1.0.0", image: "img:1" },
    history: [completed("1.0.0", "img:1", 10, 20)],
    conditions: [condition("Available", "True", ""), condition("Failing", "False", "", 20)],
    enabled: ["Console"],
    known: ["Console", "Insights"],
  });
  operators = [];
  const second = await scrape();
  assert.deepEqual(
    second.get("cluster_version"),
    ["current|1.0.0|img:1|1.0.0 = 7", "completed|1.0.0|img:1| = 20", "initial|1.0.0|img:1| = 10", "cluster|1.0.0|img:1|1.0.0 = 10"],
    "failure and updating are gone",
  );
  assert.deepEqual(second.get("cluster_operator_up"), ["version|1.0.0| = 1"], "a removed operator's series is gone");
});

test("cluster_version_capability: names this release does not know (a state saved before they were checked) make no series", () => {
  const invented = Array.from({ length: 20_000 }, (_, i) => `Invented${i}`);
  const s = status({ enabled: ["Console", ...invented], known: ["Console", "Insights", ...invented] });
  assert.deepEqual(
    capabilitySeries(s).map((x) => row(x.labels, x.value)),
    ["Console = 1", "Insights = 0"],
  );
});

test("syncworker_leader follows the replica's role and syncworker_component_duration_seconds its pass's components", async () => {
  const registry = new Registry();
  let role: "leader" | "standby" = "standby";
  const component = (runLevel: number, name: string, started?: number, finished?: number): ComponentProgress => ({
    runLevel,
    component: name,
    state: finished !== undefined ? "Done" : started !== undefined ? "Applying" : "Pending",
    done: 0,
    total: 1,
    currentObject: "",
    waitReason: "",
    attempts: 0,
    ...(started !== undefined ? { startedAt: t(started) } : {}),
    ...(finished !== undefined ? { finishedAt: t(finished) } : {}),
  });
  const base = status({ actual: { version: "1.0.0", image: "img:1" } });
  const current: ServiceStatus = {
    ...base,
    worker: { ...base.worker, components: [component(0, "syncworker", 100, 101), component(10, "demo-config", 101), component(50, "demo-web")] },
  };
  clusterVersionMetrics(registry, { status: () => current, operators: () => [], role: () => role }, () => 131_000);
  const scrape = async (name: string): Promise<string[]> =>
    (parsePrometheus(await registry.metrics()).find((f) => f.name === name)?.metrics ?? []).map((m) => row(m.labels ?? {}, Number(m.value)));

  assert.deepEqual(await scrape("syncworker_leader"), [" = 0"], "a standby");
  role = "leader";
  assert.deepEqual(await scrape("syncworker_leader"), [" = 1"]);
  assert.deepEqual(
    await scrape("syncworker_component_duration_seconds"),
    ["0|syncworker = 1", "10|demo-config = 30"],
    "a finished component its whole time, a running one so far, a pending one none",
  );
});
