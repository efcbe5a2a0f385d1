// The three clients' update-and-watch examples, run as their READMEs say, against one real server: each must
// end with `completed N/N`. They run one after another, each moving the server to another release.
import assert from "node:assert/strict";
import { cp, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { lastLine, runCommand } from "../harness/command.js";
import { REPO_ROOT, startServer, type ServerProcess } from "../harness/server.js";
import { skipTier } from "../harness/tiers.js";
import { PYTHON as python } from "../harness/tools.js";

let server: ServerProcess;
before(async () => (server = await startServer(["--reconcile-interval", "60s"])));
after(async () => assert.equal(await server.stop(), 0));

const flags = (version: string): string[] => [
  "--address",
  server.address,
  "--image",
  join(REPO_ROOT, `examples/payloads/demo-${version}`),
  "--version",
  version,
];

test("TypeScript example: tsx examples/update-and-watch.ts", { timeout: 120_000 }, async () => {
  const cwd = join(REPO_ROOT, "clients/ts");
  assert.match(await lastLine(process.execPath, ["--import", "tsx", "examples/update-and-watch.ts", ...flags("1.0.0")], { cwd }), /^completed (\d+)\/\1$/);
});

test("Go example: go run ./examples/update-and-watch", { timeout: 300_000, skip: skipTier("go") }, async () => {
  const cwd = join(REPO_ROOT, "clients/go");
  assert.match(await lastLine("go", ["run", "./examples/update-and-watch", ...flags("1.1.0")], { cwd }), /^completed (\d+)\/\1$/);
});

test("Python example: update_and_watch.py from the package pip installs", { timeout: 300_000, skip: skipTier("clients") }, async () => {
  // Installed from clients/python for real (its pyproject decides what ships), into a scratch target next to the
  // tools venv's grpcio: --no-deps and --no-build-isolation keep it offline.
  const scratch = await mkdtemp(join(tmpdir(), "syncworker-py-"));
  const target = join(scratch, "site");
  try {
    const pyproject = join(REPO_ROOT, "clients/python");
    // pip builds in the source tree (build/, *.egg-info); a copy keeps the checkout clean and parallel runs apart.
    const source = join(scratch, "src");
    await cp(pyproject, source, { recursive: true, filter: (path) => !/(__pycache__|\.egg-info|\/build)$/.test(path) });
    await runCommand(python, ["-m", "pip", "install", "--quiet", "--no-deps", "--no-build-isolation", "--target", target, source], {
      cwd: scratch,
      env: { PYTHONDONTWRITEBYTECODE: "1" },
    });
    // The example runs from a directory without the sources, so only the installed package can satisfy imports.
    const line = await lastLine(python, [join(pyproject, "examples/update_and_watch.py"), ...flags("1.0.0")], { cwd: tmpdir(), env: { PYTHONPATH: target } });
    assert.match(line, /^completed (\d+)\/\1$/);
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
});
