// The fleet page's routes on a loopback HTTP server over an in-memory FleetSource: the list of rollouts, the stream
// (FleetWatch's events, a change sent once, the stream ended when the rollout is deleted), its 400 and 404, access
// by bearer token (401, 403), the page's files gzipped, and requests that are not the page's left to others.
import assert from "node:assert/strict";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, test } from "node:test";
import { FLEET_ACCESS } from "../../../src/api/access.js";
import { fleetPageRoutes } from "../../../src/api/fleet-page.js";
import type { FleetSource } from "../../../src/api/fleet-views.js";
import type { TokenAuthority } from "../../../src/api/tokens.js";
import type { MemberRecord, RolloutObject, RolloutStatus } from "../../../src/fleet/index.js";
import { sseEvents } from "../../harness/sse.js";

const NAMESPACE = "hub";
const COUNTS = { total: 2, pending: 1, updating: 1, succeeded: 0, failed: 0, unavailable: 0, blocked: 0 };
/** The same in proto3 JSON: the counts at zero left out. */
const COUNTS_JSON = { total: 2, pending: 1, updating: 1 };

function rollout(name: string, phase: RolloutStatus["phase"], members: readonly MemberRecord[]): RolloutObject {
  return {
    namespace: NAMESPACE,
    name,
    uid: `uid-${name}`,
    generation: 1,
    resourceVersion: "1",
    spec: { release: { version: "1.1.0", image: "example.com/demo:1.1.0" } },
    status: {
      observedGeneration: 1,
      phase,
      stageSummary: `all 0/${members.length}`,
      counts: COUNTS,
      stages: [{ name: "all", ...COUNTS }],
      members,
      conditions: [],
    },
  };
}

/** A hub in memory: rollouts by name, and word to every subscriber on `changed()`. */
const rollouts = new Map<string, RolloutObject>();
const subscribers = new Set<() => void>();
const changed = (): void => subscribers.forEach((notify) => notify());
const source: FleetSource = {
  rollouts: (ns) => [...rollouts.values()].filter((r) => r.namespace === ns),
  rollout: (ns, name) => (ns === NAMESPACE ? rollouts.get(name) : undefined),
  member: () => undefined,
  subscribe: (notify) => {
    subscribers.add(notify);
    return () => subscribers.delete(notify);
  },
};

/** Token "reader" may watch the fleet; "stranger" is known and may not; any other is unknown. */
const tokens: TokenAuthority = {
  review: (token, access) =>
    Promise.resolve(
      token === "reader" && access === FLEET_ACCESS.fleetWatch
        ? { outcome: "allowed", user: "rita" }
        : token === "stranger"
          ? { outcome: "denied", user: "sam", reason: "not a reader" }
          : { outcome: "unauthenticated", reason: "unknown token" },
    ),
};

let server: Server;
let base = "";
const auth = { authorization: "Bearer reader" };

before(async () => {
  const routes = fleetPageRoutes({ source, namespace: NAMESPACE, access: { requireClientCertificate: false, tokens }, log: { warn: () => undefined } });
  server = createServer((req, res) => {
    if (!routes(req, res)) res.writeHead(418).end();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  rollouts.set("b-second", rollout("b-second", "Completed", []));
  rollouts.set(
    "a-first",
    rollout("a-first", "Progressing", [{ name: "m-1", stage: "all", state: "Updating", done: 3, total: 9, blocker: "waiting for demo-api" }]),
  );
});
after(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

test("the rollouts of the namespace, by name, with their phase, release and stage summary", async () => {
  const response = await fetch(`${base}/api/v1/fleet/rollouts`, { headers: auth });
  assert.equal(response.status, 200);
  assert.deepEqual(await response.json(), [
    { name: "a-first", phase: "Progressing", release: "1.1.0", stageSummary: "all 0/1" },
    { name: "b-second", phase: "Completed", release: "1.1.0", stageSummary: "all 0/0" },
  ]);
});

test("the stream: the rollout, each member, synced; a change once; the stream ends when the rollout is deleted", async () => {
  const response = await fetch(`${base}/api/v1/fleet/stream?rollout=a-first`, { headers: auth });
  assert.equal(response.status, 200);
  assert.equal(response.headers.get("content-type"), "text/event-stream");
  const events = sseEvents(response);
  const next = async (): Promise<unknown> => {
    const { value } = await events.next();
    assert.equal(value?.event, "fleet");
    return JSON.parse(value?.data ?? "null");
  };
  assert.deepEqual(await next(), {
    rollout: {
      name: "a-first",
      observedGeneration: 1,
      phase: "Progressing",
      stages: [{ name: "all", counts: COUNTS_JSON }],
      counts: COUNTS_JSON,
      releaseVersion: "1.1.0",
      stageSummary: "all 0/1",
    },
  });
  assert.deepEqual(await next(), {
    member: { member: "m-1", stage: "all", state: "MEMBER_STATE_UPDATING", done: 3, total: 9, blocker: "waiting for demo-api" },
  });
  assert.deepEqual(await next(), { synced: {} });

  // Nothing that changed is sent again; the member that changed is, once.
  changed();
  const before = rollouts.get("a-first");
  rollouts.set("a-first", rollout("a-first", "Progressing", [{ name: "m-1", stage: "all", state: "Succeeded", done: 9, total: 9 }]));
  changed();
  assert.deepEqual(await next(), { member: { member: "m-1", stage: "all", state: "MEMBER_STATE_SUCCEEDED", done: 9, total: 9 } });

  rollouts.delete("a-first");
  changed();
  assert.equal((await events.next()).done, true, "the stream ended");
  const gone = await fetch(`${base}/api/v1/fleet/stream?rollout=a-first`, { headers: auth });
  assert.equal(gone.status, 404);
  assert.deepEqual(await gone.json(), { code: "NOT_FOUND", message: "ReleaseRollout hub/a-first not found" });
  if (before) rollouts.set("a-first", before);
});

test("a stream names its rollout: 400 without one", async () => {
  const response = await fetch(`${base}/api/v1/fleet/stream`, { headers: auth });
  assert.equal(response.status, 400);
  assert.equal(((await response.json()) as { code: string }).code, "INVALID_ARGUMENT");
});

test("both API routes need FleetWatch's access: 401 without a token or with an unknown one, 403 when denied", async () => {
  for (const path of ["/api/v1/fleet/rollouts", "/api/v1/fleet/stream?rollout=a-first"]) {
    const none = await fetch(`${base}${path}`);
    assert.equal(none.status, 401, path);
    assert.deepEqual(await none.json(), {
      code: "UNAUTHENTICATED",
      message: 'FleetWatch needs a bearer token (metadata "authorization: Bearer <token>"), and none was sent',
    });
    assert.equal((await fetch(`${base}${path}`, { headers: { authorization: "Bearer nobody" } })).status, 401, path);
    const denied = await fetch(`${base}${path}`, { headers: { authorization: "Bearer stranger" } });
    assert.equal(denied.status, 403, path);
    assert.match(((await denied.json()) as { message: string }).message, /"sam" may not call FleetWatch: not a reader/);
  }
});

test("the page's files need no token and go gzipped when asked; other requests are left to the admin server", async () => {
  const html = await fetch(`${base}/`, { headers: { "accept-encoding": "gzip" } });
  assert.equal(html.status, 200);
  assert.equal(html.headers.get("content-encoding"), "gzip");
  assert.equal(html.headers.get("content-type"), "text/html; charset=utf-8");
  assert.match(await html.text(), /src="\/page\/fleet\.js"/);
  const script = await fetch(`${base}/page/fleet.js`);
  assert.equal(script.headers.get("content-type"), "text/javascript; charset=utf-8");
  assert.equal((await fetch(`${base}/page/app.css`)).headers.get("content-type"), "text/css; charset=utf-8");
  // The update page's script is not the fleet's to serve, nor is a write.
  assert.equal((await fetch(`${base}/page/app.js`)).status, 418);
  assert.equal((await fetch(`${base}/api/v1/fleet/rollouts`, { method: "POST", headers: auth })).status, 418);
  assert.equal((await fetch(`${base}/metrics`)).status, 418);
});
