import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { Registry } from "prom-client";
import { formatHostPort, type HostPort } from "../config/index.js";

/** A running HTTP endpoint of `serve` (`/metrics` alone, or the admin endpoints). */
export interface HttpEndpoint {
  /** The bound `HOST:PORT` (IPv6 hosts in brackets). */
  readonly address: string;
  close(): Promise<void>;
}

/** What a scrape reads; a registry, or a fake in tests. */
export type MetricsSource = Pick<Registry, "metrics" | "contentType">;

/** Binds an HTTP server to `at` (port 0 picks a free port); resolves with the bound `HOST:PORT`. */
export async function listenHttp(server: Server, at: HostPort): Promise<string> {
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(at.port, at.host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const info = server.address() as AddressInfo;
  return formatHostPort({ host: info.address, port: info.port });
}

/**
 * Stops `server` at once: no new connections, and every open one ends, idle or with a request half sent
 * (`close` alone waits for those, a half-sent request up to the 60 s headers timeout, holding up shutdown).
 */
export function closeHttp(server: Server): Promise<void> {
  return new Promise<void>((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}

/** Serves `handle` on `at` until closed. */
export async function serveHttp(at: HostPort, handle: (req: IncomingMessage, res: ServerResponse) => void): Promise<HttpEndpoint> {
  const server = createServer(handle);
  return { address: await listenHttp(server, at), close: () => closeHttp(server) };
}

/** One whole answer, plain text unless `type` says otherwise. */
export function sendText(res: ServerResponse, code: number, body: string, type = "text/plain"): void {
  res.writeHead(code, { "content-type": type }).end(body);
}

/** `/metrics`, with or without a query string (Prometheus may add one). */
export function isMetricsPath(url: string | undefined): boolean {
  return url === "/metrics" || url?.startsWith("/metrics?") === true;
}

/** Answers a scrape; a collection that fails is a 500 naming why, not an unhandled rejection. */
export function sendMetrics(metrics: MetricsSource, res: ServerResponse): void {
  metrics.metrics().then(
    (text) => sendText(res, 200, text, metrics.contentType),
    (err: unknown) => sendText(res, 500, String(err)),
  );
}

/**
 * Serves `metrics` at `/metrics` on `at` (port 0 picks a free port), apart from the admin endpoints so
 * Prometheus can be given a port that exposes nothing else.
 */
export function startMetricsServer(at: HostPort, metrics: MetricsSource): Promise<HttpEndpoint> {
  return serveHttp(at, (req, res) => (isMetricsPath(req.url) ? sendMetrics(metrics, res) : sendText(res, 404, "not found")));
}
