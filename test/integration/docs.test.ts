// Every command the README and docs/*.md show runs here, as written, so the docs cannot drift from the program:
// each fenced shell block is marked run or skip (with a reason), and a run block's exit codes and shown output are
// checked. The convention is in docs/README.md; test/harness/doc-blocks.ts parses it.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { promisify } from "node:util";
import { commandCount, missingLines, parseBlocks, parseConsole, type DocBlock, type RunMarker } from "../harness/doc-blocks.js";
import { REPO_ROOT, SYNCWORKER } from "../harness/server.js";
import { skipTier } from "../harness/tiers.js";
import { TOOLS } from "../harness/tools.js";

const run = promisify(execFile);

/** How long one block may run: a server's cold start through tsx on a busy machine, then an update or two. */
const BLOCK_TIMEOUT_S = 300;

/** README.md and every docs/*.md, whoever wrote them: a new page is checked without being listed here. */
async function docFiles(): Promise<string[]> {
  const docs = (await readdir(join(REPO_ROOT, "docs"))).filter((f) => f.endsWith(".md")).sort();
  return ["README.md", ...docs.map((f) => `docs/${f}`)];
}

const blocks: DocBlock[] = [];
for (const file of await docFiles()) blocks.push(...parseBlocks(file, await readFile(join(REPO_ROOT, file), "utf8")));
const where = (b: DocBlock): string => `${b.file}:${b.line}`;

test("every fenced block has a language, and every shell block is marked run or skip with a reason", () => {
  const problems = blocks.flatMap((b) => b.problems.map((p) => `${where(b)}: ${p}`));
  assert.deepEqual(problems, []);
  const runs = blocks.filter((b) => b.marker?.kind === "run");
  const skips = blocks.filter((b) => b.marker?.kind === "skip");
  // The count the docs' README quotes, printed so a reader of the test log can see it.
  console.log(`docs test: ${runs.length} blocks run (${runs.reduce((n, b) => n + commandCount(b), 0)} commands), ${skips.length} not run`);
});

/**
 * A scratch project where `npx syncworker` and `syncworker` run the checkout's sources (as every test does;
 * test/integration/package.test.ts covers the build), with the checkout's examples/ and deploy/ beside it.
 */
async function scratchProject(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "syncworker-docs-"));
  await writeFile(join(dir, "package.json"), `${JSON.stringify({ name: "docs-test", private: true })}\n`);
  await mkdir(join(dir, "node_modules/.bin"), { recursive: true });
  const quoted = [process.execPath, ...SYNCWORKER].map((a) => `'${a}'`).join(" ");
  await writeFile(join(dir, "node_modules/.bin/syncworker"), `#!/bin/sh\nexec ${quoted} "$@"\n`, { mode: 0o755 });
  for (const d of ["examples", "deploy"]) await symlink(join(REPO_ROOT, d), join(dir, d));
  return dir;
}

/** The directories of the tools scripts/setup.sh built that the docs show by name (grpcurl), for PATH. */
async function toolDirs(): Promise<string[]> {
  const grpcurl = join(TOOLS, "grpcurl");
  return (await readdir(grpcurl).catch(() => [])).map((version) => join(grpcurl, version));
}

/** What every block runs first: loopback up in its own network namespace, and a server when it asks for one. */
function prelude(marker: RunMarker, path: readonly string[]): string {
  const lines = [
    "ip link set lo up",
    `export PATH='${path.join(":")}':"$PATH"`,
    // The checkout's dependencies are what `npm ci` installed; installing them again under running tests is not done.
    ...(marker.inCheckout ? ['npm() { if [ "$1" = ci ]; then echo "docs test: npm ci already done in this checkout"; else command npm "$@"; fi; }'] : []),
  ];
  if (marker.withRegistry) {
    // The registry docs/payloads.md starts, on the port its commands use.
    lines.push(
      '__reg=$(mktemp -d); printf "version: 0.1\\nstorage: {filesystem: {rootdirectory: %s}}\\nhttp: {addr: 127.0.0.1:5000}\\n" "$__reg" > "$__reg.yml"',
      'docker-registry serve "$__reg.yml" > "$__reg.log" 2>&1 &',
      'until curl -sf http://127.0.0.1:5000/v2/ > /dev/null; do kill -0 $! 2>/dev/null || { echo "docs test: docker-registry exited:"; cat "$__reg.log"; exit 99; }; sleep 0.2; done',
    );
  }
  if (marker.serverArgs === undefined) return lines.join("\n");
  const serve = ["syncworker", "serve", "--state-dir", '"$(mktemp -d)"', ...marker.serverArgs].join(" ");
  return [
    ...lines,
    `__log=$(mktemp); ${serve} >"$__log.out" 2>"$__log" &`,
    'until grep -q "^listening on" "$__log.out" 2>/dev/null; do kill -0 $! 2>/dev/null || { echo "docs test: serve exited:"; cat "$__log"; exit 99; }; sleep 0.2; done',
  ].join("\n");
}

/**
 * Runs `script` with bash in new network and PID namespaces: the default ports (gRPC 50051, a registry's 5000) are
 * free whatever else runs on the machine, and every process the block started ends with it.
 */
async function runIsolated(script: string, cwd: string): Promise<{ code: number; output: string }> {
  const args = ["-k", "10", String(BLOCK_TIMEOUT_S), "unshare", "--net", "--pid", "--fork", "--mount-proc", "bash", "-c", `exec 2>&1\n${script}`];
  try {
    const { stdout } = await run("timeout", args, { cwd, maxBuffer: 64 << 20 });
    return { code: 0, output: stdout };
  } catch (err) {
    const e = err as { code?: number | string; stdout?: string; message: string };
    if (typeof e.code !== "number") throw err;
    return { code: e.code, output: e.stdout ?? e.message };
  }
}

const SEPARATOR = "@@docs-test";

/** A console block as a script: each command's output is delimited and its exit code printed after it. */
function consoleScript(block: DocBlock): string {
  return parseConsole(block.body)
    .map((c, i) => [`printf '\\n${SEPARATOR} ${i}\\n'`, `(exit $__rc); ${c.command}`, "__rc=$?", `printf '\\n${SEPARATOR}-rc %d\\n' "$__rc"`].join("\n"))
    .join("\n");
}

function checkConsole(block: DocBlock, output: string): void {
  const commands = parseConsole(block.body);
  const segments = output.split(new RegExp(`\\n${SEPARATOR} \\d+\\n`)).slice(1);
  assert.equal(segments.length, commands.length, `${where(block)}: not every command ran:\n${output}`);
  commands.forEach((c, i) => {
    const [, text = "", rc = ""] = /^([\s\S]*)\n@@docs-test-rc (\d+)\n?$/.exec(segments[i] ?? "") ?? [];
    // A non-zero exit is shown by the `echo $?` after it, which then checks its value.
    if (commands[i + 1]?.command !== "echo $?") assert.equal(rc, "0", `${where(block)}: \`${c.command}\` exited ${rc}:\n${text}`);
    const missing = missingLines(c.expected, text);
    assert.equal(missing, undefined, `${where(block)}: \`${c.command}\` did not print\n  ${missing}\nIt printed:\n${text}`);
  });
}

for (const [n, block] of blocks.entries()) {
  const marker = block.marker;
  if (marker?.kind !== "run") continue;
  const first = block.body.split("\n").find((l) => l.trim() !== "") ?? "";
  const skip = skipTier(...marker.tiers);
  test(`${where(block)}: ${first.slice(0, 80)}`, { skip }, async () => {
    const scratch = await scratchProject();
    try {
      const cwd = marker.inCheckout ? REPO_ROOT : scratch;
      const body = block.lang === "console" ? `__rc=0\n${consoleScript(block)}` : `set -e -o pipefail\n${block.body}`;
      const { code, output } = await runIsolated(`${prelude(marker, [join(scratch, "node_modules/.bin"), ...(await toolDirs())])}\n${body}`, cwd);
      assert.notEqual(code, 124, `${where(block)}: still running after ${BLOCK_TIMEOUT_S}s:\n${output}`);
      if (block.lang === "console") {
        assert.equal(code, 0, `${where(block)}: exited ${code}:\n${output}`);
        checkConsole(block, output);
      } else {
        assert.equal(code, 0, `${where(block)}: exited ${code}:\n${output}`);
      }
      if (marker.outputBelow) {
        const shown = blocks.slice(n + 1).find((b) => b.lang === "text");
        assert.ok(shown && shown.file === block.file, `${where(block)}: output-below, but no text block follows`);
        const missing = missingLines(shown.body.split("\n"), output);
        assert.equal(missing, undefined, `${where(block)}: the output shown at ${where(shown)} has\n  ${missing}\nbut the block printed:\n${output}`);
      }
    } finally {
      await rm(scratch, { recursive: true, force: true });
    }
  });
}
