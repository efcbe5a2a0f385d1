import { Gauge, type Registry } from "prom-client";
import type { KubeObject } from "../payload/index.js";
import { isKnownCapability } from "../policy/index.js";
import type { Condition, HistoryEntry, ServiceStatus } from "../status/index.js";
import type { MetricsSink } from "../worker/index.js";

/** One gauge sample: its labels and value. */
export interface Sample<L extends string> {
  readonly labels: Readonly<Record<L, string>>;
  readonly value: number;
}

type VersionLabel = "type" | "version" | "image" | "from_version";

/** What the CVO's metrics are read from at scrape time. */
export interface ClusterVersionSource {
  /** The service's latest status (its ClusterVersion: history, conditions; the worker's release and capabilities). */
  status(): ServiceStatus;
  /** The cluster's ClusterOperators as last seen. */
  operators(): readonly KubeObject[];
  /** "leader" runs the worker and writes to the cluster (always, without an elector); "standby" serves reads. */
  role(): "leader" | "standby";
}

const seconds = (at: Date | undefined): number => (at ? Math.floor(at.getTime() / 1000) : 0);
const isSet = (c: { readonly status: string }): boolean => c.status === "True" || c.status === "False";
const newestCompleted = (history: readonly HistoryEntry[], from = 0): HistoryEntry | undefined => history.slice(from).find((h) => h.state === "Completed");

/**
 * `cluster_version{type, version, image, from_version}` as the CVO derives it from its ClusterVersion (its
 * `Collect`). Our ClusterVersion begins with the first release the service took, so the oldest history entry's
 * start stands for its creation time; before that only `current` can show. The worker's release is `current`, and
 * its value the release's creation time (0 when the payload does not say, as upstream).
 */
export function clusterVersionSeries({ worker, clusterVersion }: ServiceStatus, releaseCreated: Date | undefined): Sample<VersionLabel>[] {
  const { history, conditions } = clusterVersion;
  const current = worker.actual;
  const completedIndex = history.findIndex((h) => h.state === "Completed");
  const completed = history[completedIndex];
  const series: Sample<VersionLabel>[] = [];
  const add = (type: string, version: string, image: string, from: string, value: number): void => {
    series.push({ labels: { type, version, image, from_version: from }, value });
  };
  if (current.image) add("current", current.version, current.image, completed?.version ?? "", seconds(releaseCreated));
  const initial = history.at(-1);
  if (!initial) return series;
  const created = seconds(initial.startedTime);
  if (completed)
    add("completed", completed.version, completed.image, newestCompleted(history, completedIndex + 1)?.version ?? "", seconds(completed.completionTime));
  add("initial", initial.version, initial.image, "", created);
  // A cluster that never reached a release is still installing: no initial version, so it can be told apart.
  add("cluster", current.version, current.image, completed ? initial.version : "", created);
  const desired = worker.loadPayloadStatus.update;
  const pending = desired.image !== "" && desired.image !== current.image;
  if (pending) add("desired", desired.version, desired.image, completed?.version ?? "", mostRecent(history, conditions, created));
  const failing = conditions.find((c) => c.type === "Failing");
  if (failing?.status === "True") {
    const target = pending ? desired : current;
    add("failure", target.version, target.image, completed?.version ?? "", seconds(failing.lastTransitionTime));
  }
  const newest = history[0]!;
  if (newest.state === "Partial") add("updating", newest.version, newest.image, completed?.version ?? "", seconds(newest.startedTime));
  return series;
}

/** The latest change the ClusterVersion records (CVO `mostRecentTimestamp`), in seconds. */
function mostRecent(history: readonly HistoryEntry[], conditions: readonly Condition[], created: number): number {
  const newest = history[0];
  const times = [newest?.startedTime, newest?.completionTime, ...conditions.map((c) => c.lastTransitionTime)].map(seconds);
  return Math.max(created, ...times);
}

/**
 * `cluster_version_capability{name}`: 1 for an enabled capability, 0 for one known but not enabled. Only names this
 * release knows: each name is a series, and a state saved before names were checked may hold any number.
 */
export function capabilitySeries({ worker }: ServiceStatus): Sample<"name">[] {
  const enabled = worker.capabilitiesStatus.enabled.filter(isKnownCapability);
  const known = worker.capabilitiesStatus.known.filter(isKnownCapability);
  const on = new Set(enabled);
  return [...enabled.map((name) => ({ labels: { name }, value: 1 })), ...known.filter((name) => !on.has(name)).map((name) => ({ labels: { name }, value: 0 }))];
}

interface OperatorView {
  readonly name: string;
  readonly version: string;
  readonly conditions: readonly { readonly type: string; readonly status: string; readonly reason: string }[];
}

/** A ClusterOperator's name, `operator` version and conditions, read defensively: its status is whatever its operator wrote. */
function operatorView(obj: KubeObject): OperatorView {
  const status = (obj["status"] ?? {}) as {
    versions?: { name?: unknown; version?: unknown }[];
    conditions?: { type?: unknown; status?: unknown; reason?: unknown }[];
  };
  const text = (v: unknown): string => (typeof v === "string" ? v : "");
  const versions = Array.isArray(status.versions) ? status.versions : [];
  const conditions = Array.isArray(status.conditions) ? status.conditions : [];
  return {
    name: obj.metadata?.name ?? "",
    version: text(versions.find((v) => v.name === "operator")?.version),
    conditions: conditions.map((c) => ({ type: text(c.type), status: text(c.status), reason: text(c.reason) })),
  };
}

/**
 * `cluster_operator_up{name, version, reason}`: 1 when Available=True. Every ClusterOperator has a series (reason
 * `NoAvailableCondition` without the condition); the ClusterVersion shows as `version`, labelled with its last
 * completed release, when its Available condition is True or False.
 */
export function operatorUpSeries({ clusterVersion }: ServiceStatus, operators: readonly KubeObject[]): Sample<"name" | "version" | "reason">[] {
  const series: Sample<"name" | "version" | "reason">[] = [];
  const available = clusterVersion.conditions.find((c) => c.type === "Available");
  if (available && isSet(available)) {
    const version = newestCompleted(clusterVersion.history)?.version ?? "";
    series.push({ labels: { name: "version", version, reason: available.reason }, value: available.status === "True" ? 1 : 0 });
  }
  for (const op of operators.map(operatorView)) {
    const condition = op.conditions.find((c) => c.type === "Available");
    series.push({
      labels: { name: op.name, version: op.version, reason: condition ? condition.reason : "NoAvailableCondition" },
      value: condition?.status === "True" ? 1 : 0,
    });
  }
  return series;
}

/** `cluster_operator_conditions{name, condition, reason}`: 1 True, 0 False, Unknown left out; the ClusterVersion as `version`. */
export function operatorConditionSeries({ clusterVersion }: ServiceStatus, operators: readonly KubeObject[]): Sample<"name" | "condition" | "reason">[] {
  const all = [{ name: "version", conditions: clusterVersion.conditions }, ...operators.map(operatorView)];
  return all.flatMap(({ name, conditions }) =>
    conditions.filter(isSet).map((c) => ({ labels: { name, condition: c.type, reason: c.reason }, value: c.status === "True" ? 1 : 0 })),
  );
}

/**
 * `syncworker_component_duration_seconds{run_level, component}`: how long each component of the status's pass took,
 * from its first task to its last (to `now` while it runs). Components not started yet have no series. During an
 * update that is the update's pass; once it completed, the latest reconcile pass's.
 */
export function componentDurationSeries({ worker }: ServiceStatus, now: Date): Sample<"run_level" | "component">[] {
  return worker.components.flatMap(({ runLevel, component, startedAt, finishedAt = now }) => {
    if (!startedAt) return [];
    return [{ labels: { run_level: String(runLevel), component }, value: Math.max(0, finishedAt.getTime() - startedAt.getTime()) / 1000 }];
  });
}

/** Release creation times kept for the `current` series; a few, as a failed load keeps the previous release current. */
const KEPT_RELEASES = 8;

/**
 * The CVO's own metrics (upstream's names, labels and meaning), read from `source` at every scrape as upstream
 * reads its listers, so they always show the latest status. `cluster_version_available_updates` is not among them:
 * upstream shows it only with an update service, available updates or RetrievedUpdates=True, and this service
 * fetches no updates (RetrievedUpdates is always False, NoUpstream). Ours beside them, read the same way: whether the
 * update is paused, this replica's role, and how long each component of the current pass took.
 * @param now wall clock in milliseconds, for the duration of a component still running
 * @returns the worker's sink for release creation times (the `current` series' value)
 */
export function clusterVersionMetrics(registry: Registry, source: ClusterVersionSource, now: () => number = Date.now): Pick<MetricsSink, "releaseLoaded"> {
  const registers = [registry];
  const created = new Map<string, Date>();
  const gauge = <L extends string>(name: string, help: string, labelNames: readonly L[], samples: () => readonly Sample<L>[]): void => {
    new Gauge<L>({
      name,
      help,
      labelNames,
      registers,
      collect() {
        // Series come and go with the status (an operator removed, an update finished): rebuilt at every scrape.
        this.reset();
        for (const s of samples()) this.set(s.labels as Partial<Record<L, string>>, s.value);
      },
    });
  };
  gauge(
    "cluster_version",
    "The cluster's versions as seconds since the epoch: current (the release applied; its creation time), initial, cluster, completed, desired, failure and updating, as the CVO reports them.",
    ["type", "version", "image", "from_version"],
    () => {
      const status = source.status();
      return clusterVersionSeries(status, created.get(status.worker.actual.image));
    },
  );
  gauge("cluster_version_capability", "Capabilities of the cluster: 1 enabled, 0 known but disabled.", ["name"], () => capabilitySeries(source.status()));
  // Ours, not the CVO's: read from the same status, so it cannot disagree with what watchers are shown.
  gauge("syncworker_update_paused", "1 while the update is paused (PauseUpdate), else 0.", [], () => [
    { labels: {}, value: source.status().worker.pause ? 1 : 0 },
  ]);
  gauge(
    "syncworker_leader",
    "1 while this replica leads: it runs the worker and writes to the cluster (always, without --leader-elect); 0 on a standby.",
    [],
    () => [{ labels: {}, value: source.role() === "leader" ? 1 : 0 }],
  );
  gauge(
    "syncworker_component_duration_seconds",
    "Time each component of the current pass took from its first task to its last, or so far while it runs: the update's pass while one runs, else the latest reconcile pass's.",
    ["run_level", "component"],
    () => componentDurationSeries(source.status(), new Date(now())),
  );
  gauge(
    "cluster_operator_up",
    "1 if a ClusterOperator is Available=True, 0 otherwise (reason NoAvailableCondition without one); version is its operator version. name=version is the cluster version itself.",
    ["name", "version", "reason"],
    () => operatorUpSeries(source.status(), source.operators()),
  );
  gauge(
    "cluster_operator_conditions",
    "Conditions of the ClusterOperators and (name=version) of the cluster version: 1 True, 0 False.",
    ["name", "condition", "reason"],
    () => operatorConditionSeries(source.status(), source.operators()),
  );
  return {
    releaseLoaded: (image, at) => {
      created.delete(image);
      if (at) created.set(image, at);
      if (created.size > KEPT_RELEASES) created.delete(created.keys().next().value!);
    },
  };
}
