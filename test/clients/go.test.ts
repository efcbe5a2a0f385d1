// Runs the Go client's suite (clients/go) from `npm test`: go vet, then go test, which starts its own
// `syncworker serve` processes. The Go output is shown only when it fails.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { join } from "node:path";
import { promisify } from "node:util";
import { REPO_ROOT } from "../harness/server.js";
import { tierTests } from "../harness/tiers.js";

const { test } = tierTests("go", "tls");

const run = promisify(execFile);
const cwd = join(REPO_ROOT, "clients/go");

async function go(args: readonly string[]): Promise<string> {
  try {
    const { stdout, stderr } = await run("go", args, { cwd, maxBuffer: 16 << 20, env: { ...process.env, SYNCWORKER_REPO: REPO_ROOT } });
    return stdout + stderr;
  } catch (err) {
    const e = err as { stdout?: string; stderr?: string; message: string };
    assert.fail(`go ${args.join(" ")} failed:\n${e.stdout ?? ""}${e.stderr ?? e.message}`);
  }
}

test("Go client: go vet and go test against a real server", { timeout: 600_000 }, async (t) => {
  await go(["vet", "./..."]);
  // -count=1: the suite talks to a server the Go cache cannot see, so a cached pass would prove nothing.
  const out = await go(["test", "-count=1", "-timeout=240s", "-v", "./..."]);
  for (const [, result, name, seconds] of out.matchAll(/^--- (\S+): (\S+) \(([\d.]+)s\)$/gm)) t.diagnostic(`${name} ${result} ${seconds}s`);
  assert.match(out, /^ok\s+github\.com\/syncworker\/syncworker\/clients\/go\s/m);
});
