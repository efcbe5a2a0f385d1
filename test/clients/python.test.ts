// Runs the Python client's suite (clients/python) with pytest from `npm test`; it starts its own
// `syncworker serve` processes. The interpreter is the venv from scripts/setup-clients.sh.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { join } from "node:path";
import { promisify } from "node:util";
import { REPO_ROOT } from "../harness/server.js";
import { PYTHON as python } from "../harness/tools.js";
import { tierTests } from "../harness/tiers.js";

const { test } = tierTests("clients", "tls");

const run = promisify(execFile);

test("Python client: pytest against a real server", { timeout: 300_000 }, async (t) => {
  let out: string;
  try {
    const { stdout, stderr } = await run(python, ["-m", "pytest", "-v", "-p", "no:cacheprovider"], {
      cwd: join(REPO_ROOT, "clients/python"),
      maxBuffer: 16 << 20,
      // A hung suite must not outlive the test: SIGTERM lets pytest's fixtures stop their servers.
      timeout: 280_000,
      // No bytecode in clients/python/gen: the generated-code check compares that directory file by file.
      env: { ...process.env, SYNCWORKER_REPO: REPO_ROOT, PYTHONDONTWRITEBYTECODE: "1" },
    });
    out = stdout + stderr;
  } catch (err) {
    const e = err as { stdout?: string; stderr?: string; message: string; code?: unknown };
    const hint = e.code === "ENOENT" ? ` (${python} is missing: run scripts/setup-clients.sh)` : "";
    assert.fail(`pytest failed${hint}:\n${e.stdout ?? ""}${e.stderr ?? e.message}`);
  }
  for (const [, name, result] of out.matchAll(/^\S+::(\S+) (PASSED|FAILED|ERROR)/gm)) t.diagnostic(`${name} ${result}`);
  assert.match(out, / \d+ passed/);
  assert.doesNotMatch(out, / \d+ (failed|errors?)\b/);
});
