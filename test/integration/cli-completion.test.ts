// `syncworker completion bash|zsh`: the scripts it prints are sourced into real shells, in a real terminal (tmux)
// where Tab is pressed, and (bash) through the completion function the way bash calls it.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { promisify } from "node:util";
import { runCli } from "../harness/cli.js";
import { REPO_ROOT } from "../harness/server.js";
import { skipTier } from "../harness/tiers.js";
import { openTerminal } from "../harness/tmux.js";

const run = promisify(execFile);

let dir: string;
const script = (shell: string): string => join(dir, `syncworker.${shell}`);
before(async () => {
  dir = await mkdtemp(join(tmpdir(), "syncworker-completion-"));
  for (const shell of ["bash", "zsh"]) {
    const printed = await runCli(["completion", shell]);
    assert.equal(printed.code, 0, printed.stderr);
    await writeFile(script(shell), printed.stdout);
  }
});
after(() => rm(dir, { recursive: true, force: true }));

/** What the bash completion offers for the words typed so far (the last one being completed), as bash calls it. */
async function bashCompletes(...words: string[]): Promise<string[]> {
  const program = `source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _syncworker; printf '%s\\n' "\${COMPREPLY[@]}"`;
  const { stdout } = await run("bash", ["-c", program, "bash", script("bash"), ...words], { cwd: REPO_ROOT });
  return stdout.split("\n").filter((w) => w !== "");
}

test("bash: the script registers itself and completes subcommands, flags, choices and payload paths", async () => {
  const { stdout } = await run("bash", ["-c", `source "$1"; complete -p syncworker`, "bash", script("bash")]);
  assert.equal(stdout.trim(), "complete -F _syncworker syncworker");
  assert.deepEqual(await bashCompletes("syncworker", "st"), ["status"]);
  assert.ok((await bashCompletes("syncworker", "")).includes("completion"));
  assert.deepEqual(await bashCompletes("syncworker", "status", "--o"), ["--output"]);
  assert.deepEqual(await bashCompletes("syncworker", "status", "-o", ""), ["text", "json", "yaml"]);
  assert.deepEqual(await bashCompletes("syncworker", "render", "--output", "y"), ["yaml"]);
  assert.deepEqual(await bashCompletes("syncworker", "diff", "--address", "127.0.0.1:1", "-o", ""), ["text", "json"]);
  assert.deepEqual(await bashCompletes("syncworker", "render", "--image", "examples/payloads/demo-1.0"), ["examples/payloads/demo-1.0.0"]);
  assert.deepEqual(await bashCompletes("syncworker", "completion", ""), ["bash", "zsh"]);
  assert.deepEqual(await bashCompletes("syncworker", "watch", "--until"), ["--until-complete"]);
  assert.deepEqual(await bashCompletes("syncworker", "watch", "--address", ""), [], "a free value is not completed with flags");
});

test("bash in a terminal: Tab completes the subcommand and lists the output formats", { timeout: 30_000, skip: skipTier("terminal") }, async () => {
  const terminal = await openTerminal(["bash", "--norc", "--noprofile", "-i"], 120, 20);
  try {
    await terminal.send(`cd '${REPO_ROOT}' && source '${script("bash")}' && echo sourced`, "Enter");
    await terminal.waitFor((screen) => /^sourced$/m.test(screen), 10_000);
    await terminal.send("syncworker sta", "Tab");
    // The screen as captured has no trailing spaces: the space after the completed word shows once more is typed.
    await terminal.send("-o ", "Tab", "Tab");
    const screen = await terminal.waitFor((s) => /json\s+text\s+yaml/.test(s), 10_000);
    assert.match(screen, /syncworker status -o$/m, "the line waits for the format");
  } finally {
    await terminal.close();
  }
});

test("zsh in a terminal: Tab completes the subcommand, its flags and their choices", { timeout: 30_000, skip: skipTier("terminal") }, async () => {
  const terminal = await openTerminal(["zsh", "-f", "-i"], 120, 20);
  try {
    await terminal.send(`cd '${REPO_ROOT}' && autoload -U compinit && compinit -u && source '${script("zsh")}' && echo sourced`, "Enter");
    await terminal.waitFor((screen) => /^sourced$/m.test(screen), 10_000);
    await terminal.send("syncworker sta", "Tab");
    await terminal.waitFor((screen) => screen.includes("syncworker status"), 10_000);
    await terminal.send(" --outp", "Tab");
    await terminal.waitFor((screen) => screen.includes("syncworker status --output"), 10_000);
    await terminal.send(" ", "Tab");
    const screen = await terminal.waitFor((s) => /json\s+text\s+yaml/.test(s), 10_000);
    assert.match(screen, /syncworker status --output/);
    await terminal.send("C-u", "syncworker render --image examples/payloads/demo-1.0", "Tab");
    await terminal.waitFor((s) => s.includes("--image examples/payloads/demo-1.0.0"), 10_000);
  } finally {
    await terminal.close();
  }
});

test("completion refuses a shell it has no script for", async () => {
  const refused = await runCli(["completion", "fish"]);
  assert.equal(refused.code, 2, "an argument refused: a usage error");
  assert.match(refused.stderr, /value 'fish' is invalid for argument 'shell'\. Allowed choices are bash, zsh/);
});
