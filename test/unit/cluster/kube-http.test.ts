import assert from "node:assert/strict";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { test } from "node:test";
import { KubeConfig } from "@kubernetes/client-node";
import { AdaptivePace, compileKubeClientOptions, retryAfterMs, TokenBucket, type KubeClientOptions } from "../../../src/cluster/kube/http.js";
import { KubeTransport, WatchRefusedError } from "../../../src/cluster/kube/transport.js";

/** A transport to a plain-HTTP test server on `port` (client-node allows http only without TLS verification), with a bearer token. */
function transportTo(port: number, options: KubeClientOptions = {}): KubeTransport {
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromClusterAndUser({ name: "test", server: `http://127.0.0.1:${port}`, skipTLSVerify: true }, { name: "test", token: "sekrit" });
  return new KubeTransport(kubeConfig, compileKubeClientOptions(options));
}

test("Retry-After is read as seconds or a date, and capped", () => {
  assert.equal(retryAfterMs("2"), 2000);
  assert.equal(retryAfterMs(undefined), undefined);
  assert.equal(retryAfterMs("3600"), 30_000);
  assert.equal(retryAfterMs("not a date"), undefined);
  const inFiveSeconds = new Date(Date.now() + 5_000).toUTCString();
  assert.ok((retryAfterMs(inFiveSeconds) ?? 0) > 3_000);
});

test("the token bucket allows a burst, then the sustained rate", async () => {
  const now = 0;
  const bucket = new TokenBucket(2, 3, () => now);
  // Within the burst a take resolves without a timer: all three before the next turn of the event loop.
  let burst = 0;
  for (let i = 0; i < 3; i++) void bucket.take().then(() => burst++);
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(burst, 3, "the burst does not wait");
  // The clock stands still: no token is refilled, so the fourth take waits for one (500 ms of real time at 2/s,
  // far longer than a turn of the event loop even on a loaded machine).
  let fourth = false;
  const taken = bucket.take().then(() => (fourth = true));
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(fourth, false, "the fourth take waits for a token");
  await taken;
  assert.equal(fourth, true);
});

test("options are validated once", () => {
  assert.throws(() => compileKubeClientOptions({ qps: 0 }), /qps must be positive/);
  assert.equal(compileKubeClientOptions().userAgent.startsWith("syncworker/"), true);
});

test("throttled and unavailable answers are retried, honouring Retry-After, with our user agent", async () => {
  const seen: string[] = [];
  const answers = [503, 429, 200];
  const server = createServer((req, res) => {
    seen.push(`${req.headers["user-agent"] ?? ""} ${req.headers["authorization"] ?? ""}`);
    const code = answers.shift() ?? 200;
    res.writeHead(code, code === 429 ? { "retry-after": "0" } : {}).end(JSON.stringify({ code }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  try {
    const { port } = server.address() as AddressInfo;
    const transport = transportTo(port, { retryBaseMs: 1 });
    const response = await transport.request("GET", "/api/v1", AbortSignal.timeout(5_000));
    await transport.close();
    assert.equal(response.status, 200);
    assert.equal(seen.length, 3);
    assert.ok(
      seen.every((line) => line.startsWith("syncworker/") && line.endsWith(" Bearer sekrit")),
      seen.join("\n"),
    );
  } finally {
    server.closeAllConnections();
    server.close();
  }
});

test("a 4xx other than 429 is returned at once", async () => {
  let calls = 0;
  const server = createServer((_req, res) => {
    calls++;
    res.writeHead(409).end("{}");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  try {
    const { port } = server.address() as AddressInfo;
    const transport = transportTo(port);
    const response = await transport.request("GET", "/", AbortSignal.timeout(5_000));
    await transport.close();
    assert.equal(response.status, 409);
    assert.equal(calls, 1);
  } finally {
    server.closeAllConnections();
    server.close();
  }
});

test("without a configured QPS the pace has no ceiling until the server keeps throttling, then halves, recovers and lifts it", async () => {
  let now = 0;
  const pace = new AdaptivePace(() => now);
  assert.equal(pace.limit, undefined, "no fixed ceiling by default");
  for (let i = 0; i < 300; i++) await pace.take(); // 300 requests within the same millisecond: no wait
  for (let i = 1; i < 300 * AdaptivePace.THROTTLED_SHARE; i++) pace.throttled();
  assert.equal(pace.limit, undefined, "a few 429s among many requests (a burst shed) are retried, the pace kept");
  now = 2000;
  for (let i = 0; i < 300; i++) await pace.take();
  for (let i = 1; i < 300 * AdaptivePace.THROTTLED_SHARE; i++) pace.throttled();
  assert.equal(pace.limit, undefined, "the refusals of an earlier second do not add up with this one's");
  pace.throttled();
  assert.equal(pace.limit, 150, "a twentieth refused: half of what was achieved in the last second");
  pace.throttled();
  assert.equal(pace.limit, 150, "429s of requests that were in flight together count once");
  now = 3000;
  for (let i = 0; i < 100; i++) await pace.take();
  pace.throttled();
  assert.equal(pace.limit, 50, "a 429 a second later halves the rate achieved since");
  now += 1000;
  await pace.take();
  assert.ok(Math.abs((pace.limit ?? 0) - 55) < 1e-9, "a tenth more after a second without a 429");
  now += 60_000;
  await pace.take();
  assert.equal(pace.limit, undefined, "lifted once it grew past the point where it no longer limits");
  for (let i = 0; i < 6; i++) {
    pace.throttled();
    now += 1000;
  }
  assert.equal(pace.limit, AdaptivePace.MIN_QPS, "never below the floor");
});

test("a configured QPS is a fixed ceiling: 429s do not change it", () => {
  const options = compileKubeClientOptions({ qps: 50 });
  assert.equal(options.qps, 50);
  assert.equal(options.burst, 100, "burst defaults to twice the rate");
  assert.throws(() => compileKubeClientOptions({ burst: 10 }), /burst needs qps/);
});

test("a watch hands over each event line as it arrives, however the stream is cut into chunks", async () => {
  const events = [
    { type: "ADDED", object: { metadata: { name: "a", resourceVersion: "1" } } },
    { type: "BOOKMARK", object: { metadata: { resourceVersion: "2" } } },
    { type: "DELETED", object: { metadata: { name: "a", resourceVersion: "3" } } },
  ];
  let query = "";
  const server = createServer((req, res) => {
    query = req.url ?? "";
    res.writeHead(200, { "content-type": "application/json" });
    const text = events.map((e) => JSON.stringify(e) + "\n").join("");
    // Cut mid-line and mid-character boundaries alike: 7-byte chunks.
    const bytes = Buffer.from(text);
    let at = 0;
    const next = (): void => {
      if (at >= bytes.length) return void res.end();
      res.write(bytes.subarray(at, (at += 7)));
      setImmediate(next);
    };
    next();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  try {
    const transport = transportTo((server.address() as AddressInfo).port);
    const seen: unknown[] = [];
    await transport.watch(
      "/api/v1/configmaps",
      { resourceVersion: "1", allowWatchBookmarks: "true" },
      (type, object) => seen.push({ type, object }),
      AbortSignal.timeout(5_000),
    );
    await transport.close();
    assert.deepEqual(seen, events);
    assert.match(query, /^\/api\/v1\/configmaps\?resourceVersion=1&allowWatchBookmarks=true&watch=true$/);
  } finally {
    server.closeAllConnections();
    server.close();
  }
});

test("a watch the server refuses rejects with its status code and message; an aborted one ends quietly", async () => {
  const server = createServer((req, res) => {
    if (req.url?.includes("resourceVersion=old"))
      return void res.writeHead(410).end(JSON.stringify({ kind: "Status", code: 410, message: "too old resource version: 1 (5)" }));
    res.writeHead(200).write(""); // held open until the client goes away
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  try {
    const transport = transportTo((server.address() as AddressInfo).port);
    await assert.rejects(
      transport.watch("/api/v1/pods", { resourceVersion: "old" }, () => undefined, AbortSignal.timeout(5_000)),
      (err: unknown) => err instanceof WatchRefusedError && err.statusCode === 410 && /too old resource version/.test(err.message),
    );
    const stop = new AbortController();
    const watching = transport.watch("/api/v1/pods", { resourceVersion: "5" }, () => undefined, stop.signal);
    setTimeout(() => stop.abort(), 50);
    await watching;
    await transport.close();
  } finally {
    server.closeAllConnections();
    server.close();
  }
});
