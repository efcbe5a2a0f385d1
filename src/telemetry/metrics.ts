import { Counter, Gauge, type Registry } from "prom-client";
import type { MetricsSink } from "../worker/index.js";

/** The worker's metrics in a given registry (never the global one), named as the CVO names them. */
export function workerMetrics(registry: Registry): MetricsSink {
  const payload = new Gauge({
    name: "cluster_version_payload",
    help: "Report the number of entries in the payload.",
    labelNames: ["version", "type"] as const,
    registers: [registry],
  });
  const payloadErrors = new Counter({
    name: "cluster_operator_payload_errors",
    help: "Report the number of errors encountered applying the payload.",
    labelNames: ["version"] as const,
    registers: [registry],
  });
  return {
    payloadProgress: (version, pending, applied) => {
      payload.set({ version, type: "pending" }, pending);
      payload.set({ version, type: "applied" }, applied);
    },
    payloadError: (version) => payloadErrors.inc({ version }),
  };
}
