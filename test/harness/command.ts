import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { promisify } from "node:util";

const run = promisify(execFile);

/** Runs a command to its end and returns its stdout; a failure fails the test with the command's whole output. */
export async function runCommand(cmd: string, args: readonly string[], options: { cwd: string; env?: NodeJS.ProcessEnv; timeoutMs?: number }): Promise<string> {
  try {
    const { stdout } = await run(cmd, args, {
      cwd: options.cwd,
      env: { ...process.env, ...options.env },
      timeout: options.timeoutMs ?? 240_000,
      maxBuffer: 16 << 20,
    });
    return stdout;
  } catch (err) {
    const e = err as { stdout?: string; stderr?: string; message: string };
    assert.fail(`${cmd} ${args.join(" ")} failed in ${options.cwd}:\n${e.stdout ?? ""}${e.stderr ?? e.message}`);
  }
}

/** The last line a command printed: the update-and-watch examples end with `completed N/N`. */
export async function lastLine(cmd: string, args: readonly string[], options: { cwd: string; env?: NodeJS.ProcessEnv }): Promise<string> {
  return (await runCommand(cmd, args, options)).trimEnd().split("\n").at(-1) ?? "";
}
