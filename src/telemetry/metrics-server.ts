import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Registry } from "prom-client";
import { formatHostPort, type HostPort } from "../config/index.js";

/** A running `/metrics` endpoint. */
export interface MetricsServer {
  /** The bound `HOST:PORT` (IPv6 hosts in brackets). */
  readonly address: string;
  close(): Promise<void>;
}

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

/**
 * Serves `registry` at `/metrics` on `at` (port 0 picks a free port), apart from the admin endpoints so
 * Prometheus can be given a port that exposes nothing else.
 */
export async function startMetricsServer(at: HostPort, registry: Registry): Promise<MetricsServer> {
  const server: Server = createServer((req, res) => {
    if (req.url !== "/metrics" && !req.url?.startsWith("/metrics?")) return void res.writeHead(404, { "content-type": "text/plain" }).end("not found");
    registry.metrics().then(
      (text) => res.writeHead(200, { "content-type": registry.contentType }).end(text),
      (err: unknown) => res.writeHead(500, { "content-type": "text/plain" }).end(String(err)),
    );
  });
  return {
    address: await listenHttp(server, at),
    close: () => closeHttp(server),
  };
}
