// Access to a real `syncworker serve`: beyond loopback only with a way to authenticate callers (or --insecure);
// under mTLS and tokens health and reflection stay open while SyncWorker calls are refused; the CLI's TLS and
// token flags; bad certificate and token files stop start-up naming them.
import assert from "node:assert/strict";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import * as grpc from "@grpc/grpc-js";
import { service as healthService } from "grpc-health-check";
import { runCli } from "../harness/cli.js";
import { startServer } from "../harness/server.js";
import { makeTestPki, READER_TOKEN, writeTokenFile, WRITER_TOKEN, type TestPki } from "../harness/tls.js";
import { tierTests } from "../harness/tiers.js";

const { before, test } = tierTests("tls");

let pki: TestPki;
let tokenFile: string;
before(async () => {
  pki = await makeTestPki();
  tokenFile = await writeTokenFile(pki.dir);
});

test("listening beyond loopback with nothing to authenticate callers stops start-up; --insecure or a token file allows it", { timeout: 60_000 }, async () => {
  await assert.rejects(startServer(["--listen", "0.0.0.0:0"]), (err: Error) => {
    assert.match(err.message, /exited early with 2/, "a flag refused: a usage error");
    assert.match(err.message, /--listen: 0\.0\.0\.0:0 is not a loopback address and nothing authenticates callers/);
    assert.doesNotMatch(err.message, /\n\s+at /, "no stack trace");
    return true;
  });
  await assert.rejects(startServer(["--listen", "0.0.0.0:0", ...pki.serveArgs(false)]), /nothing authenticates callers/, "TLS alone is not enough");
  for (const args of [["--insecure"], ["--token-file", tokenFile]]) {
    // Beyond loopback a payload root is required too (test/integration/input-limits.test.ts).
    const server = await startServer(["--listen", "0.0.0.0:0", "--payload-root", pki.dir, ...args]);
    assert.match(server.address, /^0\.0\.0\.0:\d+$/);
    assert.equal(await server.stop(), 0, server.stderr());
  }
});

test("bad credential files stop start-up naming the file and line", { timeout: 60_000 }, async () => {
  const bad = join(pki.dir, "bad-tokens.csv");
  await writeFile(bad, `${WRITER_TOKEN},alice,writer\n${READER_TOKEN},bob,owner\n`);
  await assert.rejects(startServer(["--token-file", bad]), new RegExp(`--token-file: ${bad}:2: "owner" is not a role`));
  await assert.rejects(startServer(["--tls-cert", pki.serverCert, "--tls-key", pki.clientKey]), new RegExp(`--tls-key: ${pki.clientKey} does not fit`));
  await assert.rejects(startServer(["--tls-cert", join(pki.dir, "missing.crt"), "--tls-key", pki.serverKey]), /--tls-cert: cannot read .*missing\.crt/);
});

test("mTLS with tokens: health and reflection answer without credentials, SyncWorker calls need both", { timeout: 180_000 }, async () => {
  const server = await startServer([...pki.serveArgs(true), "--token-file", tokenFile]);
  try {
    const ca = await pki.pem(pki.ca);
    const Health = grpc.makeGenericClientConstructor(healthService, "Health");
    const health = new Health(server.address, grpc.credentials.createSsl(ca)) as unknown as {
      check(req: object, cb: (err: grpc.ServiceError | null, res: { status: string }) => void): void;
      close(): void;
    };
    const status = await new Promise<string>((resolve, reject) =>
      health.check({ service: "syncworker.v1.SyncWorker" }, (err, res) => (err ? reject(err) : resolve(res.status))),
    );
    health.close();
    assert.equal(status, "SERVING", "health needs no client certificate and no token");

    const tls = ["--address", server.address, "--ca", pki.ca];
    const mtls = [...tls, "--cert", pki.clientCert, "--key", pki.clientKey];
    const noCert = await runCli(["status", ...tls, "--token", WRITER_TOKEN]);
    assert.equal(noCert.code, 1);
    assert.match(noCert.stderr, /UNAUTHENTICATED: GetStatus needs a client certificate/);
    const noToken = await runCli(["status", ...mtls], { SYNCWORKER_TOKEN: "" });
    assert.match(noToken.stderr, /UNAUTHENTICATED: GetStatus needs a bearer token/);
    const reader = await runCli(["notify", ...mtls, "--token", READER_TOKEN]);
    assert.match(reader.stderr, /PERMISSION_DENIED: "bob" may not call NotifyResourceActivity: it needs the writer role/);
    const writerFromEnv = await runCli(["notify", ...mtls, "--server-name", "syncworker.test"], { SYNCWORKER_TOKEN: WRITER_TOKEN });
    assert.equal(writerFromEnv.code, 0, writerFromEnv.stderr);
    assert.match(writerFromEnv.stdout, /notified|already pending/);
    const tokenOnDisk = join(pki.dir, "reader.token");
    await writeFile(tokenOnDisk, `${READER_TOKEN}\n`);
    const readerFromFile = await runCli(["status", "-o", "json", ...mtls, "--token-file", tokenOnDisk]);
    assert.equal(readerFromFile.code, 0, readerFromFile.stderr);
    assert.equal((JSON.parse(readerFromFile.stdout) as { message: string }).message, "Waiting for an update");

    // PauseUpdate records the authenticated caller, and needs the writer role.
    const readerPause = await runCli(["pause", ...mtls, "--token", READER_TOKEN]);
    assert.match(readerPause.stderr, /PERMISSION_DENIED: "bob" may not call PauseUpdate/);
    const writerPause = await runCli(["pause", ...mtls, "--token", WRITER_TOKEN, "--reason", "audit"]);
    assert.equal(writerPause.code, 0, writerPause.stderr);
    const paused = JSON.parse((await runCli(["status", "-o", "json", ...mtls, "--token", READER_TOKEN])).stdout) as {
      pause?: { pausedBy: string; reason: string };
    };
    assert.deepEqual([paused.pause?.pausedBy, paused.pause?.reason], ["alice", "audit"]);

    // Refusals are counted like any call.
    const metrics = await (await fetch(`http://${server.adminAddress}/metrics`)).text();
    assert.match(metrics, /grpc_server_handled_total\{[^}]*grpc_method="GetStatus"[^}]*grpc_code="UNAUTHENTICATED"[^}]*\} 2/);
    assert.match(metrics, /grpc_server_handled_total\{[^}]*grpc_method="NotifyResourceActivity"[^}]*grpc_code="PERMISSION_DENIED"[^}]*\} 1/);
  } finally {
    assert.equal(await server.stop(), 0);
  }
});
