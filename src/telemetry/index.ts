// Telemetry at the edges: OpenTelemetry tracing from the OTEL_* variables, Prometheus metrics in an
// injected registry, and the log mixin that ties log lines to spans.
export { startTracing, traceLogMixin, type TracingSetup } from "./tracing.js";
export {
  apiMetrics,
  coalescedSnapshots,
  eventSinkMetrics,
  fleetMetrics,
  kubeClientMetrics,
  liveCacheMetrics,
  processMetrics,
  workerMetrics,
} from "./metrics.js";
export { clusterVersionMetrics, type ClusterVersionSource } from "./cluster-version-metrics.js";
export { startMetricsServer, type HttpEndpoint, type MetricsSource } from "./metrics-server.js";
export { startAdminServer, type AdminEndpoints } from "./admin-server.js";

// Symbols below are library-internal, exported for tests.
export { cleanAttributes, otelTracing, otlpProtocol, tracesExporters, type OtlpProtocol } from "./tracing.js";
export { capabilitySeries, clusterVersionSeries, operatorConditionSeries, operatorUpSeries, type Sample } from "./cluster-version-metrics.js";
