/**
 * The Python client as its users get it: pip-installed from clients/python for real (its pyproject decides what
 * ships), into a scratch target next to the tools venv's grpcio. --no-deps and --no-build-isolation keep it offline.
 */
import { cp, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runCommand } from "./command.js";
import { REPO_ROOT } from "./server.js";
import { PYTHON } from "./tools.js";

/** The client's sources: its examples are run from here, with the installed package on the path. */
export const PYTHON_CLIENT = join(REPO_ROOT, "clients/python");

/**
 * Installs the client into a scratch target, calls `use` with the environment that makes it importable (PYTHONPATH
 * the target alone: run the script from a directory without the sources, e.g. tmpdir(), so only the installed
 * package can satisfy its imports), and removes the target after.
 */
export async function withInstalledPythonClient<T>(use: (env: NodeJS.ProcessEnv) => Promise<T>): Promise<T> {
  const scratch = await mkdtemp(join(tmpdir(), "syncworker-py-"));
  const target = join(scratch, "site");
  try {
    // pip builds in the source tree (build/, *.egg-info); a copy keeps the checkout clean and parallel runs apart.
    const source = join(scratch, "src");
    await cp(PYTHON_CLIENT, source, { recursive: true, filter: (path) => !/(__pycache__|\.egg-info|\/build)$/.test(path) });
    await runCommand(PYTHON, ["-m", "pip", "install", "--quiet", "--no-deps", "--no-build-isolation", "--target", target, source], {
      cwd: scratch,
      env: { PYTHONDONTWRITEBYTECODE: "1" },
    });
    return await use({ PYTHONPATH: target });
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}
