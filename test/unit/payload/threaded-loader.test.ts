import assert from "node:assert/strict";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { loadUpdate, ThreadedPayloadLoader, UpdateError } from "../../../src/payload/index.js";

const DEMO = fileURLToPath(new URL("../../../examples/payloads/demo-1.0.0", import.meta.url));
const options = { knownCapabilities: ["Console"], architecture: "amd64" };

test("the threaded loader returns what loadUpdate returns, and keeps error reasons", async () => {
  const loader = new ThreadedPayloadLoader(options);
  try {
    const threaded = await loader.load(DEMO, "demo:1.0.0");
    const direct = await loadUpdate(DEMO, "demo:1.0.0", options);
    assert.deepEqual(threaded, direct);
    await assert.rejects(loader.load("/nonexistent/payload", "x"), (err: unknown) => err instanceof Error && /nonexistent/.test(err.message));
    const broken = fileURLToPath(new URL("../../../examples", import.meta.url));
    await assert.rejects(loader.load(broken, "x"), (err: unknown) => err instanceof Error);
  } finally {
    await loader.close();
  }
});

test("an integrity failure crosses the thread as an UpdateError", async () => {
  const loader = new ThreadedPayloadLoader({ ...options, knownCapabilities: [] });
  try {
    const { mkdtemp, cp, writeFile } = await import("node:fs/promises");
    const { tmpdir } = await import("node:os");
    const dir = await mkdtemp(`${tmpdir()}/syncworker-thread-`);
    await cp(DEMO, dir, { recursive: true });
    await writeFile(`${dir}/release-manifests/0000_99_x_bad.yaml`, "kind: ConfigMap\nmetadata: {name: [\n");
    await assert.rejects(loader.load(dir, "x"), (err: unknown) => err instanceof UpdateError && err.reason === "UpdatePayloadIntegrity");
  } finally {
    await loader.close();
  }
});
