import { test } from "node:test";
import assert from "node:assert/strict";
import { PACKAGE_VERSION } from "../../../src/config/index.js";
import { startAdminServer, startMetricsServer, type AdminEndpoints, type HttpEndpoint, type MetricsSource } from "../../../src/telemetry/index.js";

const LOOPBACK = { host: "127.0.0.1", port: 0 };
const working: MetricsSource = { contentType: "text/plain; version=0.0.4; charset=utf-8", metrics: async () => "up 1\n" };
const failing: MetricsSource = { contentType: working.contentType, metrics: () => Promise.reject(new Error("collector broke")) };

async function get(endpoint: HttpEndpoint, path: string): Promise<{ status: number; body: string }> {
  const res = await fetch(`http://${endpoint.address}${path}`);
  return { status: res.status, body: await res.text() };
}

async function withAdmin(endpoints: Partial<AdminEndpoints>, fn: (admin: HttpEndpoint) => Promise<void>): Promise<void> {
  const admin = await startAdminServer(LOOPBACK, { ready: () => "leader", metrics: working, ...endpoints });
  try {
    await fn(admin);
  } finally {
    await admin.close();
  }
}

test("the admin server answers liveness, readiness with the role and release, metrics, and 404 for the rest", async () => {
  await withAdmin({}, async (admin) => {
    assert.deepEqual(await get(admin, "/healthz"), { status: 200, body: "ok" });
    assert.deepEqual(await get(admin, "/readyz"), { status: 200, body: `ok: leader, version ${PACKAGE_VERSION}` });
    assert.deepEqual(await get(admin, "/metrics"), { status: 200, body: "up 1\n" });
    assert.deepEqual(await get(admin, "/debug/embedded/objects"), { status: 404, body: "not found" }, "debug routes only when given");
  });
  await withAdmin({ ready: () => undefined, objects: () => [{ kind: "ConfigMap" }] }, async (admin) => {
    assert.deepEqual(await get(admin, "/readyz"), { status: 503, body: "shutting down" });
    assert.deepEqual(await get(admin, "/debug/embedded/objects"), { status: 200, body: '[{"kind":"ConfigMap"}]' });
  });
});

test("a failed metrics collection is a 500 naming why, on the admin and the metrics server alike", async () => {
  await withAdmin({ metrics: failing }, async (admin) => {
    assert.deepEqual(await get(admin, "/metrics"), { status: 500, body: "Error: collector broke" });
    assert.deepEqual(await get(admin, "/healthz"), { status: 200, body: "ok" }, "the server still serves");
  });
  const metrics = await startMetricsServer(LOOPBACK, failing);
  try {
    assert.deepEqual(await get(metrics, "/metrics"), { status: 500, body: "Error: collector broke" });
  } finally {
    await metrics.close();
  }
});
