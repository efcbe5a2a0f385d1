import assert from "node:assert/strict";
import { test } from "node:test";
import { Task } from "../../../src/graph/index.js";
import { UpdateError, systemClock, type SpanAttributes, type Tracing } from "../../../src/core/index.js";
import { otlpProtocol, tracesExporters } from "../../../src/telemetry/index.js";
import { runTask } from "../../../src/worker/index.js";
import { configMap } from "../../harness/worker-harness.js";

const cases: Array<{ name: string; env: NodeJS.ProcessEnv; exporters: string[] }> = [
  { name: "nothing set: off (no collector to send to)", env: {}, exporters: [] },
  { name: "an OTLP endpoint alone turns OTLP on", env: { OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:4317" }, exporters: ["otlp"] },
  { name: "a traces endpoint alone turns OTLP on", env: { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "http://127.0.0.1:4318/v1/traces" }, exporters: ["otlp"] },
  { name: "none wins over an endpoint", env: { OTEL_TRACES_EXPORTER: "none", OTEL_EXPORTER_OTLP_ENDPOINT: "http://x:4317" }, exporters: [] },
  { name: "console", env: { OTEL_TRACES_EXPORTER: "console" }, exporters: ["console"] },
  { name: "a list, spaces and case ignored", env: { OTEL_TRACES_EXPORTER: " OTLP, console ,otlp" }, exporters: ["otlp", "console"] },
  { name: "SDK disabled", env: { OTEL_SDK_DISABLED: "true", OTEL_TRACES_EXPORTER: "otlp" }, exporters: [] },
  { name: "empty means unset", env: { OTEL_TRACES_EXPORTER: "", OTEL_EXPORTER_OTLP_ENDPOINT: "" }, exporters: [] },
];
for (const tc of cases) test(`OTEL_TRACES_EXPORTER: ${tc.name}`, () => assert.deepEqual(tracesExporters(tc.env), tc.exporters));

test("OTLP protocol: the traces variable wins, http/protobuf by default, anything else is an error", () => {
  assert.equal(otlpProtocol({}), "http/protobuf");
  assert.equal(otlpProtocol({ OTEL_EXPORTER_OTLP_PROTOCOL: "grpc" }), "grpc");
  assert.equal(otlpProtocol({ OTEL_EXPORTER_OTLP_PROTOCOL: "grpc", OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: "http/json" }), "http/json");
  assert.throws(() => otlpProtocol({ OTEL_EXPORTER_OTLP_PROTOCOL: "thrift" }), /grpc, http\/protobuf or http\/json/);
});

/** Records spans as the worker opens them. */
function recordingTracing(): { tracing: Tracing; spans: Array<{ name: string; attributes: Record<string, unknown> }> } {
  const spans: Array<{ name: string; attributes: Record<string, unknown> }> = [];
  return {
    spans,
    tracing: {
      enabled: true,
      span: async (name, attributes, fn) => {
        const record = { name, attributes: { ...attributes } as Record<string, unknown> };
        spans.push(record);
        return fn({ setAttributes: (a: SpanAttributes) => Object.assign(record.attributes, a), fail: () => undefined });
      },
    },
  };
}

const backoff = { durationMs: 1, factor: 1, jitter: 0, steps: 3, capMs: 0 };

test("a task span names the object, its place in the payload, attempts and outcome", async () => {
  const { tracing, spans } = recordingTracing();
  let calls = 0;
  const task = new Task(3, 10, configMap("cm", "0000_50_my-operator_01_cm.yaml"), backoff);
  const applier = {
    apply: async () => {
      if (calls++ === 0) throw new Error("transient");
    },
  };
  const done: string[] = [];
  await runTask(task, "Updating", { applier, clock: systemClock, random: () => 0, tracing, onTaskDone: (_t, r) => done.push(r) }, new AbortController().signal);
  assert.equal(spans.length, 1);
  assert.equal(spans[0]?.name, "apply ConfigMap test/cm");
  assert.deepEqual(spans[0]?.attributes, {
    "k8s.resource.group": "",
    "k8s.resource.version": "v1",
    "k8s.resource.kind": "ConfigMap",
    "k8s.namespace.name": "test",
    "k8s.resource.name": "cm",
    "syncworker.manifest.file": "0000_50_my-operator_01_cm.yaml",
    "syncworker.task.run_level": "50",
    "syncworker.task.component": "my-operator",
    "syncworker.task.index": "3 of 10",
    "syncworker.task.attempts": 2,
    "syncworker.task.outcome": "applied",
  });
  assert.deepEqual(done, ["applied"]);
});

test("a failed task span carries the error's reason and effect", async () => {
  const { tracing, spans } = recordingTracing();
  const task = new Task(1, 1, configMap("cm"), backoff);
  const applier = { apply: async () => Promise.reject(new UpdateError({ reason: "WorkloadNotAvailable", message: "not ready", effect: "FailAfterInterval" })) };
  await assert.rejects(runTask(task, "Updating", { applier, clock: systemClock, random: () => 0, tracing }, new AbortController().signal));
  assert.equal(spans[0]?.attributes["syncworker.task.outcome"], "failed");
  assert.equal(spans[0]?.attributes["syncworker.error.reason"], "WorkloadNotAvailable");
  assert.equal(spans[0]?.attributes["syncworker.error.effect"], "FailAfterInterval");
  assert.equal(spans[0]?.attributes["syncworker.task.attempts"], 1);
});
