// The TypeScript client against a real `syncworker serve` process: update and watch to completion, a watch
// that survives a cut connection without repeating or losing a snapshot, and errors as SyncWorkerError.
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { createServer } from "node:net";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { REPO_ROOT, startServer, type ServerProcess } from "../../../test/harness/server.js";
import { startTcpProxy } from "../../../test/harness/tcp-proxy.js";
import { Code, isComplete, SyncWorkerClient, SyncWorkerError, type SyncWorkerStatus, type WatchOptions } from "../src/index.js";

const payload = (version: string): string => join(REPO_ROOT, `examples/payloads/demo-${version}`);

let server: ServerProcess;
let client: SyncWorkerClient;
// A slower embedded operator stretches the sync over seconds, so a cut lands mid-sync.
before(async () => {
  server = await startServer(["--reconcile-interval", "60s", "--operator-delay", "300ms"]);
  client = new SyncWorkerClient(server.address, { timeoutMs: 10_000 });
});
after(async () => {
  client.close();
  assert.equal(await server.stop(), 0);
});

async function watchUntilComplete(
  c: SyncWorkerClient,
  version: string,
  options: Omit<WatchOptions, "signal"> = {},
  onStatus: (s: SyncWorkerStatus) => void = () => undefined,
): Promise<SyncWorkerStatus[]> {
  const seen: SyncWorkerStatus[] = [];
  for await (const status of c.watchStatus({ ...options, signal: AbortSignal.timeout(60_000) })) {
    seen.push(status);
    onStatus(status);
    if (isComplete(status, version)) break;
  }
  return seen;
}

function assertStrictlyIncreasing(seen: readonly SyncWorkerStatus[]): void {
  const revisions = seen.map((s) => s.revision);
  for (let i = 1; i < revisions.length; i++) assert.ok(revisions[i]! > revisions[i - 1]!, `revisions ${revisions.join(",")} repeat or go back`);
}

test("update, watch to completion, get status", { timeout: 90_000 }, async () => {
  const accepted = await client.update({ generation: 1, desired: { version: "1.0.0", image: payload("1.0.0") } });
  assert.equal(accepted.generation, 1);
  const seen = await watchUntilComplete(client, "1.0.0");
  assertStrictlyIncreasing(seen);
  const final = seen.at(-1)!;
  assert.equal(final.done, final.total);
  const status = await client.getStatus();
  assert.ok(isComplete(status, "1.0.0"));
  assert.ok(status.revision >= final.revision);
  assert.equal(await client.notify("test: configmap changed", { timeoutMs: 5_000 }), true);
});

test("a watch cut mid-sync resumes: no revision twice, no gap in the final state", { timeout: 90_000 }, async () => {
  const proxy = await startTcpProxy(server.address);
  const viaProxy = new SyncWorkerClient(proxy.address);
  try {
    const start = await viaProxy.getStatus();
    await viaProxy.update({ generation: 2, desired: { version: "1.1.0", image: payload("1.1.0") } });
    let cuts = 0;
    const retries: Array<[SyncWorkerError, number]> = [];
    const seen = await watchUntilComplete(viaProxy, "1.1.0", { onRetry: (err, delayMs) => retries.push([err, delayMs]) }, (s) => {
      // Cut twice while the sync is running, after the stream delivered something of the new release.
      if (cuts < 2 && s.revision > start.revision && !isComplete(s, "1.1.0")) {
        cuts++;
        proxy.cut();
      }
    });
    assert.ok(cuts >= 1, "the sync finished before the watch could be cut; slow it down");
    assert.ok(proxy.accepted() > 1, "the watch reconnected through the proxy");
    // onRetry heard of each cut, as a transient error, before the first (default) wait.
    assert.ok(retries.length >= cuts, `${retries.length} retries for ${cuts} cuts`);
    for (const [err] of retries) assert.ok([Code.Unavailable, Code.Internal].includes(err.code), err.message);
    assert.equal(retries[0]?.[1], 100);
    assertStrictlyIncreasing(seen);
    const final = seen.at(-1)!;
    assert.ok(isComplete(final, "1.1.0"));
    // Nothing is published after completion with a long reconcile interval, so the watch ended on the latest.
    assert.equal((await client.getStatus()).revision, final.revision);
  } finally {
    viaProxy.close();
    await proxy.close();
  }
});

test(
  "watchStatus onRetry: each failed attempt at an unreachable server, with the backoff's delay; the watch goes on until aborted",
  { timeout: 30_000 },
  async () => {
    const unreachable = new SyncWorkerClient("127.0.0.1:1");
    const stop = new AbortController();
    const retries: Array<[Code, number]> = [];
    try {
      await assert.rejects(
        async () => {
          const onRetry = (err: SyncWorkerError, delayMs: number): void => {
            retries.push([err.code, delayMs]);
            if (retries.length === 5) stop.abort();
          };
          for await (const _ of unreachable.watchStatus({ signal: stop.signal, backoff: { initialMs: 10, maxMs: 40 }, onRetry }))
            assert.fail("a status from nowhere");
        },
        (err) => err instanceof SyncWorkerError && err.code === Code.Canceled,
      );
    } finally {
      unreachable.close();
    }
    assert.deepEqual(retries, [
      [Code.Unavailable, 10],
      [Code.Unavailable, 20],
      [Code.Unavailable, 40],
      [Code.Unavailable, 40],
      [Code.Unavailable, 40],
    ]);
  },
);

test("errors are SyncWorkerError with the gRPC code and the server's details", { timeout: 30_000 }, async () => {
  const invalid = await client.update({ desired: { image: "" } }).then(
    () => assert.fail("an empty image was accepted"),
    (err: unknown) => err,
  );
  assert.ok(invalid instanceof SyncWorkerError);
  assert.equal(invalid.code, Code.InvalidArgument);
  assert.deepEqual(invalid.details, [{ type: "BadRequest", fieldViolations: [{ field: "desired.image", description: invalid.rawMessage }] }]);

  const aborted = new AbortController();
  aborted.abort();
  await assert.rejects(client.getStatus({ signal: aborted.signal }), (err) => err instanceof SyncWorkerError && err.code === Code.Canceled);
  await assert.rejects(client.getStatus({ timeoutMs: 0 }), (err) => err instanceof SyncWorkerError && err.code === Code.DeadlineExceeded);

  const unreachable = new SyncWorkerClient("127.0.0.1:1", { timeoutMs: 2_000 });
  await assert.rejects(unreachable.getStatus(), (err) => err instanceof SyncWorkerError && err.code === Code.Unavailable);
  unreachable.close();
});

test("connect: resolves once connected, Unavailable at a refused attempt, DeadlineExceeded from a server that never answers", { timeout: 30_000 }, async () => {
  await client.connect({ timeoutMs: 10_000 });
  assert.equal(await client.serverVersion(), (JSON.parse(await readFile(join(REPO_ROOT, "package.json"), "utf8")) as { version: string }).version);

  const refused = new SyncWorkerClient("127.0.0.1:1");
  await assert.rejects(
    refused.connect({ timeoutMs: 10_000 }),
    (err) => err instanceof SyncWorkerError && err.code === Code.Unavailable && err.rawMessage === "cannot connect to 127.0.0.1:1",
  );
  refused.close();

  const silent = createServer(() => undefined);
  await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
  const mute = new SyncWorkerClient(`127.0.0.1:${(silent.address() as { port: number }).port}`);
  try {
    await assert.rejects(mute.connect({ timeoutMs: 500 }), (err) => err instanceof SyncWorkerError && err.code === Code.DeadlineExceeded);
    const aborted = new AbortController();
    const pending = mute.connect({ timeoutMs: 10_000, signal: aborted.signal });
    aborted.abort();
    await assert.rejects(pending, (err) => err instanceof SyncWorkerError && err.code === Code.Canceled);
  } finally {
    mute.close();
    silent.close();
  }
});
