// FleetClient.watchFleet against an in-process grpc-js server of the generated Fleet service (the hub's real server
// is tested with the fleet): a burst, a connection cut through a proxy, a resume that sends the client's cursors,
// and what the client yields of the second burst (nothing twice, a wiped member, a change without a new revision).
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import * as grpc from "@grpc/grpc-js";
import { startTcpProxy, type TcpProxy } from "../../../test/harness/tcp-proxy.js";
import {
  Code,
  FleetClient,
  MemberState,
  SyncWorkerError,
  type FleetWatchResponse,
  type MemberCursor,
  type MemberView,
  type RolloutView,
} from "../src/index.js";
import { FleetService, type FleetServer, type FleetWatchRequest } from "../src/gen/syncworker/v1/fleet.js";

const rollout: RolloutView = {
  name: "r1",
  observedGeneration: 1,
  phase: "Progressing",
  currentStage: "canary",
  stages: [{ name: "canary", counts: { total: 1, pending: 0, updating: 1, succeeded: 0, failed: 0, unavailable: 0, blocked: 0 } }],
  counts: { total: 3, pending: 2, updating: 1, succeeded: 0, failed: 0, unavailable: 0, blocked: 0 },
  conditions: [],
  pinnedImage: "registry.example/release@sha256:0123",
  releaseVersion: "1.1.0",
  stageSummary: "stage canary (1/2): 0 of 1 succeeded, 1 updating",
};
const member = (name: string, revision: number, state = MemberState.MEMBER_STATE_UPDATING): MemberView => ({
  member: name,
  stage: name === "a" ? "canary" : "rest",
  state,
  revision,
  generation: 1,
  done: revision,
  total: 10,
  version: "1.1.0",
  blocker: "",
});

/**
 * What the server sends on each connection, in order; then it holds the stream open. Connection 0 is a first
 * connect with the caller's cursor for c (c unchanged, so not sent); connection 1 the resume after the cut: b moved
 * on, c was wiped (its revision went back), and, as a sloppy server might, it repeats the rollout and a unchanged;
 * after `synced`, a becomes unavailable without a new revision.
 */
const script: FleetWatchResponse[][] = [
  [{ rollout }, { member: member("a", 3) }, { member: member("b", 5) }, { synced: {} }, { member: member("a", 4) }],
  [
    { rollout },
    { member: member("a", 4) },
    { member: member("b", 6) },
    { member: member("c", 1) },
    { synced: {} },
    { member: member("a", 4, MemberState.MEMBER_STATE_UNAVAILABLE) },
  ],
];

const requests: FleetWatchRequest[] = [];
const tokens: string[] = [];
let server: grpc.Server;
let proxy: TcpProxy;
before(async () => {
  server = new grpc.Server();
  const handlers: FleetServer = {
    fleetWatch: (call) => {
      tokens.push(String(call.metadata.get("authorization")[0] ?? ""));
      if (call.request.rollout !== "r1") {
        call.emit("error", { code: grpc.status.NOT_FOUND, details: `rollout default/${call.request.rollout} not found` });
        return;
      }
      const events = script[requests.length] ?? [{ rollout }];
      requests.push(call.request);
      for (const event of events) call.write(event);
    },
  };
  server.addService(FleetService, handlers);
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync("127.0.0.1:0", grpc.ServerCredentials.createInsecure(), (err, p) => (err ? reject(err) : resolve(p))),
  );
  proxy = await startTcpProxy(`127.0.0.1:${port}`);
});
after(async () => {
  await proxy.close();
  server.forceShutdown();
});

const sortedCursors = (cursors: readonly MemberCursor[]): MemberCursor[] => [...cursors].sort((a, b) => a.member.localeCompare(b.member));

test(
  "watchFleet: a burst, a cut, a resume from its cursors; nothing yielded twice, a wiped member and an unavailable one are",
  { timeout: 30_000 },
  async () => {
    const client = new FleetClient(proxy.address, { token: "fleet-reader" });
    const retries: Array<[SyncWorkerError, number]> = [];
    const seen: string[] = [];
    const watch = client.watchFleet({
      rollout: "r1",
      cursors: { c: 2 },
      backoff: { initialMs: 10 },
      onRetry: (err, delayMs) => retries.push([err, delayMs]),
      signal: AbortSignal.timeout(20_000),
    });
    try {
      for await (const event of watch) {
        if (event.rollout) seen.push(`rollout ${event.rollout.phase}`);
        else if (event.synced) seen.push("synced");
        else if (event.member)
          seen.push(`${event.member.member}@${event.member.revision}${event.member.state === MemberState.MEMBER_STATE_UNAVAILABLE ? " unavailable" : ""}`);
        // The cursor moves with each member view yielded.
        if (event.member) assert.equal(watch.cursors().get(event.member.member), event.member.revision);
        if (seen.length === 5) proxy.cut();
        if (event.member?.state === MemberState.MEMBER_STATE_UNAVAILABLE) break;
      }
    } finally {
      client.close();
    }
    assert.deepEqual(seen, ["rollout Progressing", "a@3", "b@5", "synced", "a@4", "b@6", "c@1", "synced", "a@4 unavailable"]);
    assert.equal(requests.length, 2);
    assert.deepEqual(
      requests.map((r) => [r.namespace, r.rollout, r.fullStatus]),
      [
        ["", "r1", false],
        ["", "r1", false],
      ],
    );
    assert.deepEqual(requests[0]!.cursors, [{ member: "c", revision: 2 }]);
    // The resume carries the cursor of every member seen, and the caller's for c.
    assert.deepEqual(sortedCursors(requests[1]!.cursors), [
      { member: "a", revision: 4 },
      { member: "b", revision: 5 },
      { member: "c", revision: 2 },
    ]);
    assert.deepEqual(
      [...watch.cursors()].sort(([a], [b]) => a.localeCompare(b)),
      [
        ["a", 4],
        ["b", 6],
        ["c", 1],
      ],
    );
    assert.deepEqual(tokens.slice(0, 2), ["Bearer fleet-reader", "Bearer fleet-reader"]);
    // One for the cut (a reconnect that found the channel still down would add one, with a longer delay).
    assert.ok(retries.length >= 1);
    for (const [error] of retries) assert.ok([Code.Unavailable, Code.Internal].includes(error.code), error.message);
    assert.deepEqual(
      retries.map(([, delayMs]) => delayMs),
      [10, 20, 40, 80].slice(0, retries.length),
    );
  },
);

test("watchFleet: NotFound ends the watch; an abort ends it as Canceled", { timeout: 30_000 }, async () => {
  const client = new FleetClient(proxy.address);
  try {
    const retries: unknown[] = [];
    await assert.rejects(
      async () => {
        for await (const _ of client.watchFleet({ rollout: "missing", onRetry: (e) => retries.push(e) })) assert.fail("an event of a missing rollout");
      },
      (err) => err instanceof SyncWorkerError && err.code === Code.NotFound && err.rawMessage === "rollout default/missing not found",
    );
    assert.deepEqual(retries, []);

    const aborted = new AbortController();
    const watch = client.watchFleet({ rollout: "r1", signal: aborted.signal });
    await assert.rejects(
      async () => {
        for await (const _ of watch) aborted.abort();
      },
      (err) => err instanceof SyncWorkerError && err.code === Code.Canceled,
    );
  } finally {
    client.close();
  }
});
