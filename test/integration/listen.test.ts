// Every listen flag and the CLI's --address take IPv6 in brackets: the service binds [::1], announces it, and the
// CLI and HTTP clients reach it there.
import { test } from "node:test";
import assert from "node:assert/strict";
import { runCli } from "../harness/cli.js";
import { startServer } from "../harness/server.js";

test("serve on [::1]:0: gRPC, admin and metrics bound on IPv6 loopback, announced in brackets and reachable", { timeout: 60_000 }, async () => {
  const server = await startServer(["--listen", "[::1]:0", "--admin-listen", "[::1]:0", "--metrics-listen", "[::1]:0"]);
  try {
    for (const address of [server.address, server.adminAddress, server.metricsAddress]) assert.match(address, /^\[::1\]:[1-9]\d*$/);
    const status = await runCli(["status", "-o", "json", "--address", server.address]);
    assert.equal(status.code, 0, status.stderr);
    assert.ok(Number((JSON.parse(status.stdout) as { revision?: unknown }).revision) >= 1, status.stdout);
    assert.equal(await (await fetch(`http://${server.adminAddress}/healthz`)).text(), "ok");
    assert.match(await (await fetch(`http://${server.metricsAddress}/metrics`)).text(), /^grpc_server_handled_total\{.*grpc_method="GetStatus".*\} 1$/m);
  } finally {
    assert.equal(await server.stop(), 0, server.stderr());
  }
});

test("a bare IPv6 address is refused naming the flag, in serve and in the CLI", { timeout: 60_000 }, async () => {
  const serve = await runCli(["serve", "--listen", "::1:0"]);
  assert.equal(serve.code, 1);
  assert.match(serve.stderr, /--listen: "::1:0" is not HOST:PORT .*in brackets/);
  const status = await runCli(["status", "--address", "::1:50051"]);
  assert.equal(status.code, 1);
  assert.match(status.stderr, /--address: "::1:50051" is not HOST:PORT/);
});
