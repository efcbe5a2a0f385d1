// `serve --event-sink` against real HTTP sinks that parse what they receive with the CloudEvents SDK: the events of
// an install and an update of the demo release, in order, with their trace context, paused and resumed; a sink down for 10 s gets
// everything once it is back, in the same order as a sink that never went down; a sink that never answers holds
// up neither the sync nor the other sinks; after a restart the first event carries the current state.
import assert from "node:assert/strict";
import { once } from "node:events";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { after, test } from "node:test";
import { HTTP, type CloudEventV1 } from "cloudevents";
import { isComplete, type SyncWorkerStatus } from "@syncworker/client";
import { runCli } from "../harness/cli.js";
import { REPO_ROOT, startServer, waitForStatus, type ServerProcess } from "../harness/server.js";

const DEMO = join(REPO_ROOT, "examples/payloads");
type Received = CloudEventV1<Record<string, unknown>>;

/** An HTTP sink: parses each request with the SDK and answers 202, or 503 while `down`, or never while `stalled`. */
class Sink {
  readonly events: Received[] = [];
  readonly modes: string[] = [];
  down = false;
  stalled = false;
  refusedWhileDown = 0;
  readonly #held: ServerResponse[] = [];
  readonly server: Server;

  constructor() {
    this.server = createServer((req, res) => void this.#handle(req, res));
  }

  async start(): Promise<string> {
    this.server.listen(0, "127.0.0.1");
    await once(this.server, "listening");
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/events`;
  }

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    if (this.stalled) return void this.#held.push(res);
    if (this.down) {
      this.refusedWhileDown++;
      return void res.writeHead(503).end();
    }
    const event = HTTP.toEvent({ headers: req.headers, body: Buffer.concat(chunks).toString("utf8") }) as Received;
    this.modes.push(String(req.headers["content-type"]).startsWith("application/cloudevents+json") ? "structured" : "binary");
    this.events.push(event);
    res.writeHead(202).end();
  }

  types(): string[] {
    return this.events.map((e) => e.type.replace(/^io\.syncworker\.|\.v1$/g, ""));
  }

  async close(): Promise<void> {
    for (const res of this.#held) res.destroy();
    this.server.closeAllConnections();
    this.server.close();
  }
}

const steady = new Sink();
const flaky = new Sink();
const stalled = new Sink();
stalled.stalled = true;
const STATE = await mkdtemp(join(tmpdir(), "syncworker-events-"));
const urls = { steady: await steady.start(), flaky: await flaky.start(), stalled: await stalled.start() };
let server: ServerProcess;
after(async () => {
  await server?.stop();
  await Promise.all([steady.close(), flaky.close(), stalled.close()]);
});

const serve = (): Promise<ServerProcess> =>
  startServer(
    [
      "--state-dir",
      STATE,
      "--operator-delay",
      "3s",
      "--reconcile-interval",
      "60s",
      "--event-sink",
      urls.steady,
      "--event-sink",
      urls.flaky,
      "--event-sink",
      urls.stalled,
    ],
    // Spans go to stdout, so the sync is traced and the events carry its trace context.
    { OTEL_TRACES_EXPORTER: "console" },
  );
const completeAt = (version: string) => (s: SyncWorkerStatus) => isComplete(s) && s.actual?.version === version;

async function until(what: string, predicate: () => boolean, timeoutMs = 60_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!predicate()) {
    if (Date.now() > end) assert.fail(`${what}: not within ${timeoutMs} ms; the steady sink has ${steady.types().join(", ")}\n${server.stderr().slice(-2000)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

test("an install: status first, then accepted, started, components blocked, completed and a CDEvent, in revision order", { timeout: 180_000 }, async () => {
  server = await serve();
  await until("the first event", () => steady.events.length > 0);
  assert.equal(steady.types()[0], "status", "the first event resynchronises");
  assert.equal(steady.events[0]?.data?.["state"], "Idle");

  await server.client.update({ generation: 1, desired: { image: join(DEMO, "demo-1.0.0") } });
  await waitForStatus(server.client, completeAt("1.0.0"), 120_000);
  await until("the completion and its CDEvent", () => steady.types().includes("dev.cdevents.service.deployed.0.2.0"));
  const kinds = steady.types();
  const at = (kind: string): number => kinds.indexOf(kind);
  assert.ok(at("update.accepted") > 0 && at("update.accepted") < at("update.started"), kinds.join(", "));
  assert.ok(at("update.started") < at("component.blocked") && at("component.blocked") < at("update.completed"), kinds.join(", "));
  assert.equal(kinds[at("update.completed") + 1], "dev.cdevents.service.deployed.0.2.0");

  const blocked = steady.events.filter((e) => e.type === "io.syncworker.component.blocked.v1");
  assert.ok(blocked.every((e) => e.subject === e.data?.["component"] && typeof e.data?.["reason"] === "string" && e.data["reason"] !== ""));
  const waits = blocked.map((e) => `${e.subject} ${String(e.data?.["reason"])}`);
  assert.equal(new Set(waits).size, waits.length, `once per wait: ${waits.join(", ")}`);

  const ours = steady.events.filter((e) => e.type.startsWith("io.syncworker."));
  const revisions = ours.map((e) => Number(e.sequence));
  assert.deepEqual(
    revisions,
    [...revisions].sort((a, b) => a - b),
    "in revision order",
  );
  assert.ok(ours.every((e) => e.source === steady.events[0]?.source && e.data?.["revision"] === Number(e.sequence)));
  const completed = ours.find((e) => e.type === "io.syncworker.update.completed.v1");
  assert.deepEqual(completed?.data?.["release"], { version: "1.0.0", image: join(DEMO, "demo-1.0.0") });
  const traced = ours.filter((e) => e.type !== "io.syncworker.status.v1" && e.type !== "io.syncworker.update.accepted.v1");
  assert.ok(
    traced.every((e) => /^00-[0-9a-f]{32}-[0-9a-f]{16}-0[01]$/.test(String(e["traceparent"]))),
    "the events of the sync carry its trace context",
  );
  const traceIds = new Set(traced.map((e) => String(e["traceparent"]).split("-")[1]));
  assert.ok(server.stdout().includes([...traceIds][0] ?? "none"), "the trace the events name is the one exported");
  assert.ok(
    steady.modes.every((m) => m === "binary"),
    "binary mode by default",
  );
});

test("an update paused and resumed, with the flaky sink down for 10 s: it gets everything, in order", { timeout: 240_000 }, async () => {
  const seen = steady.events.length;
  flaky.down = true;
  const downSince = Date.now();
  await server.client.update({ generation: 2, desired: { image: join(DEMO, "demo-1.1.0") } });
  await until("apply started", () => steady.types().slice(seen).includes("update.started"));
  // From the test's own connection: a CLI's cold start on a busy machine can outlast the update.
  await server.client.pauseUpdate("events test");
  await until("the pause", () => steady.types().slice(seen).includes("update.paused"));
  const paused = steady.events.find((e, i) => i >= seen && e.type === "io.syncworker.update.paused.v1");
  assert.equal(paused?.data?.["reason"], "events test");
  await new Promise((resolve) => setTimeout(resolve, Math.max(0, 10_000 - (Date.now() - downSince))));
  assert.ok(flaky.refusedWhileDown > 0, "the flaky sink was tried while down");
  flaky.down = false;
  assert.equal((await runCli(["resume", "--address", server.address])).code, 0);
  await waitForStatus(server.client, completeAt("1.1.0"), 120_000);
  await until("the upgrade told", () => steady.types().includes("dev.cdevents.service.upgraded.0.2.0"));
  await until("the flaky sink caught up", () => flaky.events.length === steady.events.length, 90_000);
  assert.deepEqual(
    flaky.events.map((e) => e.id),
    steady.events.map((e) => e.id),
    "the same events in the same order",
  );
  const kinds = steady.types().slice(seen);
  assert.ok(kinds.indexOf("update.paused") < kinds.indexOf("update.resumed"), kinds.join(", "));
  assert.ok(kinds.indexOf("update.resumed") < kinds.indexOf("update.completed"), kinds.join(", "));
  assert.equal(stalled.events.length, 0, "the stalled sink never answered, and held nothing else up");
});

test("after a restart the first event carries the current state", { timeout: 120_000 }, async () => {
  assert.equal(await server.stop(), 0);
  const seen = steady.events.length;
  server = await serve();
  await until("the first event after the restart", () => steady.events.length > seen);
  const first = steady.events[seen];
  assert.equal(first?.type, "io.syncworker.status.v1");
  assert.deepEqual(first?.data?.["release"], { version: "1.1.0", image: join(DEMO, "demo-1.1.0") });
  const before = steady.events.slice(0, seen).findLast((e) => e.sequence !== undefined);
  assert.ok(Number(first?.sequence) > Number(before?.sequence), "revisions go on growing across the restart");
});
