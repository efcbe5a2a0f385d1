import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, test } from "node:test";
import type { SyncWorkerClient, SyncWorkerStatus } from "@syncworker/client/gen/syncworker/v1/syncworker";
import { rawClient, REPO_ROOT, startServer, waitForStatus, type ServerProcess } from "../harness/server.js";

let server: ServerProcess;
// Raw streams: these tests check the server's own stream (since_revision, no duplicates, every watcher converging),
// which the client's watch would mask by dropping revisions it has seen and reconnecting.
let watcher: SyncWorkerClient;
// One test opens 200 streams from this host, above the default limit per client.
before(async () => {
  server = await startServer(["--reconcile-interval", "60s", "--max-watches-per-client", "250", "--metrics-listen", "127.0.0.1:0"]);
  watcher = rawClient(server.address);
});
after(async () => {
  watcher.close();
  assert.equal(await server.stop(), 0);
});

const DEMO = join(REPO_ROOT, "examples/payloads/demo-1.0.0");

/** Collects the revisions a watch delivers until `stop` says so. */
async function collect(client: SyncWorkerClient, sinceRevision: number, stop: (s: SyncWorkerStatus, count: number) => boolean): Promise<SyncWorkerStatus[]> {
  const stream = client.statusWatch({ sinceRevision });
  const seen: SyncWorkerStatus[] = [];
  try {
    for await (const response of stream as AsyncIterable<{ status?: SyncWorkerStatus }>) {
      if (response.status) seen.push(response.status);
      if (response.status && stop(response.status, seen.length)) break;
    }
  } finally {
    stream.cancel();
  }
  return seen;
}

const complete = (s: SyncWorkerStatus): boolean => s.completed >= 1 && s.done === s.total && !s.failure;

test("a watcher that resumes with since_revision receives no snapshot twice", { timeout: 60_000 }, async () => {
  const first = await collect(watcher, 0, (_s, n) => n === 1);
  await server.client.update({ generation: 1, desired: { version: "", image: DEMO, force: false }, overrides: [], capabilities: undefined, state: 0 });
  const beforeResume = await collect(watcher, first[0]!.revision, (s, n) => n === 2 || complete(s));
  const resumeFrom = beforeResume.at(-1)!.revision;
  // Snapshots coalesce, so the sync may already be complete; then there is nothing newer to resume to.
  const afterResume = complete(beforeResume.at(-1)!) ? [] : await collect(watcher, resumeFrom, complete);

  const revisions = [...first, ...beforeResume, ...afterResume].map((s) => s.revision);
  assert.deepEqual(
    revisions,
    [...revisions].sort((a, b) => a - b),
    "revisions strictly increase across resumes",
  );
  assert.equal(new Set(revisions).size, revisions.length, "no snapshot is delivered twice");
  assert.ok(afterResume.every((s) => s.revision > resumeFrom));
});

test("200 watchers at once all converge on the final snapshot", { timeout: 90_000 }, async () => {
  const image = join(REPO_ROOT, "examples/payloads/demo-1.1.0");
  const last = new Array<SyncWorkerStatus | undefined>(200);
  const streams = Array.from({ length: 200 }, (_, i) => {
    const stream = watcher.statusWatch({ sinceRevision: 0 });
    stream.on("data", (response: { status?: SyncWorkerStatus }) => (last[i] = response.status));
    stream.on("error", () => undefined);
    return stream;
  });
  try {
    await server.client.update({ generation: 2, desired: { version: "1.1.0", image, force: false }, overrides: [], capabilities: undefined, state: 0 });
    const final = await waitForStatus(server.client, (s) => s.actual?.version === "1.1.0" && complete(s), 60_000);
    // The reconcile interval is long, so after completion the store stays at its final snapshot.
    const deadline = Date.now() + 20_000;
    const current = async (): Promise<number> => (await server.client.getStatus()).revision;
    while (Date.now() < deadline && !last.every((s) => s?.revision === final.revision)) {
      await new Promise((r) => setTimeout(r, 50));
    }
    assert.equal(await current(), final.revision, "nothing was published after completion");
    const behind = last.filter((s) => s?.revision !== final.revision).length;
    assert.equal(behind, 0, `${behind} of 200 watchers did not converge on revision ${final.revision}`);
    assert.ok(last.every((s) => s && complete(s) && s.actual?.version === "1.1.0"));
    // Every write to every stream is timed from the snapshot's publication: at least the final one to each of the 200.
    const metrics = await (await fetch(`http://${server.metricsAddress}/metrics`)).text();
    const delivered = Number(/^syncworker_status_watch_delivery_seconds_count (\d+)$/m.exec(metrics)?.[1]);
    assert.ok(delivered >= 200, `delivery histogram counted ${delivered} writes`);
    assert.match(metrics, /^syncworker_status_watch_delivery_seconds_bucket\{le="\+Inf"\} \d+$/m);
  } finally {
    for (const stream of streams) stream.cancel();
  }
});
