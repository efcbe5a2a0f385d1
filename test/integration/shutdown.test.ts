// SIGTERM is not held up by clients of the HTTP listeners: a connection to the admin or metrics port that sends
// nothing, or half a request, is closed by the shutdown instead of holding it until the server's headers timeout
// (60 s, beyond a deployment's grace period).
import assert from "node:assert/strict";
import { once } from "node:events";
import { connect, type Socket } from "node:net";
import { test } from "node:test";
import { startServer } from "../harness/server.js";

/** A connection to `address` (`HOST:PORT`) that has sent `text` and nothing more. */
async function stalled(address: string, text: string): Promise<Socket> {
  const at = new URL(`http://${address}`);
  const socket = connect(Number(at.port), at.hostname.replace(/^\[|\]$/g, ""));
  await once(socket, "connect");
  if (text) socket.write(text);
  return socket;
}

test("SIGTERM closes idle and half-sent requests on the admin and metrics ports and exits 0", { timeout: 120_000 }, async () => {
  const server = await startServer(["--admin-listen", "127.0.0.1:0", "--metrics-listen", "127.0.0.1:0"]);
  const sockets = await Promise.all([
    stalled(server.adminAddress, ""),
    stalled(server.adminAddress, "GET /healthz HTTP/1.1\r\nHost: x\r\n"),
    stalled(server.metricsAddress, "GET /metrics HTTP/1.1\r\n"),
  ]);
  const closed = sockets.map((socket) => once(socket, "close"));
  // The harness SIGKILLs a server that has not stopped within a deployment's grace period (30 s), and fails.
  assert.equal(await server.stop(), 0);
  await Promise.all(closed);
});
