import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Registry } from "prom-client";

/** A running `/metrics` endpoint. */
export interface MetricsServer {
  /** The bound `HOST:PORT` (IPv6 hosts in brackets). */
  readonly address: string;
  close(): Promise<void>;
}

/**
 * Serves `registry` at `/metrics` on `address` (`HOST:PORT`, port 0 picks a free port), apart from the admin
 * endpoints so Prometheus can be given a port that exposes nothing else.
 */
export async function startMetricsServer(address: string, registry: Registry): Promise<MetricsServer> {
  const server: Server = createServer((req, res) => {
    if (req.url !== "/metrics" && !req.url?.startsWith("/metrics?")) return void res.writeHead(404, { "content-type": "text/plain" }).end("not found");
    registry.metrics().then(
      (text) => res.writeHead(200, { "content-type": registry.contentType }).end(text),
      (err: unknown) => res.writeHead(500, { "content-type": "text/plain" }).end(String(err)),
    );
  });
  const colon = address.lastIndexOf(":");
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(Number(address.slice(colon + 1)), address.slice(0, colon).replace(/^\[(.*)\]$/, "$1"), resolve);
  });
  const info = server.address() as AddressInfo;
  return {
    address: info.family === "IPv6" ? `[${info.address}]:${info.port}` : `${info.address}:${info.port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
