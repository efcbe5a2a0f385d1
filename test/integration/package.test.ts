// The published package as a user gets it: `npm pack` (which builds dist/), the tarball installed into an empty
// directory with production dependencies only, and its `syncworker` command serving both demo releases.
import assert from "node:assert/strict";
import { execFile, spawn } from "node:child_process";
import { once } from "node:events";
import { existsSync } from "node:fs";
import { mkdtemp, readdir, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { before, test } from "node:test";
import { promisify } from "node:util";
import { REPO_ROOT, SYNCWORKER } from "../harness/server.js";

const execFileAsync = promisify(execFile);

/** execFile whose failure message carries the command's output (tsc reports build errors on stdout). */
async function run(file: string, args: readonly string[], options: { cwd: string }): Promise<{ stdout: string; stderr: string }> {
  try {
    return await execFileAsync(file, args, { ...options, maxBuffer: 16 << 20 });
  } catch (err) {
    const { stdout, stderr } = err as { stdout?: string; stderr?: string };
    throw new Error(`${file} ${args.join(" ")} failed in ${options.cwd}:\n${stdout ?? ""}${stderr ?? ""}`, { cause: err });
  }
}

let installDir = "";
let packageDir = "";
let command = "";

before(
  async () => {
    const packDir = await mkdtemp(join(tmpdir(), "syncworker-pack-"));
    // prepack runs `npm run build`, so the tarball holds a build of the sources as they are.
    await run("npm", ["pack", "--pack-destination", packDir], { cwd: REPO_ROOT });
    const tarballs = (await readdir(packDir)).filter((name) => name.endsWith(".tgz"));
    assert.equal(tarballs.length, 1, `one tarball in ${packDir}: ${tarballs.join(", ")}`);
    installDir = await mkdtemp(join(tmpdir(), "syncworker-install-"));
    await writeFile(join(installDir, "package.json"), JSON.stringify({ name: "syncworker-install-test", private: true }));
    // From the local npm cache where it can, as CI's `npm ci` filled it.
    await run("npm", ["install", "--omit=dev", "--prefer-offline", "--no-audit", "--no-fund", join(packDir, tarballs[0]!)], { cwd: installDir });
    packageDir = join(installDir, "node_modules", "syncworker");
    command = join(installDir, "node_modules", ".bin", "syncworker");
  },
  { timeout: 300_000 },
);

test("the package ships the build, the protos and the demo payloads; no sources, no dev dependencies", () => {
  for (const file of [
    "bin/syncworker.js",
    "dist/cli/bin.js",
    "dist/retrieval/load-thread.js",
    "proto/syncworker/v1/syncworker.proto",
    "examples/payloads/demo-1.0.0/release-manifests/release-metadata",
  ]) {
    assert.ok(existsSync(join(packageDir, file)), `${file} is in the package`);
  }
  for (const file of ["src", "test", "dist/retrieval/load-thread-entry.mjs"]) assert.ok(!existsSync(join(packageDir, file)), `${file} is not in the package`);
  for (const dev of ["tsx", "typescript"]) assert.ok(!existsSync(join(installDir, "node_modules", dev)), `${dev} is not installed with --omit=dev`);
});

/** A `serve` process on a free port; resolves once it prints its address. */
async function serve(argv: readonly string[], cwd: string): Promise<{ address: string; startedIn: number; stop: () => Promise<number | null> }> {
  const stateDir = await mkdtemp(join(tmpdir(), "syncworker-package-state-"));
  const started = performance.now();
  const [file, ...rest] = argv;
  const child = spawn(
    file!,
    [...rest, "serve", "--listen", "127.0.0.1:0", "--operator-delay", "100ms", "--reconcile-interval", "30s", "--state-dir", stateDir],
    {
      cwd,
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  let stderr = "";
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = once(child, "exit");
  const line = await new Promise<string>((resolve, reject) => {
    child.once("exit", (code) => reject(new Error(`serve exited with ${code} before listening: ${stderr}`)));
    createInterface({ input: child.stdout }).on("line", (l) => l.startsWith("listening on ") && resolve(l));
  });
  return {
    address: line.slice("listening on ".length),
    startedIn: performance.now() - started,
    stop: async () => {
      child.kill("SIGTERM");
      const [code] = (await exited) as [number | null];
      return code;
    },
  };
}

test("the installed command serves and completes both demo releases", { timeout: 120_000 }, async () => {
  const server = await serve([command], installDir);
  try {
    for (const version of ["1.0.0", "1.1.0"]) {
      const image = join(packageDir, "examples", "payloads", `demo-${version}`);
      const update = await run(command, ["update", "--image", image, "--generation", version === "1.0.0" ? "1" : "2", "--address", server.address], {
        cwd: installDir,
      });
      // Loaded by the payload thread, which runs the compiled dist/retrieval/load-thread.js.
      assert.equal((JSON.parse(update.stdout) as { loadPayloadStatus: { step: string } }).loadPayloadStatus.step, "PayloadLoaded", update.stdout);
      const watched = await run(command, ["watch", "--until-complete", version, "--address", server.address], { cwd: installDir });
      const last = JSON.parse(watched.stdout.trim().split("\n").at(-1)!) as { message: string; done: number; total: number };
      assert.equal(last.message, `Cluster version is ${version}`);
      assert.equal(last.done, last.total);
    }
  } finally {
    assert.equal(await server.stop(), 0, "SIGTERM stops it with exit 0");
  }
});

test("start-up time: the installed build against the sources through tsx", { timeout: 120_000 }, async (t) => {
  const median = async (argv: readonly string[], cwd: string): Promise<number> => {
    const times: number[] = [];
    for (let i = 0; i < 3; i++) {
      const server = await serve(argv, cwd);
      times.push(server.startedIn);
      assert.equal(await server.stop(), 0);
    }
    return times.sort((a, b) => a - b)[1]!;
  };
  const compiled = await median([command], installDir);
  const sources = await median([process.execPath, ...SYNCWORKER], REPO_ROOT);
  t.diagnostic(`spawn to "listening on", median of 3: compiled ${(compiled / 1000).toFixed(2)} s, sources through tsx ${(sources / 1000).toFixed(2)} s`);
});
