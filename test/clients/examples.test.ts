// The three clients' update-and-watch examples, run as their READMEs say, against one real server: each must
// end with `completed N/N`. They run one after another, each moving the server to another release.
import assert from "node:assert/strict";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { lastLine } from "../harness/command.js";
import { PYTHON_CLIENT, withInstalledPythonClient } from "../harness/python-client.js";
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
  const line = await withInstalledPythonClient((env) =>
    lastLine(python, [join(PYTHON_CLIENT, "examples/update_and_watch.py"), ...flags("1.0.0")], { cwd: tmpdir(), env }),
  );
  assert.match(line, /^completed (\d+)\/\1$/);
});
