import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { REPO_ROOT, SYNCWORKER } from "./server.js";

const run = promisify(execFile);

/** Runs the `syncworker` command from the repository root; its exit code and output, never a throw. */
export async function runCli(args: readonly string[], env: NodeJS.ProcessEnv = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [...SYNCWORKER, ...args], { cwd: REPO_ROOT, env: { ...process.env, ...env } });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}
