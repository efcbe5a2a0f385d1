import type { IncomingMessage, ServerResponse } from "node:http";
import { PACKAGE_VERSION, type HostPort } from "../config/index.js";
import { isMetricsPath, sendMetrics, sendText, serveHttp, type HttpEndpoint, type MetricsSource } from "./metrics-server.js";

export interface AdminEndpoints {
  /** The role this replica holds while it serves, undefined once it is shutting down. */
  readonly ready: () => string | undefined;
  readonly metrics: MetricsSource;
  /** The embedded cluster's objects at `/debug/embedded/objects`; absent: no such route (`--debug-endpoints` off). */
  readonly objects?: () => unknown[];
  /** The live update page and its stream (src/api/page.ts): answers and returns true for its own routes. */
  readonly page?: (req: IncomingMessage, res: ServerResponse) => boolean;
}

/**
 * Serves `--admin-listen`: liveness, readiness, Prometheus metrics (answered as the metrics server answers) and,
 * when given, a read-only view of the embedded cluster's objects.
 */
export function startAdminServer(at: HostPort, { ready, metrics, objects, page }: AdminEndpoints): Promise<HttpEndpoint> {
  return serveHttp(at, (req, res) => {
    if (req.url === "/healthz") return sendText(res, 200, "ok");
    if (req.url === "/readyz") {
      // A standby is ready too: it serves reads. The body says which role it holds and which release runs.
      const role = ready();
      return role ? sendText(res, 200, `ok: ${role}, version ${PACKAGE_VERSION}`) : sendText(res, 503, "shutting down");
    }
    if (isMetricsPath(req.url)) return sendMetrics(metrics, res);
    if (req.url === "/debug/embedded/objects" && objects) return sendText(res, 200, JSON.stringify(objects()), "application/json");
    if (page?.(req, res)) return;
    return sendText(res, 404, "not found");
  });
}
