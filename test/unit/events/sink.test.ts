// One event sink against a local HTTP server: a full queue drops the oldest, counted; a refused event is dropped and
// the next goes on; a failing sink is retried in order; the token and the structured mode reach the wire.
import assert from "node:assert/strict";
import { once } from "node:events";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { test } from "node:test";
import { CloudEvent, HTTP } from "cloudevents";
import { NO_LOG } from "../../../src/core/index.js";
import { EventSink, type EventSinkMetrics } from "../../../src/events/index.js";

const event = (n: number) => new CloudEvent<Readonly<Record<string, unknown>>>({ type: "io.syncworker.test.v1", source: "/test", id: String(n), data: { n } });

/** A sink server answering each request with the status `answer(n)` (n counts requests), collecting the events it took. */
async function server(answer: (n: number) => number) {
  const received: { id: string; authorization: string | undefined; contentType: string | undefined }[] = [];
  let requests = 0;
  const srv = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      requests++;
      const ce = HTTP.toEvent({ headers: req.headers, body: Buffer.concat(chunks).toString() }) as CloudEvent;
      const status = answer(requests);
      if (status < 300) received.push({ id: ce.id, authorization: req.headers.authorization, contentType: req.headers["content-type"] });
      res.writeHead(status).end();
    });
  });
  srv.listen(0, "127.0.0.1");
  await once(srv, "listening");
  return { url: `http://127.0.0.1:${(srv.address() as AddressInfo).port}/`, received, close: () => (srv.closeAllConnections(), srv.close()) };
}

function counting(): EventSinkMetrics & { counts: Record<string, number> } {
  const counts: Record<string, number> = {};
  const bump = (key: string) => (counts[key] = (counts[key] ?? 0) + 1);
  return { counts, delivered: () => bump("delivered"), retried: () => bump("retried"), dropped: (_s, why) => bump(why), queued: () => undefined };
}

const sinkFor = (url: string, metrics: EventSinkMetrics, extra: { capacity?: number; mode?: "binary" | "structured"; token?: string } = {}) =>
  new EventSink({
    url,
    mode: extra.mode ?? "binary",
    ...(extra.token ? { token: extra.token } : {}),
    capacity: extra.capacity ?? 100,
    attemptTimeoutMs: 5_000,
    backoff: { initialMs: 10, maxMs: 50 },
    log: NO_LOG,
    metrics,
    random: () => 0.5,
  });

async function until(predicate: () => boolean): Promise<void> {
  while (!predicate()) await new Promise((resolve) => setTimeout(resolve, 10));
}

test("a full queue drops the oldest events, counted; the rest arrive in order", async () => {
  const srv = await server(() => 204);
  const metrics = counting();
  const sink = sinkFor(srv.url, metrics, { capacity: 3 });
  for (let n = 1; n <= 5; n++) sink.push(event(n), Date.now());
  const running = new AbortController();
  const loop = sink.run(running.signal);
  await until(() => srv.received.length === 3);
  assert.deepEqual(
    srv.received.map((r) => r.id),
    ["3", "4", "5"],
  );
  assert.equal(metrics.counts["queue-full"], 2);
  running.abort();
  await loop;
  srv.close();
});

test("a failing sink is retried in order; a refused event is dropped and the next one goes on", async () => {
  // Requests 1-2 fail (503), request 3 (event 1) succeeds, request 4 (event 2) is refused (400), 5 (event 3) succeeds.
  const srv = await server((n) => (n <= 2 ? 503 : n === 4 ? 400 : 202));
  const metrics = counting();
  const sink = sinkFor(srv.url, metrics, { mode: "structured", token: "s3cret" });
  const running = new AbortController();
  const loop = sink.run(running.signal);
  for (let n = 1; n <= 3; n++) sink.push(event(n), Date.now());
  // The sink counts a delivery once it has read the answer, a moment after the server took the event.
  await until(() => srv.received.length === 2 && metrics.counts["delivered"] === 2);
  assert.deepEqual(
    srv.received.map((r) => r.id),
    ["1", "3"],
  );
  assert.deepEqual(metrics.counts, { retried: 2, delivered: 2, refused: 1 });
  assert.ok(srv.received.every((r) => r.authorization === "Bearer s3cret" && r.contentType?.startsWith("application/cloudevents+json")));
  running.abort();
  await loop;
  srv.close();
});
