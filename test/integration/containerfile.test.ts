// The Containerfile, checked without building it: this machine reaches no container registry, so no base
// image can be pulled (README "Run it in a cluster"). hadolint lints it, and its runtime stage is held to what
// the npm package ships, a non-root numeric user and the program's entry point.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { promisify } from "node:util";
import { REPO_ROOT } from "../harness/server.js";
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

test("hadolint finds nothing in the Containerfile", async () => {
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
