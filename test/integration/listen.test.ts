// Every listen flag and the CLI's --address take IPv6 in brackets: the service binds [::1], announces it, and the
// CLI and HTTP clients reach it there. A listener that cannot bind stops `serve` naming it.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createServer } from "node:net";
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
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

test("a bare IPv6 address is refused naming the flag, in serve and in the CLI (a usage error, exit 2)", { timeout: 60_000 }, async () => {
  const serve = await runCli(["serve", "--listen", "::1:0"]);
  assert.equal(serve.code, 2);
  assert.match(serve.stderr, /--listen: "::1:0" is not HOST:PORT .*in brackets/);
  const status = await runCli(["status", "--address", "::1:50051"]);
  assert.equal(status.code, 2);
  assert.match(status.stderr, /--address: "::1:50051" is not HOST:PORT/);
});

test("serve exits 1 when any listener cannot bind, naming the flag, the address and why", { timeout: 120_000 }, async () => {
  const taken = createServer();
  await new Promise<void>((resolve) => taken.listen(0, "127.0.0.1", resolve));
  const busy = `127.0.0.1:${(taken.address() as { port: number }).port}`;
  try {
    const state = await mkdtemp(join(tmpdir(), "syncworker-state-"));
    const cases = [
      { flags: ["--listen", busy], line: `--listen ${busy}: cannot listen: the address is already in use (EADDRINUSE)` },
      { flags: ["--listen", "127.0.0.1:0", "--admin-listen", busy], line: `--admin-listen ${busy}: cannot listen: the address is already in use (EADDRINUSE)` },
      {
        flags: ["--listen", "127.0.0.1:0", "--metrics-listen", busy],
        line: `--metrics-listen ${busy}: cannot listen: the address is already in use (EADDRINUSE)`,
      },
    ];
    // One after the other: they share the state directory, which one process holds at a time.
    for (const { flags, line } of cases) {
      const run = await runCli(["serve", "--state-dir", state, ...flags]);
      assert.equal(run.code, 1, `${flags.join(" ")}: ${run.stderr}`);
      assert.equal(run.stdout, "", "nothing announced");
      const plain = run.stderr.split("\n").filter((l) => l !== "" && !l.startsWith("{"));
      assert.deepEqual(plain, [`syncworker: ${line}`], "one line besides the JSON log, no grpc-js text");
    }
  } finally {
    taken.close();
  }
});
