/**
 * Observability against real components: a real Jaeger v2 (built from its Go module, memory storage) receives
 * OTLP from `syncworker serve`, and the trace of a sync of a generated release is read back through Jaeger's query API;
 * /metrics is scraped during and after the sync and parsed as Prometheus text.
 */
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { Metadata } from "@grpc/grpc-js";
import parsePrometheus from "parse-prometheus-text-format";
import { UpdateRequest, type SyncWorkerStatus, type UpdateResponse } from "@syncworker/client/gen/syncworker/v1/syncworker";
import { eventually, startJaeger, tag, type Jaeger, type JaegerSpan, type JaegerTrace } from "../harness/jaeger.js";
import { writeReleases } from "../harness/payload-gen.js";
import { rawClient, startServer, waitForStatus, type ServerProcess } from "../harness/server.js";
import { tierTests } from "../harness/tiers.js";

const { after, before, test } = tierTests("jaeger");

const { a: RELEASE_A } = await writeReleases();
let jaeger: Jaeger;
before(async () => void (jaeger = await startJaeger()), { timeout: 3_600_000 });
after(async () => jaeger?.stop());

function otlpEnv(service: string): NodeJS.ProcessEnv {
  return {
    OTEL_SERVICE_NAME: service,
    OTEL_EXPORTER_OTLP_ENDPOINT: `http://${jaeger.otlpGrpc}`,
    OTEL_EXPORTER_OTLP_PROTOCOL: "grpc",
    OTEL_TRACES_EXPORTER: "otlp",
    OTEL_BSP_SCHEDULE_DELAY: "200",
  };
}

/**
 * Update with a W3C `traceparent`, as a traced client would send it: through a raw client, as the TS client takes no
 * per-call metadata.
 */
function tracedUpdate(server: ServerProcess, traceId: string, parentId: string): Promise<UpdateResponse> {
  const metadata = new Metadata();
  metadata.set("traceparent", `00-${traceId}-${parentId}-01`);
  const request = UpdateRequest.fromPartial({ generation: 1, desired: { image: RELEASE_A } });
  const client = rawClient(server.address);
  return new Promise<UpdateResponse>((resolve, reject) => client.update(request, metadata, (err, res) => (err ? reject(err) : resolve(res)))).finally(() =>
    client.close(),
  );
}

/** `cluster_version_payload{version,type}` from a scrape of /metrics. */
async function payloadGauge(metricsAddress: string, version: string): Promise<{ pending: number; applied: number } | undefined> {
  const text = await (await fetch(`http://${metricsAddress}/metrics`)).text();
  const family = parsePrometheus(text).find((f) => f.name === "cluster_version_payload");
  const value = (type: string): number | undefined => {
    const sample = family?.metrics.find((m) => m.labels?.["version"] === version && m.labels["type"] === type);
    return sample?.value === undefined ? undefined : Number(sample.value);
  };
  const pending = value("pending");
  const applied = value("applied");
  return pending === undefined || applied === undefined ? undefined : { pending, applied };
}

const isComplete = (s: SyncWorkerStatus): boolean => s.total > 0 && s.done === s.total && s.completed >= 1 && !s.failure;

function ancestors(span: JaegerSpan, byId: ReadonlyMap<string, JaegerSpan>): JaegerSpan[] {
  const chain: JaegerSpan[] = [];
  for (let s: JaegerSpan | undefined = span; s;) {
    const parent: JaegerSpan["references"][number] | undefined = s.references.find((r) => r.refType === "CHILD_OF");
    s = parent ? byId.get(parent.spanID) : undefined;
    if (s) chain.push(s);
  }
  return chain;
}

test(
  "a sync is one trace in Jaeger: a span per manifest under node and sync spans, linked to the Update; /metrics follows done/total",
  { timeout: 300_000 },
  async () => {
    const service = `syncworker-test-${randomBytes(4).toString("hex")}`;
    const server = await startServer(["--metrics-listen", "127.0.0.1:0", "--operator-delay", "200ms"], otlpEnv(service));
    try {
      const traceId = randomBytes(16).toString("hex");
      const clientSpanId = randomBytes(8).toString("hex");
      const response = await tracedUpdate(server, traceId, clientSpanId);
      const version = response.status?.loadPayloadStatus?.update?.version ?? "";
      assert.notEqual(version, "", "the payload loads");

      // Scrape while the sync runs: the gauge lies between the done counts read just before and just after.
      // After a failed pass the status keeps the failed pass's count until the next one gets further (the
      // CVO's StatusWrapper), while the gauge follows the running pass as upstream sets it; so compare only
      // while no failure is shown.
      let midSync = 0;
      let final: SyncWorkerStatus | undefined;
      for (const deadline = Date.now() + 120_000; Date.now() < deadline && !final;) {
        const before = await server.client.getStatus();
        const gauge = await payloadGauge(server.metricsAddress, version);
        const afterScrape = await server.client.getStatus();
        if (gauge && before.total > 0 && before.actual?.version === version) {
          assert.equal(gauge.applied + gauge.pending, before.total, "applied + pending is the payload's total");
          if (gauge.pending > 0) midSync++;
          if (!before.failure && !afterScrape.failure && before.done <= afterScrape.done) {
            assert.ok(
              gauge.applied >= before.done && gauge.applied <= afterScrape.done,
              `applied ${gauge.applied} within done ${before.done}..${afterScrape.done}`,
            );
          }
        }
        if (isComplete(afterScrape)) final = afterScrape;
        else await new Promise((resolve) => setTimeout(resolve, 50));
      }
      final ??= await waitForStatus(server.client, isComplete, 60_000);
      assert.ok(midSync > 0, "/metrics was scraped while the sync was still applying");
      assert.deepEqual(await payloadGauge(server.metricsAddress, version), { pending: 0, applied: final.total }, "after the sync everything is applied");

      // The Update call: a server span in the caller's trace, parented on the caller's span, with payload spans inside.
      const updateTrace = await eventually("the Update trace", 20_000, async () => {
        const t = await jaeger.trace(traceId);
        return t?.spans.some((s) => s.operationName === "payload load") ? t : undefined;
      });
      const updateSpan = updateTrace.spans.find((s) => s.operationName === "syncworker.v1.SyncWorker/Update");
      assert.ok(updateSpan, "a server span for Update");
      assert.deepEqual(
        updateSpan.references.map((r) => [r.refType, r.spanID]),
        [["CHILD_OF", clientSpanId]],
        "the incoming traceparent is the parent",
      );
      assert.equal(tag(updateSpan, "rpc.system"), "grpc");
      assert.equal(tag(updateSpan, "rpc.service"), "syncworker.v1.SyncWorker");
      assert.equal(tag(updateSpan, "rpc.method"), "Update");
      assert.equal(tag(updateSpan, "rpc.grpc.status_code"), 0);
      assert.equal(tag(updateSpan, "span.kind"), "server");
      for (const name of ["payload retrieve", "payload load"]) {
        const span = updateTrace.spans.find((s) => s.operationName === name);
        assert.ok(span, `a "${name}" span`);
        assert.ok(ancestors(span, new Map(updateTrace.spans.map((s) => [s.spanID, s]))).includes(updateSpan), `"${name}" is inside the Update call`);
      }

      // Each sync attempt is its own trace, linked to the Update; the successful one holds a span per manifest.
      const syncs = await eventually("a successful sync trace", 30_000, async () => {
        const traces = await jaeger.traces(service);
        const linked = traces.filter((t) => rootOf(t)?.references.some((r) => r.refType === "FOLLOWS_FROM" && r.spanID === updateSpan.spanID));
        const ok = linked.find((t) => tag(rootOf(t)!, "otel.status_code") !== "ERROR" && t.spans.filter(isApply).length === final.total);
        return ok ? { ok, linked } : undefined;
      });
      const syncTrace = syncs.ok;
      const syncSpan = rootOf(syncTrace)!;
      assert.match(syncSpan.operationName, /^sync (Initializing|Updating|Reconciling) /);
      assert.equal(tag(syncSpan, "syncworker.sync.version"), version);
      assert.equal(tag(syncSpan, "syncworker.sync.total"), final.total);
      assert.equal(tag(syncSpan, "syncworker.sync.generation"), 1);
      assert.equal(typeof tag(syncSpan, "syncworker.sync.attempt"), "number");
      assert.equal(typeof tag(syncSpan, "syncworker.sync.state"), "string");

      const byId = new Map(syncTrace.spans.map((s) => [s.spanID, s]));
      const applies = syncTrace.spans.filter(isApply);
      assert.deepEqual(
        applies.map((s) => tag(s, "syncworker.task.index")).sort(),
        Array.from({ length: final.total }, (_, i) => `${i + 1} of ${final.total}`).sort(),
        "one span per manifest task",
      );
      for (const span of applies) {
        const kind = tag(span, "k8s.resource.kind");
        const ns = tag(span, "k8s.namespace.name");
        const name = tag(span, "k8s.resource.name");
        assert.equal(span.operationName, `apply ${kind} ${ns ? `${ns}/` : ""}${name}`);
        assert.equal(typeof tag(span, "k8s.resource.group"), "string");
        assert.equal(tag(span, "syncworker.task.outcome"), "applied");
        assert.ok(Number(tag(span, "syncworker.task.attempts")) >= 1);
        const chain = ancestors(span, byId);
        assert.ok(
          chain.some((s) => s.operationName.startsWith("node")),
          `${span.operationName} has a node span above it`,
        );
        assert.equal(chain[chain.length - 1], syncSpan, `${span.operationName} is inside the sync span`);
      }
      const readiness = syncTrace.spans.filter((s) => s.operationName.startsWith("readiness "));
      assert.ok(readiness.length > 0, "readiness checks have spans");
      for (const span of readiness) assert.ok(isApply(ancestors(span, byId)[0]!), `${span.operationName} is a child of its task span`);
      const leveled = applies.find((s) => tag(s, "syncworker.task.run_level") !== undefined);
      assert.ok(leveled && typeof tag(leveled, "syncworker.task.component") === "string", "run level and component come from the file name");

      // Failed attempts, if the first pass timed out waiting on operators, name the error on their task spans.
      for (const failed of syncs.linked.flatMap((t) => t.spans.filter((s) => isApply(s) && tag(s, "syncworker.task.outcome") === "failed"))) {
        assert.equal(typeof tag(failed, "syncworker.error.reason"), "string");
        assert.equal(typeof tag(failed, "syncworker.error.effect"), "string");
      }

      // Log lines written inside the Update span carry its ids.
      const logged = server
        .stderr()
        .split("\n")
        .filter((l) => l.includes(`"trace_id":"${traceId}"`));
      assert.ok(logged.length > 0, "log lines inside the Update call carry its trace id");
    } finally {
      assert.equal(await server.stop(), 0);
    }
  },
);

test("OTEL_TRACES_EXPORTER=console prints spans on stdout; =none exports nothing and logs no trace ids", { timeout: 120_000 }, async () => {
  const console = await startServer([], { OTEL_TRACES_EXPORTER: "console", OTEL_SERVICE_NAME: "syncworker-console" });
  try {
    await console.client.getStatus();
    await eventually("a console span", 10_000, async () => (console.stdout().includes("syncworker.v1.SyncWorker/GetStatus") ? true : undefined));
    assert.match(console.stdout(), /'rpc.method': 'GetStatus'/);
  } finally {
    assert.equal(await console.stop(), 0);
  }

  const service = `syncworker-none-${randomBytes(4).toString("hex")}`;
  const none = await startServer([], { ...otlpEnv(service), OTEL_TRACES_EXPORTER: "none" });
  try {
    await tracedUpdate(none, randomBytes(16).toString("hex"), randomBytes(8).toString("hex"));
    await waitForStatus(none.client, isComplete, 60_000);
  } finally {
    assert.equal(await none.stop(), 0);
  }
  assert.deepEqual(await jaeger.traces(service), [], "nothing reaches Jaeger");
  assert.doesNotMatch(none.stderr(), /trace_id/, "no trace ids in the log");
});

function isApply(span: JaegerSpan): boolean {
  return span.operationName.startsWith("apply ");
}

function rootOf(trace: JaegerTrace): JaegerSpan | undefined {
  return trace.spans.find((s) => !s.references.some((r) => r.refType === "CHILD_OF"));
}
