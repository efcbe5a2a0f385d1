// The Containerfile, built and run for real with Debian's buildah, nothing pulled: FROM a base made by the harness
// (Debian minbase from the apt mirror with the npm registry's Node.js, cached by its inputs), the image runs as the
// Deployment runs it (read-only root, its numeric user, HOME unwritable, a volume where deploy/ mounts one) and
// completes the demo update and an update by image reference, pulled from a real registry and verified; pushed
// there, skopeo reads back its config. hadolint lints it.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { chmod, mkdtemp, readdir, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { promisify } from "node:util";
import * as openpgp from "openpgp";
import { parse } from "yaml";
import type { SyncWorkerStatus } from "@syncworker/client";
import { goArch } from "../../src/payload/index.js";
import { RegistryClient } from "../../src/retrieval/index.js";
import { parseReference, pushPayload } from "../../src/retrieval/registry/index.js";
import { pushSignature, readSigningKey, signImage } from "../../src/retrieval/verify/index.js";
import { buildImage, imageConfig, imageSize, nodeBaseImage, pushImageTo, runImage } from "../harness/container.js";
import { startRegistry, type TestRegistry } from "../harness/registry.js";
import { REPO_ROOT, superviseServer, waitForStatus } from "../harness/server.js";
import { skipTier, tierTests } from "../harness/tiers.js";
import { venvCommand } from "../harness/tools.js";

const CONTAINERFILE = join(REPO_ROOT, "Containerfile");

/** Instructions as [keyword, arguments], continuation lines joined and comments dropped. */
function instructions(text: string): Array<[string, string]> {
  return text
    .replace(/\\\n(\s*#.*\n)*/g, " ")
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "" && !line.startsWith("#"))
    .map((line) => {
      const [keyword = "", ...rest] = line.split(/\s+/);
      return [keyword.toUpperCase(), rest.join(" ")];
    });
}

test("hadolint finds nothing in the Containerfile", { skip: skipTier("clients") }, async () => {
  const hadolint = venvCommand("hadolint");
  const result = await promisify(execFile)(hadolint, [CONTAINERFILE]).catch((err: { code: number | string; stdout?: string; stderr?: string }) => {
    const hint = err.code === "ENOENT" ? ` (${hadolint} is missing: run scripts/setup-clients.sh)` : "";
    assert.fail(`hadolint ${String(err.code)}${hint}:\n${err.stdout ?? ""}${err.stderr ?? ""}`);
  });
  assert.equal(result.stdout, "");
});

test("the runtime stage holds what the package ships, runs as a numeric non-root user, and starts the program", () => {
  const all = instructions(readFileSync(CONTAINERFILE, "utf8"));
  const runtime = all.slice(all.findLastIndex(([keyword]) => keyword === "FROM"));

  // Sources copied from the build context exist (a renamed folder would break the build only where it runs).
  for (const [keyword, args] of all.filter(([k, a]) => k === "COPY" && !a.startsWith("--from"))) {
    for (const source of args.split(/\s+/).slice(0, -1)) assert.ok(existsSync(join(REPO_ROOT, source)), `${keyword} ${args}: ${source} exists`);
  }
  const copiedTo = runtime.filter(([k]) => k === "COPY").map(([, args]) => args.split(/\s+/).at(-1)?.replace(/^\.\//, ""));
  const { files } = JSON.parse(readFileSync(join(REPO_ROOT, "package.json"), "utf8")) as { files: string[] };
  for (const entry of files.filter((f) => f !== "README.md")) assert.ok(copiedTo.includes(entry), `the image has ${entry}, as the package does`);
  assert.ok(copiedTo.includes("node_modules"), "and its production dependencies");

  const user = runtime.filter(([k]) => k === "USER").at(-1)?.[1] ?? "";
  assert.match(user, /^\d+(:\d+)?$/, "a numeric user, which Kubernetes can check against runAsNonRoot");
  assert.notEqual(Number(user.split(":")[0]), 0, "not root");
  const entrypoint = JSON.parse(runtime.find(([k]) => k === "ENTRYPOINT")?.[1] ?? "[]") as string[];
  assert.deepEqual(entrypoint, ["node", "/app/bin/syncworker.js"], "node is PID 1 and receives SIGTERM itself");
});

/**
 * The build of this checkout, tagged by its path so checkouts tested side by side do not swap images; kept, since
 * removing it drops cached layers: buildah's layer cache makes a rebuild of unchanged sources cheap.
 */
const TAG = `localhost/syncworker:test-${createHash("sha256").update(REPO_ROOT).digest("hex").slice(0, 12)}`;
const signal = new AbortController().signal;
let registry: TestRegistry;
let timings = "";
/** The tests below build and run the image, and push it to a registry. */
const imageTests = tierTests("image", "registry");

imageTests.before(
  async () => {
    const started = Date.now();
    const base = await nodeBaseImage();
    const built = Date.now();
    await buildImage(base, TAG);
    timings = `base image ${((built - started) / 1000).toFixed(1)} s (${base}), buildah bud ${((Date.now() - built) / 1000).toFixed(1)} s`;
    registry = await startRegistry();
  },
  { timeout: 40 * 60_000 },
);
imageTests.after(async () => {
  await registry?.stop();
});

type Container = { env?: Array<{ name: string; value?: string }>; volumeMounts: Array<{ mountPath: string }>; ports: Array<{ containerPort: number }> };
/** The container of deploy/deployment.yaml, whose volumes and environment the image runs with here. */
function deployedContainer(): Container {
  const deployment = parse(readFileSync(join(REPO_ROOT, "deploy/deployment.yaml"), "utf8")) as { spec: { template: { spec: { containers: Container[] } } } };
  return deployment.spec.template.spec.containers[0]!;
}

const completed = (image: string) => (s: SyncWorkerStatus) => s.actual?.image === image && s.completed >= 1 && s.done === s.total && !s.failure;

imageTests.test(
  "the image runs as the Deployment runs it: the demo update completes, and an update by image reference pulls, verifies and completes",
  { timeout: 10 * 60_000 },
  async (t) => {
    t.diagnostic(timings);
    const container = deployedContainer();
    // Each volume as the kubelet makes an emptyDir: empty and writable by the pod's user.
    const volumes: Record<string, string> = {};
    for (const { mountPath } of container.volumeMounts) {
      volumes[mountPath] = await mkdtemp(join(tmpdir(), "syncworker-volume-"));
      await chmod(volumes[mountPath], 0o777);
    }
    const config = await imageConfig(TAG);
    // The embedded cluster's state directory, where the image says (deploy/ drives a real cluster, whose state is a ConfigMap).
    const stateDir = config.Env?.find((e) => e.startsWith("SYNCWORKER_STATE_DIR="))?.split("=")[1];
    assert.ok(stateDir, `the image names its state directory: ${JSON.stringify(config.Env)}`);
    volumes[stateDir] = await mkdtemp(join(tmpdir(), "syncworker-volume-"));
    await chmod(volumes[stateDir], 0o777);

    // Release images must be signed by this key: the service reads it from a directory mounted into the container.
    const { privateKey, publicKey } = await openpgp.generateKey({ userIDs: [{ name: "release", email: "release@example.com" }], format: "armored" });
    volumes["/etc/syncworker/keys"] = await mkdtemp(join(tmpdir(), "syncworker-keys-"));
    await writeFile(join(volumes["/etc/syncworker/keys"], "release.asc"), publicKey);
    await chmod(volumes["/etc/syncworker/keys"], 0o755);
    const client = new RegistryClient({ authFile: "", authFileOptional: true, insecureHosts: [registry.host] });
    const image = await pushPayload(
      client,
      join(REPO_ROOT, "examples/payloads/demo-1.1.0"),
      `${registry.host}/release/demo:1.1.0`,
      goArch(process.arch),
      signal,
    );
    const digest = image.split("@")[1]!;
    await pushSignature(
      client,
      parseReference(image),
      digest,
      await signImage({ digest, reference: image }, await readSigningKey(privateKey), new Date()),
      signal,
    );
    await client.close();

    const env = Object.fromEntries((container.env ?? []).filter((e) => e.value !== undefined).map((e) => [e.name, e.value!]));
    const args = ["serve", "--listen", "127.0.0.1:0", "--admin-listen", "127.0.0.1:0", "--operator-delay", "100ms", "--reconcile-interval", "5s"];
    args.push("--payload-root", "/app/examples/payloads", "--insecure-registry", registry.host, "--verification-keys", "/etc/syncworker/keys");
    const run = await runImage(TAG, args, volumes, { ...env, HOME: "/nonexistent", LOG_LEVEL: "info" });
    try {
      const server = await superviseServer(run.child, false);
      try {
        const demo = "/app/examples/payloads/demo-1.0.0";
        const first = await server.client.update({
          generation: 1,
          desired: { version: "", image: demo, force: true },
          overrides: [],
          capabilities: undefined,
          state: 0,
        });
        assert.equal(first.loadPayloadStatus?.failure, undefined, `the demo payload loads: ${JSON.stringify(first.loadPayloadStatus)}`);
        await waitForStatus(server.client, completed(demo), 180_000);

        const second = await server.client.update({
          generation: 2,
          desired: { version: "", image, force: false },
          overrides: [],
          capabilities: undefined,
          state: 0,
        });
        assert.equal(
          second.loadPayloadStatus?.failure,
          undefined,
          `the pulled payload loads: ${JSON.stringify(second.loadPayloadStatus)}\n${server.stderr().slice(-4_000)}`,
        );
        assert.equal(second.loadPayloadStatus?.verified, true, "and its signature is verified");
        const done = await waitForStatus(server.client, completed(image), 180_000);
        assert.equal(done.verified, true);
        const cache = env["SYNCWORKER_PAYLOAD_CACHE"];
        assert.ok(cache && volumes[cache], "the Deployment's payload cache is one of its volumes");
        assert.notDeepEqual(await readdir(volumes[cache]), [], "the pull was cached on that volume, the one writable place for it");
      } finally {
        assert.equal(await server.stop(), 0, "SIGTERM reaches the service, which exits cleanly");
      }
    } finally {
      await run.remove();
    }
  },
);

imageTests.test(
  "pushed to a registry, the image's config says: a numeric non-root user, the entry point, the Deployment's ports",
  { timeout: 5 * 60_000 },
  async (t) => {
    const pushed = `docker://${registry.host}/syncworker:test`;
    await pushImageTo(TAG, pushed);
    const { stdout } = await promisify(execFile)("skopeo", ["inspect", "--raw", "--tls-verify=false", pushed]);
    const { layers } = JSON.parse(stdout) as { layers: Array<{ size: number }> };
    t.diagnostic(
      `image size: ${await imageSize(TAG)} (buildah), ${(layers.reduce((n, l) => n + l.size, 0) / 1e6).toFixed(1)} MB compressed in the registry, ${layers.length} layers`,
    );

    const config = await imageConfig(pushed);
    const [uid, gid] = (config.User ?? "").split(":");
    assert.match(config.User ?? "", /^\d+:\d+$/, "a numeric user and group, which Kubernetes can check against runAsNonRoot");
    assert.notEqual(Number(uid), 0, "not root");
    assert.notEqual(Number(gid), 0, "nor root's group");
    assert.deepEqual(config.Entrypoint, ["node", "/app/bin/syncworker.js"], "node is PID 1 and receives SIGTERM itself");
    const ports = deployedContainer()
      .ports.map((p) => `${p.containerPort}/tcp`)
      .sort();
    assert.deepEqual(Object.keys(config.ExposedPorts ?? {}).sort(), ports, "it exposes the ports the Deployment uses");
  },
);
