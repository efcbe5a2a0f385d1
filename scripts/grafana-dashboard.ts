/**
 * syncworker's Grafana dashboard, built from typed code with the Grafana Foundation SDK (a devDependency, so this
 * lives in scripts/, never under src/) and shipped as deploy/grafana-dashboard.yaml: a ConfigMap for Grafana's
 * dashboard sidecar. `scripts/gen-dashboard.ts` writes it; `npm run check` (scripts/check-gen.sh) fails when the
 * shipped file differs from what this module builds; test/integration/grafana-dashboard.test.ts runs every query
 * of the shipped file against a real Prometheus scraping a real `syncworker serve`.
 *
 * Every query reads a metric `syncworker serve` exposes on /metrics (src/telemetry/) or the ALERTS series of the
 * rules in deploy/prometheusrule.yaml, for the job and instances the `job` and `instance` variables select.
 */
import {
  DashboardBuilder,
  DashboardCursorSync,
  DatasourceVariableBuilder,
  QueryVariableBuilder,
  VariableRefresh,
  VariableSort,
  type Dashboard,
} from "@grafana/grafana-foundation-sdk/dashboard";
import { BigValueTextMode } from "@grafana/grafana-foundation-sdk/common";
import { Document, parseDocument } from "yaml";
import { DATASOURCE, Ids, quantiles, RATE, redFrom, row, SEL, stat, states, table, timeseries } from "./grafana-panels.js";

/** The ConfigMap's data key: the file name the sidecar writes, and Grafana's dashboard of that name. */
export const DASHBOARD_KEY = "syncworker.json";
/** The job the ServiceMonitor gives the Service's targets, as deploy/prometheusrule.yaml assumes: the variable's default. */
export const DEFAULT_JOB = "syncworker";

/** The names of the alerts of a PrometheusRule (deploy/prometheusrule.yaml), in its order. */
export function alertNames(prometheusRuleYaml: string): string[] {
  const rule = parseDocument(prometheusRuleYaml).toJS() as { spec?: { groups?: { rules?: { alert?: string }[] }[] } };
  return (rule.spec?.groups ?? []).flatMap((g) => (g.rules ?? []).flatMap((r) => (r.alert ? [r.alert] : [])));
}

/**
 * The dashboard: release and state, progress, component durations, apply latency, retries and failures, the
 * StatusWatch streams, gRPC, leadership and pause, and the firing alerts among `alerts` (deploy/prometheusrule.yaml's).
 */
export function syncworkerDashboard(alerts: readonly string[]): Dashboard {
  if (alerts.length === 0) throw new Error("no alert names: the firing-alerts panels would match every alert");
  const ids = new Ids();
  const firing = `ALERTS{alertstate="firing", alertname=~"${alerts.join("|")}"}`;
  const dashboard = new DashboardBuilder("syncworker")
    .uid("syncworker")
    .description("syncworker (the CVO's sync worker as a gRPC service): release, progress, apply, watchers, gRPC, leadership and alerts.")
    .tags(["syncworker", "cluster-version"])
    .time({ from: "now-3h", to: "now" })
    .refresh("30s")
    .tooltip(DashboardCursorSync.Crosshair)
    .readonly()
    .withVariable(new DatasourceVariableBuilder("datasource").label("Data source").type("prometheus"))
    .withVariable(
      new QueryVariableBuilder("job")
        .label("Job")
        .datasource(DATASOURCE)
        .query("label_values(syncworker_update_paused, job)")
        .current({ text: DEFAULT_JOB, value: DEFAULT_JOB })
        .refresh(VariableRefresh.OnTimeRangeChanged)
        .sort(VariableSort.AlphabeticalAsc),
    )
    // Replicas: the leader runs the worker, standbys serve reads of its saved state; All sums or maxes over them.
    .withVariable(
      new QueryVariableBuilder("instance")
        .label("Instance")
        .datasource(DATASOURCE)
        .query('label_values(syncworker_update_paused{job="$job"}, instance)')
        .multi(true)
        .includeAll(true)
        .allValue(".*")
        .current({ text: "All", value: "$__all" })
        .refresh(VariableRefresh.OnTimeRangeChanged)
        .sort(VariableSort.AlphabeticalAsc),
    );

  dashboard
    .withRow(row(ids, "Release and state"))
    .withPanel(
      stat(ids, "Current release", {
        description: "The release the worker applies (cluster_version type=current).",
        width: 6,
        text: BigValueTextMode.Name,
        queries: [{ expr: `max by (version) (cluster_version{${SEL}, type="current"})`, legend: "{{version}}" }],
      }),
    )
    .withPanel(
      stat(ids, "Cluster version conditions", {
        description: "The ClusterVersion's conditions as the CVO reports them (cluster_operator_conditions name=version).",
        width: 12,
        text: BigValueTextMode.ValueAndName,
        queries: [
          {
            expr: `max by (condition) (cluster_operator_conditions{${SEL}, name="version", condition=~"Available|Progressing|Failing|ReleaseAccepted"})`,
            legend: "{{condition}}",
          },
        ],
      }).mappings(states({ "0": { text: "False", color: "text" }, "1": { text: "True", color: "text" } })),
    )
    .withPanel(
      stat(ids, "Since the last successful pass", {
        description:
          "Time since a pass last applied the whole release (syncworker_seconds_since_last_successful_sync). Outside an update it stays below the reconcile interval; SyncWorkerReconcileStalled fires past an hour.",
        width: 6,
        unit: "s",
        queries: [{ expr: `min(syncworker_seconds_since_last_successful_sync{${SEL}})`, legend: "since last success" }],
      }).thresholds(redFrom(3600)),
    )
    .withPanel(
      table(ids, "Releases", {
        description:
          "cluster_version by type: current (value: the release's creation time, 0 when unknown), initial, cluster, completed, and while it applies desired, updating and failure.",
        width: 12,
        unit: "dateTimeAsIso",
        queries: [{ expr: `1000 * max by (type, version, from_version, image) (cluster_version{${SEL}})` }],
      }).mappings(states({ "0": { text: "unknown", color: "text" } })),
    )
    .withPanel(
      table(ids, "Cluster operators", {
        description: "Each ClusterOperator's availability, its operator version and reason (cluster_operator_up); name=version is the cluster version.",
        width: 12,
        queries: [{ expr: `max by (name, version, reason) (cluster_operator_up{${SEL}})` }],
      }).mappings(states({ "0": { text: "Unavailable", color: "red" }, "1": { text: "Available", color: "green" } })),
    );

  dashboard
    .withRow(row(ids, "Progress"))
    .withPanel(
      stat(ids, "Payload applied", {
        description: "Share of the release's manifests applied in the current pass, by release (cluster_version_payload).",
        width: 6,
        height: 8,
        unit: "percentunit",
        text: BigValueTextMode.ValueAndName,
        queries: [
          {
            expr: `max by (version) (cluster_version_payload{${SEL}, type="applied"}) / sum by (version) (max by (version, type) (cluster_version_payload{${SEL}}))`,
            legend: "{{version}}",
          },
        ],
      }),
    )
    .withPanel(
      timeseries(ids, "Manifests applied and pending", {
        description: "Manifests of the current pass applied and still pending, by release (cluster_version_payload).",
        width: 9,
        queries: [{ expr: `max by (version, type) (cluster_version_payload{${SEL}})`, legend: "{{version}} {{type}}" }],
      }),
    )
    .withPanel(
      timeseries(ids, "Sync passes per minute", {
        description: "Passes over the whole release by mode (Initializing, Updating, Reconciling) and result (syncworker_sync_attempts_total).",
        width: 9,
        unit: "opm",
        queries: [{ expr: `60 * sum by (mode, result) (rate(syncworker_sync_attempts_total{${SEL}}[${RATE}]))`, legend: "{{mode}} {{result}}" }],
      }),
    );

  dashboard
    .withRow(row(ids, "Components"))
    .withPanel(
      timeseries(ids, "Component durations", {
        description:
          "How long each component (run level/component) of the current pass took, or has taken so far while it runs: the update's pass during an update, else the latest reconcile pass's (syncworker_component_duration_seconds).",
        width: 16,
        height: 9,
        unit: "s",
        queries: [{ expr: `max by (run_level, component) (syncworker_component_duration_seconds{${SEL}})`, legend: "{{run_level}}/{{component}}" }],
      }),
    )
    .withPanel(
      table(ids, "Slowest components now", {
        description: "The components of the current pass by duration, longest first.",
        width: 8,
        height: 9,
        unit: "s",
        queries: [{ expr: `sort_desc(topk(10, max by (run_level, component) (syncworker_component_duration_seconds{${SEL}})))` }],
      }),
    );

  dashboard
    .withRow(row(ids, "Apply latency"))
    .withPanel(
      timeseries(ids, "Manifest apply time", {
        description: "Time to apply one manifest, retries, backoff and readiness waits included (syncworker_task_duration_seconds).",
        width: 8,
        unit: "s",
        queries: quantiles("syncworker_task_duration_seconds_bucket"),
      }),
    )
    .withPanel(
      timeseries(ids, "Manifest apply time p95 by kind", {
        description: "The 95th percentile of the apply time, by Kubernetes kind.",
        width: 8,
        unit: "s",
        queries: [
          {
            expr: `histogram_quantile(0.95, sum by (kind, le) (rate(syncworker_task_duration_seconds_bucket{${SEL}}[${RATE}])))`,
            legend: "{{kind}}",
          },
        ],
      }),
    )
    .withPanel(
      timeseries(ids, "Manifests applied per second", {
        description: "Manifests applied, by kind (syncworker_task_duration_seconds_count, result=applied).",
        width: 8,
        unit: "ops",
        queries: [{ expr: `sum by (kind) (rate(syncworker_task_duration_seconds_count{${SEL}, result="applied"}[${RATE}]))`, legend: "{{kind}}" }],
      }),
    );

  dashboard
    .withRow(row(ids, "Retries and failures"))
    .withPanel(
      timeseries(ids, "Manifest retries per second", {
        description: "Apply attempts after a manifest's first, by kind (syncworker_task_retries_total); 0 for each kind applied without one.",
        width: 8,
        unit: "ops",
        queries: [
          {
            // A kind's retry series exists from its first retry on: the kinds applied in the window fill in as 0, so a
            // healthy sync shows zeros rather than no data.
            expr: `sum by (kind) (rate(syncworker_task_retries_total{${SEL}}[${RATE}])) or 0 * sum by (kind) (rate(syncworker_task_duration_seconds_count{${SEL}}[${RATE}]))`,
            legend: "{{kind}}",
          },
        ],
      }),
    )
    .withPanel(
      timeseries(ids, "Failed attempts and manifests", {
        description:
          "Failed apply attempts by release (cluster_operator_payload_errors, which only grows), and manifests that ended failed by kind (a ClusterOperator not yet at its version counts while it is awaited).",
        width: 8,
        unit: "ops",
        queries: [
          { expr: `sum by (version) (rate(cluster_operator_payload_errors{${SEL}}[${RATE}]))`, legend: "failed attempts {{version}}" },
          { expr: `sum by (kind) (rate(syncworker_task_duration_seconds_count{${SEL}, result="failed"}[${RATE}]))`, legend: "failed {{kind}}" },
        ],
      }),
    )
    .withPanel(
      stat(ids, "Update deadlines", {
        description: "Whether the update passed its progress or total deadline (syncworker_update_deadline_exceeded); SyncWorkerUpdateDeadlineExceeded fires.",
        width: 8,
        height: 8,
        text: BigValueTextMode.ValueAndName,
        queries: [{ expr: `max by (deadline) (syncworker_update_deadline_exceeded{${SEL}})`, legend: "{{deadline}}" }],
      }).mappings(states({ "0": { text: "within", color: "green" }, "1": { text: "passed", color: "red" } })),
    );

  dashboard
    .withRow(row(ids, "Status watchers"))
    .withPanel(
      timeseries(ids, "Open StatusWatch streams", {
        description: "StatusWatch streams open now, by replica (syncworker_status_watch_streams).",
        width: 8,
        queries: [{ expr: `sum by (instance) (syncworker_status_watch_streams{${SEL}})`, legend: "{{instance}}" }],
      }),
    )
    .withPanel(
      timeseries(ids, "Snapshot delivery time", {
        description: "From a status snapshot's publication to its write to one stream completing (syncworker_status_watch_delivery_seconds).",
        width: 8,
        unit: "s",
        queries: quantiles("syncworker_status_watch_delivery_seconds_bucket"),
      }),
    )
    .withPanel(
      timeseries(ids, "Snapshots coalesced per second", {
        description:
          "Snapshots a watcher was not sent because a newer one replaced them first: a slow watcher gets the newest (syncworker_status_snapshots_coalesced_total).",
        width: 8,
        unit: "ops",
        queries: [{ expr: `sum by (instance) (rate(syncworker_status_snapshots_coalesced_total{${SEL}}[${RATE}]))`, legend: "{{instance}}" }],
      }),
    );

  dashboard
    .withRow(row(ids, "gRPC"))
    .withPanel(
      timeseries(ids, "Requests per second", {
        description: "RPCs completed, by method (grpc_server_handled_total).",
        width: 8,
        unit: "reqps",
        queries: [{ expr: `sum by (grpc_method) (rate(grpc_server_handled_total{${SEL}}[${RATE}]))`, legend: "{{grpc_method}}" }],
      }),
    )
    .withPanel(
      timeseries(ids, "Errors per second", {
        description: "RPCs that ended with a code other than OK, by method and code (grpc_server_handled_total).",
        width: 8,
        unit: "reqps",
        queries: [
          {
            expr: `sum by (grpc_method, grpc_code) (rate(grpc_server_handled_total{${SEL}, grpc_code!="OK"}[${RATE}]))`,
            legend: "{{grpc_method}} {{grpc_code}}",
          },
        ],
      }),
    )
    .withPanel(
      timeseries(ids, "Unary call time p95", {
        description:
          "The 95th percentile of unary calls' time on the server, by method (grpc_server_handling_seconds; streams are left out, their time is their life).",
        width: 8,
        unit: "s",
        queries: [
          {
            expr: `histogram_quantile(0.95, sum by (grpc_method, le) (rate(grpc_server_handling_seconds_bucket{${SEL}, grpc_type="unary"}[${RATE}])))`,
            legend: "{{grpc_method}}",
          },
        ],
      }),
    );

  dashboard
    .withRow(row(ids, "Leadership and pause"))
    .withPanel(
      stat(ids, "Role", {
        description: "Each replica's role (syncworker_leader): the leader runs the worker, a standby serves reads and waits for the Lease.",
        width: 8,
        text: BigValueTextMode.ValueAndName,
        queries: [{ expr: `max by (instance) (syncworker_leader{${SEL}})`, legend: "{{instance}}" }],
      }).mappings(states({ "0": { text: "standby", color: "blue" }, "1": { text: "leader", color: "green" } })),
    )
    .withPanel(
      stat(ids, "Paused", {
        description: "Whether the update is paused (PauseUpdate, or a deadline with on_deadline PAUSE): syncworker_update_paused.",
        width: 4,
        queries: [{ expr: `max(syncworker_update_paused{${SEL}})`, legend: "paused" }],
      }).mappings(states({ "0": { text: "running", color: "green" }, "1": { text: "paused", color: "orange" } })),
    )
    .withPanel(
      stat(ids, "Replicas scraped", {
        description: "Replicas Prometheus scrapes successfully (up); SyncWorkerDown fires when none is.",
        width: 4,
        queries: [{ expr: `sum(up{${SEL}})`, legend: "up" }],
      }),
    )
    .withPanel(
      timeseries(ids, "Leader and pause over time", {
        description: "Which replica led, and when the update was paused.",
        width: 8,
        queries: [
          { expr: `max by (instance) (syncworker_leader{${SEL}})`, legend: "leader {{instance}}" },
          { expr: `max(syncworker_update_paused{${SEL}})`, legend: "paused" },
        ],
      }),
    );

  dashboard
    .withRow(row(ids, "Alerts"))
    .withPanel(
      stat(ids, "Firing alerts", {
        description: `Alerts of deploy/prometheusrule.yaml firing now (${alerts.join(", ")}).`,
        width: 6,
        // count() of nothing is no series at all: `or vector(0)` shows 0 when none fires instead of "No data".
        queries: [{ expr: `count(${firing}) or vector(0)`, legend: "firing" }],
      }).thresholds(redFrom(1)),
    )
    .withPanel(
      table(ids, "Firing alerts", {
        description: "Each alert of deploy/prometheusrule.yaml firing now, with its labels.",
        width: 18,
        hide: ["Value", "alertstate"],
        queries: [{ expr: firing }],
      }),
    );
  return dashboard.build();
}

/** The dashboard as JSON text, two-space indented: what Grafana imports and the ConfigMap carries. */
export function dashboardJson(dashboard: Dashboard): string {
  return `${JSON.stringify(dashboard, null, 2)}\n`;
}

/** What deploy/grafana-dashboard.yaml starts with: where it comes from and how it is installed. */
const HEADER = `Generated by scripts/gen-dashboard.ts (Grafana Foundation SDK, scripts/grafana-dashboard.ts): do not edit.
Regenerate with \`node --import tsx scripts/gen-dashboard.ts\`; \`npm run check\` fails while this file differs.
Grafana's dashboard sidecar (e.g. kube-prometheus-stack's grafana.sidecar.dashboards) loads every ConfigMap
labelled grafana_dashboard: "1" in the namespaces it watches, Grafana's own by default, hence not in
kustomization.yaml: kubectl apply -n monitoring -f deploy/grafana-dashboard.yaml (docs/operations.md).`;

/** The ConfigMap the sidecar loads: the dashboard's JSON under {@link DASHBOARD_KEY}, as YAML text. */
export function dashboardConfigMap(dashboard: Dashboard): string {
  const doc = new Document({
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: {
      name: "syncworker-grafana-dashboard",
      labels: { grafana_dashboard: "1", "app.kubernetes.io/name": "syncworker" },
    },
    data: { [DASHBOARD_KEY]: dashboardJson(dashboard) },
  });
  doc.commentBefore = HEADER.split("\n")
    .map((line) => ` ${line}`)
    .join("\n");
  return doc.toString({ lineWidth: 0 });
}
