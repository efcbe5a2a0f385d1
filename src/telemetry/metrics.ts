import { collectDefaultMetrics, Counter, Gauge, Histogram, type Registry } from "prom-client";
import type { ApiMetrics } from "../api/index.js";
import type { KubeClientOptions } from "../cluster/kube/http.js";
import type { LiveCacheMetrics } from "../cluster/kube/live-cache.js";
import type { EventSinkMetrics } from "../events/index.js";
import type { FleetMetrics } from "../fleet/index.js";
import type { MetricsSink } from "../worker/index.js";

// Seconds; manifests apply in milliseconds but retries with backoff take tens of seconds.
const TASK_BUCKETS = [0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 15, 30, 60, 300];
const LOAD_BUCKETS = [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
const RPC_BUCKETS = [0.0005, 0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 30];
// A watcher expects a snapshot within tens of milliseconds; the upper buckets catch a stalled stream.
const DELIVERY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10];

/**
 * The worker's metrics in a given registry (never the global one). The CVO's two keep its names;
 * the others are `syncworker_*`; release creation times go to `clusterVersionMetrics`. Labels are bounded: version (one or two live at a time, as upstream),
 * mode, result and Kubernetes kind, never object names.
 * @param now wall clock in milliseconds, read at scrape time for the time since the last successful sync
 */
export function workerMetrics(registry: Registry, now: () => number = Date.now): Omit<MetricsSink, "releaseLoaded"> {
  const registers = [registry];
  const payload = new Gauge({
    name: "cluster_version_payload",
    help: "Report the number of entries in the payload.",
    labelNames: ["version", "type"] as const,
    registers,
  });
  // A gauge that only grows, as upstream declares it (pkg/payload/task.go), so its TYPE matches the CVO's.
  const payloadErrors = new Gauge({
    name: "cluster_operator_payload_errors",
    help: "Report the number of errors encountered applying the payload.",
    labelNames: ["version"] as const,
    registers,
  });
  const attempts = new Counter({
    name: "syncworker_sync_attempts_total",
    help: "Sync attempts (whole apply passes) by mode and result.",
    labelNames: ["mode", "result"] as const,
    registers,
  });
  let lastSuccess: number | undefined;
  new Gauge({
    name: "syncworker_seconds_since_last_successful_sync",
    help: "Seconds since the last sync attempt that applied the whole payload; absent before the first.",
    registers,
    collect() {
      // Computed at scrape time so it grows between syncs without a timer.
      if (lastSuccess === undefined) this.reset();
      else this.set((now() - lastSuccess) / 1000);
    },
  });
  const taskDuration = new Histogram({
    name: "syncworker_task_duration_seconds",
    help: "Time to apply one manifest, retries and backoff included, by kind and result.",
    labelNames: ["kind", "result"] as const,
    buckets: TASK_BUCKETS,
    registers,
  });
  const retries = new Counter({
    name: "syncworker_task_retries_total",
    help: "Manifest apply attempts after the first, by kind.",
    labelNames: ["kind"] as const,
    registers,
  });
  const load = new Histogram({
    name: "syncworker_payload_load_duration_seconds",
    help: "Time to retrieve and load a release payload, by result.",
    labelNames: ["result"] as const,
    buckets: LOAD_BUCKETS,
    registers,
  });
  const deadlines = new Gauge({
    name: "syncworker_update_deadline_exceeded",
    help: "1 while the update's deadline of this kind (progress: no manifest applied for progress_deadline; total) has passed, else 0.",
    labelNames: ["deadline"] as const,
    registers,
  });
  const deadlinesPassed = new Counter({
    name: "syncworker_update_deadlines_exceeded_total",
    help: "Update deadlines that passed, by kind (progress, total).",
    labelNames: ["deadline"] as const,
    registers,
  });
  for (const deadline of ["progress", "total"]) deadlines.set({ deadline }, 0);
  return {
    payloadProgress: (version, pending, applied) => {
      payload.set({ version, type: "pending" }, pending);
      payload.set({ version, type: "applied" }, applied);
    },
    payloadError: (version) => payloadErrors.inc({ version }),
    syncAttempt: (mode, result, at) => {
      attempts.inc({ mode, result });
      if (result === "success") lastSuccess = at.getTime();
    },
    taskDone: (kind, result, seconds) => taskDuration.observe({ kind, result }, seconds),
    taskRetry: (kind) => retries.inc({ kind }),
    payloadLoad: (result, seconds) => load.observe({ result }, seconds),
    deadlineExceeded: (kind, exceeded) => {
      const deadline = kind.toLowerCase();
      deadlines.set({ deadline }, exceeded ? 1 : 0);
      if (exceeded) deadlinesPassed.inc({ deadline });
    },
  };
}

/**
 * prom-client's process and Node.js metrics, without its three `nodejs_active_*_total` gauges: a `_total` suffix
 * marks a counter in Prometheus's conventions (promtool flags them), and each is the sum of the per-type
 * `nodejs_active_*` gauge that stays.
 */
export function processMetrics(registry: Registry): void {
  collectDefaultMetrics({ register: registry });
  for (const name of ["nodejs_active_handles_total", "nodejs_active_requests_total", "nodejs_active_resources_total"]) registry.removeSingleMetric(name);
}

/** gRPC server call metrics (the go-grpc-prometheus names) and open StatusWatch streams. */
export function apiMetrics(registry: Registry): ApiMetrics {
  const registers = [registry];
  const handled = new Counter({
    name: "grpc_server_handled_total",
    help: "RPCs completed on the server, by method and status code.",
    labelNames: ["grpc_service", "grpc_method", "grpc_type", "grpc_code"] as const,
    registers,
  });
  const latency = new Histogram({
    name: "grpc_server_handling_seconds",
    help: "Time from receiving an RPC to its completion on the server (a stream's whole life).",
    labelNames: ["grpc_service", "grpc_method", "grpc_type"] as const,
    buckets: RPC_BUCKETS,
    registers,
  });
  const streams = new Gauge({ name: "syncworker_status_watch_streams", help: "StatusWatch streams open now.", registers });
  const delivery = new Histogram({
    name: "syncworker_status_watch_delivery_seconds",
    help: "Time from a status snapshot's publication (or the stream's start, if later) to its write to one StatusWatch stream completing.",
    buckets: DELIVERY_BUCKETS,
    registers,
  });
  return {
    handled: (service, method, type, code, seconds) => {
      handled.inc({ grpc_service: service, grpc_method: method, grpc_type: type, grpc_code: code });
      latency.observe({ grpc_service: service, grpc_method: method, grpc_type: type }, seconds);
    },
    watchStreams: (delta) => streams.inc(delta),
    watchDelivered: (seconds) => delivery.observe(seconds),
  };
}

/** Counts status snapshots a watcher skipped because a newer one superseded them before it was sent. */
export function coalescedSnapshots(registry: Registry): (skipped: number) => void {
  const counter = new Counter({
    name: "syncworker_status_snapshots_coalesced_total",
    help: "Status snapshots not sent to a watcher because a newer one replaced them first (summed over watchers).",
    registers: [registry],
  });
  return (skipped) => counter.inc(skipped);
}

/** The real cluster's live-object cache: objects held, watch restarts, drift seen. */
export function liveCacheMetrics(registry: Registry): LiveCacheMetrics {
  const registers = [registry];
  const objects = new Gauge({ name: "syncworker_cache_objects", help: "Live objects held by the watch cache, over every watched kind.", registers });
  const restarts = new Counter({
    name: "syncworker_cache_watch_restarts_total",
    help: "Watches of the live-object cache that ended and were started again; relist=true when a list had to come first (410 Gone).",
    labelNames: ["kind", "relist"],
    registers,
  });
  const drift = new Counter({
    name: "syncworker_cache_drift_events_total",
    help: "Managed objects changed or deleted by someone else.",
    labelNames: ["kind"],
    registers,
  });
  return {
    objects: (count) => objects.set(count),
    watchRestart: (kind, relist) => restarts.inc({ kind, relist: String(relist) }),
    drift: (kind) => drift.inc({ kind }),
  };
}

/**
 * The kube client's answers (count and time by verb and code, as client-go's `rest_client_requests_total` and
 * `rest_client_request_duration_seconds`), its 429s and the rate ceiling it paces itself at after them.
 */
export function kubeClientMetrics(registry: Registry): Required<Pick<KubeClientOptions, "onThrottled" | "onAnswer">> {
  const registers = [registry];
  const throttled = new Counter({ name: "syncworker_kube_client_throttled_total", help: "429 answers from the API server.", registers });
  const ceiling = new Gauge({
    name: "syncworker_kube_client_rate_ceiling",
    help: "Requests per second the client paced itself at after its last 429 (0: a fixed --kube-qps).",
    registers,
  });
  const answered = new Histogram({
    name: "syncworker_kube_request_duration_seconds",
    help: "Time from sending a request to the API server to reading its whole answer, by verb and status code.",
    labelNames: ["verb", "code"],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers,
  });
  return {
    onThrottled: (limit) => {
      throttled.inc();
      ceiling.set(limit ?? 0);
    },
    onAnswer: (verb, code, seconds) => answered.observe({ verb, code: String(code) }, seconds),
  };
}

/** The `--event-sink` deliveries, by sink URL (a handful at most, so a bounded label). */
export function eventSinkMetrics(registry: Registry): EventSinkMetrics {
  const registers = [registry];
  const delivery = new Histogram({
    name: "syncworker_event_delivery_seconds",
    help: "Time from the status snapshot an event was made from to the sink acknowledging it, retries included.",
    labelNames: ["sink"],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
    registers,
  });
  const retries = new Counter({ name: "syncworker_event_retries_total", help: "Failed event deliveries that are retried.", labelNames: ["sink"], registers });
  const drops = new Counter({
    name: "syncworker_events_dropped_total",
    help: "Events lost: pushed out of a full queue, or refused by the sink (a 4xx other than 408 and 429).",
    labelNames: ["sink", "why"],
    registers,
  });
  const queue = new Gauge({ name: "syncworker_event_queue_length", help: "Events waiting for delivery.", labelNames: ["sink"], registers });
  return {
    delivered: (sink, seconds) => delivery.observe({ sink }, seconds),
    retried: (sink) => retries.inc({ sink }),
    dropped: (sink, why) => drops.inc({ sink, why }),
    queued: (sink, length) => queue.set({ sink }, length),
  };
}

/** The fleet controller's reconciles, its calls to members, the members of each rollout by state, and its leadership. */
export function fleetMetrics(registry: Registry): FleetMetrics {
  const registers = [registry];
  const reconciles = new Histogram({
    name: "syncworker_fleet_reconcile_seconds",
    help: "Time to plan a rollout and write its status, by result: written, unchanged, conflict (a stale copy), error.",
    labelNames: ["result"],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers,
  });
  const members = new Gauge({
    name: "syncworker_fleet_members",
    help: "Members of each rollout by state (total, pending, updating, succeeded, failed, unavailable, blocked), as last planned.",
    labelNames: ["rollout", "state"],
    registers,
  });
  const calls = new Counter({
    name: "syncworker_fleet_member_calls_total",
    help: "Calls to members' syncworkers by kind (pin, start, pause, resume, cancel) and outcome (ok, refused, unreachable).",
    labelNames: ["call", "outcome"],
    registers,
  });
  const leader = new Gauge({ name: "syncworker_fleet_leader", help: "1 while this replica leads the fleet (drives members and writes status).", registers });
  const shown = new Map<string, Set<string>>();
  return {
    reconcile: (result, seconds) => reconciles.observe({ result }, seconds),
    members: (rollout, counts) => {
      for (const state of shown.get(rollout) ?? []) if (!(state in counts)) members.remove({ rollout, state });
      for (const [state, count] of Object.entries(counts)) members.set({ rollout, state }, count);
      shown.set(rollout, new Set(Object.keys(counts)));
    },
    memberCall: (call, outcome) => calls.inc({ call, outcome }),
    leading: (leads) => leader.set(leads ? 1 : 0),
  };
}
