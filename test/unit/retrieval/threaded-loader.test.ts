import assert from "node:assert/strict";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { loadUpdate, PayloadError } from "../../../src/payload/index.js";
import { nodePayloadFs, ThreadedPayloadLoader } from "../../../src/retrieval/index.js";
import { UpdateError } from "../../../src/core/index.js";
import { tempRelease } from "../../harness/payload-gen.js";

const DEMO = fileURLToPath(new URL("../../../examples/payloads/demo-1.0.0", import.meta.url));
const options = { knownCapabilities: ["Console"], architecture: "amd64" };
const never = new AbortController().signal;
/** A generated release of a few hundred manifests: a load long enough to cancel. */
const RELEASE = await tempRelease();

test("a cancelled load rejects with the signal's reason and the thread goes on serving loads", async () => {
  const loader = new ThreadedPayloadLoader(options, 60_000);
  try {
    const controller = new AbortController();
    const cancelled = loader.load({ directory: RELEASE }, "release:1.0.0", controller.signal);
    const reason = new Error("superseded");
    controller.abort(reason);
    await assert.rejects(cancelled, (err: unknown) => err === reason);
    await assert.rejects(
      loader.load({ directory: RELEASE }, "release:1.0.0", controller.signal),
      (err: unknown) => err === reason,
      "an aborted signal is refused at once",
    );
    const next = await loader.load({ directory: DEMO }, "demo:1.0.0", never);
    assert.equal(next.release.version, "1.0.0");
  } finally {
    await loader.close();
  }
});

test("a load still running at its deadline fails with a Timeout PayloadError", async () => {
  const loader = new ThreadedPayloadLoader(options, 1);
  try {
    await assert.rejects(loader.load({ directory: RELEASE }, "release:1.0.0", never), {
      kind: "Timeout",
      step: "LoadPayload",
      reason: "UpdatePayloadLoadTimeout",
      message: `the payload ${RELEASE} did not load within 0.001s`,
    });
  } finally {
    await loader.close();
  }
});

test("the threaded loader returns what loadUpdate returns, and keeps error reasons", async () => {
  const loader = new ThreadedPayloadLoader(options, 60_000);
  try {
    const threaded = await loader.load({ directory: DEMO }, "demo:1.0.0", never);
    const direct = await loadUpdate(DEMO, "demo:1.0.0", options, nodePayloadFs);
    assert.deepEqual(threaded, direct);
    await assert.rejects(
      loader.load({ directory: "/nonexistent/payload" }, "x", never),
      (err: unknown) => err instanceof PayloadError && err.kind === "MissingFile" && /nonexistent/.test(err.message),
    );
    const broken = fileURLToPath(new URL("../../../examples", import.meta.url));
    // A folder that is not a payload is refused naming what is missing, not with any error.
    await assert.rejects(
      loader.load({ directory: broken }, "x", never),
      (err: unknown) => err instanceof PayloadError && err.kind === "MissingFile" && /examples\/manifests: no such file/.test(err.message),
    );
  } finally {
    await loader.close();
  }
});

test("an integrity failure crosses the thread as a PayloadError (an UpdateError)", async () => {
  const loader = new ThreadedPayloadLoader({ ...options, knownCapabilities: [] }, 60_000);
  try {
    const { mkdtemp, cp, writeFile } = await import("node:fs/promises");
    const { tmpdir } = await import("node:os");
    const dir = await mkdtemp(`${tmpdir()}/syncworker-thread-`);
    await cp(DEMO, dir, { recursive: true });
    await writeFile(`${dir}/release-manifests/0000_99_x_bad.yaml`, "kind: ConfigMap\nmetadata: {name: [\n");
    await assert.rejects(loader.load({ directory: dir }, "x", never), (err: unknown) => {
      assert.ok(err instanceof UpdateError && err.reason === "UpdatePayloadIntegrity");
      // The typed error survives the thread boundary with where it happened.
      assert.ok(err instanceof PayloadError);
      assert.deepEqual([err.kind, err.step, err.file, err.document, err.line], ["Manifests", "LoadPayload", "release-manifests/0000_99_x_bad.yaml", 1, 3]);
      return true;
    });
  } finally {
    await loader.close();
  }
});

test("the enabled feature gates travel to the loader thread and filter there", async () => {
  const { mkdtemp, cp, writeFile, rm } = await import("node:fs/promises");
  const { tmpdir } = await import("node:os");
  const dir = await mkdtemp(`${tmpdir()}/syncworker-thread-`);
  const gated = new ThreadedPayloadLoader({ ...options, enabledFeatureGates: new Set(["gate1"]) }, 60_000);
  const ungated = new ThreadedPayloadLoader(options, 60_000);
  try {
    await cp(DEMO, dir, { recursive: true });
    const annotations = '{include.release.openshift.io/self-managed-high-availability: "true", release.openshift.io/feature-gate: gate1}';
    await writeFile(
      `${dir}/release-manifests/0000_99_x_gated.yaml`,
      `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: gated, namespace: x, annotations: ${annotations}}\n`,
    );
    const names = async (loader: ThreadedPayloadLoader): Promise<(string | undefined)[]> =>
      (await loader.load({ directory: dir }, "x", never)).manifests.map((m) => m.obj.metadata?.name);
    assert.ok((await names(gated)).includes("gated"));
    assert.ok(!(await names(ungated)).includes("gated"));
  } finally {
    await Promise.all([gated.close(), ungated.close(), rm(dir, { recursive: true, force: true })]);
  }
});

test("a load's warnings (a skipped template) reach the caller's thread with the update", async () => {
  const { mkdtemp, cp, writeFile, rm } = await import("node:fs/promises");
  const { tmpdir } = await import("node:os");
  const dir = await mkdtemp(`${tmpdir()}/syncworker-thread-`);
  const warnings: string[] = [];
  const loader = new ThreadedPayloadLoader(options, 60_000, (w) => warnings.push(w));
  try {
    await cp(DEMO, dir, { recursive: true });
    await writeFile(
      `${dir}/manifests/0000_00_future.yaml`,
      "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: future, namespace: x}\ndata: {image: '{{ .FutureField }}'}\n",
    );
    const update = await loader.load({ directory: dir }, "x", never);
    assert.ok(!update.manifests.some((m) => m.originalFilename === "0000_00_future.yaml"));
    assert.equal(warnings.length, 1);
    assert.match(warnings[0] ?? "", /^Skipping manifest manifests\/0000_00_future\.yaml: template rendering failed/);
  } finally {
    await Promise.all([loader.close(), rm(dir, { recursive: true, force: true })]);
  }
});
