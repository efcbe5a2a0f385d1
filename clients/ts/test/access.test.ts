// The TypeScript client against servers that require a client certificate or bearer tokens: the refusals carry
// UNAUTHENTICATED or PERMISSION_DENIED, the right credentials work, over TLS with a server-name override.
import assert from "node:assert/strict";
import { join } from "node:path";
import { REPO_ROOT, startServer, type ServerProcess } from "../../../test/harness/server.js";
import { makeTestPki, READER_TOKEN, writeTokenFile, WRITER_TOKEN, type TestPki } from "../../../test/harness/tls.js";
import { Code, isComplete, SyncWorkerClient, SyncWorkerError, type ClientOptions } from "../src/index.js";
import { tierTests } from "../../../test/harness/tiers.js";

const { after, before, test } = tierTests("tls");

let pki: TestPki;
let mtls: ServerProcess;
let tokens: ServerProcess;
before(async () => {
  pki = await makeTestPki();
  [mtls, tokens] = await Promise.all([
    startServer([...pki.serveArgs(true), "--operator-delay", "20ms"]),
    startServer([...pki.serveArgs(false), "--token-file", await writeTokenFile(pki.dir)]),
  ]);
});
after(async () => {
  assert.equal(await mtls.stop(), 0);
  assert.equal(await tokens.stop(), 0);
});

/** Runs `fn` with a client of `options` and closes it. */
async function withClient<T>(address: string, options: ClientOptions, fn: (c: SyncWorkerClient) => Promise<T>): Promise<T> {
  const client = new SyncWorkerClient(address, { timeoutMs: 10_000, ...options });
  try {
    return await fn(client);
  } finally {
    client.close();
  }
}

async function codeOf(call: Promise<unknown>): Promise<[Code, string]> {
  const err = await call.then(
    () => assert.fail("the call succeeded"),
    (e: unknown) => e,
  );
  assert.ok(err instanceof SyncWorkerError, String(err));
  return [err.code, err.rawMessage];
}

test(
  "mTLS: no client certificate and one from another CA are UNAUTHENTICATED; the CA's client certificate updates and watches",
  { timeout: 60_000 },
  async () => {
    const ca = await pki.pem(pki.ca);
    const [noCert, noCertMessage] = await withClient(mtls.address, { tls: { ca } }, (c) => codeOf(c.getStatus()));
    assert.equal(noCert, Code.Unauthenticated);
    assert.match(noCertMessage, /needs a client certificate signed by the server's client CA/);
    const other = { ca, cert: await pki.pem(pki.otherCert), key: await pki.pem(pki.otherKey) };
    assert.equal((await withClient(mtls.address, { tls: other }, (c) => codeOf(c.update({ desired: { image: "/nowhere" } }))))[0], Code.Unauthenticated);
    const good = { ca, cert: await pki.pem(pki.clientCert), key: await pki.pem(pki.clientKey) };
    await withClient(mtls.address, { tls: good }, async (c) => {
      await c.update({ generation: 1, desired: { version: "1.0.0", image: join(REPO_ROOT, "examples/payloads/demo-1.0.0") } });
      for await (const status of c.watchStatus({ signal: AbortSignal.timeout(50_000) })) if (isComplete(status, "1.0.0")) break;
    });
    // A plaintext client cannot talk to a TLS server at all.
    assert.equal((await withClient(mtls.address, {}, (c) => codeOf(c.getStatus({ timeoutMs: 3_000 }))))[0], Code.Unavailable);
  },
);

test("tokens: none and a wrong one are UNAUTHENTICATED, a reader's Update PERMISSION_DENIED, a writer's works", { timeout: 60_000 }, async () => {
  const tls = { ca: await pki.pem(pki.ca), serverName: "syncworker.test" };
  const image = join(REPO_ROOT, "examples/payloads/demo-1.0.0");
  const [none, noneMessage] = await withClient(tokens.address, { tls }, (c) => codeOf(c.getStatus()));
  assert.equal(none, Code.Unauthenticated);
  assert.match(noneMessage, /needs a bearer token/);
  assert.equal((await withClient(tokens.address, { tls, token: "not-a-token-at-all" }, (c) => codeOf(c.getStatus())))[0], Code.Unauthenticated);
  // A refused watch ends with the refusal instead of reconnecting.
  const watch = withClient(tokens.address, { tls }, async (c) => {
    for await (const _ of c.watchStatus({ signal: AbortSignal.timeout(10_000) })) assert.fail("a watch without a token got a status");
  });
  assert.equal((await codeOf(watch))[0], Code.Unauthenticated);
  await withClient(tokens.address, { tls, token: READER_TOKEN }, async (c) => {
    const [denied, deniedMessage] = await codeOf(c.update({ generation: 1, desired: { image } }));
    assert.equal(denied, Code.PermissionDenied);
    assert.match(deniedMessage, /"bob" may not call Update: it needs the writer role/);
    // The refusal's google.rpc.ErrorInfo names the reason and the RPC.
    const refused = await c.notify("reader").then(
      () => assert.fail("a reader notified"),
      (e: unknown) => e,
    );
    assert.ok(refused instanceof SyncWorkerError && refused.code === Code.PermissionDenied, String(refused));
    assert.deepEqual(refused.details, [
      { type: "ErrorInfo", reason: "PermissionDenied", domain: "syncworker.v1", metadata: { rpc: "NotifyResourceActivity" } },
    ]);
    // A reader reads: unary and the watch.
    assert.equal((await c.getStatus()).generation, 0);
    for await (const status of c.watchStatus({ signal: AbortSignal.timeout(10_000) })) if (status.revision > 0) break;
  });
  await withClient(tokens.address, { tls, token: WRITER_TOKEN }, async (c) => {
    assert.equal((await c.update({ generation: 1, desired: { image } })).generation, 1);
    assert.equal(typeof (await c.notify("writer")), "boolean");
  });
  // The certificate names localhost and syncworker.test, not another name.
  const [wrongName] = await withClient(tokens.address, { tls: { ...tls, serverName: "elsewhere.test" }, token: WRITER_TOKEN }, (c) =>
    codeOf(c.getStatus({ timeoutMs: 3_000 })),
  );
  assert.equal(wrongName, Code.Unavailable);
});
