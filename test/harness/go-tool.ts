import { execFile } from "node:child_process";
import { join } from "node:path";
import { promisify } from "node:util";
import { REPO_ROOT } from "./server.js";

/**
 * The path of a test tool built from its Go module by `scripts/<script>` (see scripts/build-go-tool.sh): cached
 * outside the repository by version, built first if this machine never did (minutes, progress on stderr).
 */
export async function goToolBinary(script: string): Promise<string> {
  const { stdout } = await promisify(execFile)(join(REPO_ROOT, "scripts", script), { maxBuffer: 1 << 20 });
  const lines = stdout.trim().split("\n");
  return lines[lines.length - 1] ?? "";
}
