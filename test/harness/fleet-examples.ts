/**
 * The three clients' watch-fleet examples, run as their READMEs say (as test/clients/examples.test.ts runs the
 * update-and-watch ones) against a real fleet hub: each prints one line per member view and, once the rollout is
 * done, `rollout NAME PHASE: S/N succeeded` last. An example that exits non-zero (a halted or cancelled rollout: 1,
 * no such rollout: 2) fails the calling test with its output.
 */
import { tmpdir } from "node:os";
import { join } from "node:path";
import { lastLine } from "./command.js";
import { PYTHON_CLIENT, withInstalledPythonClient } from "./python-client.js";
import { REPO_ROOT } from "./server.js";
import { skipTier } from "./tiers.js";
import { PYTHON } from "./tools.js";

/** Each example's last line of stdout; Go's absent when the go tier is opted out of, Python's when the clients tier is. */
export interface FleetExampleLines {
  readonly ts: string;
  readonly go?: string;
  readonly python?: string;
}

/**
 * Runs the watch-fleet examples (at once: they only read) against the hub's FleetWatch at `address` for `rollout`
 * in the hub's --namespace, each to its end, and returns their last lines. Each is expected to exit 0: the rollout
 * is Completed, or becomes so within runCommand's 4 minutes.
 */
export async function runFleetExamples(address: string, rollout: string): Promise<FleetExampleLines> {
  const flags = ["--address", address, "--rollout", rollout];
  const [ts, go, python] = await Promise.all([
    lastLine(process.execPath, ["--import", "tsx", "examples/watch-fleet.ts", ...flags], { cwd: join(REPO_ROOT, "clients/ts") }),
    skipTier("go") ? undefined : lastLine("go", ["run", "./examples/watch-fleet", ...flags], { cwd: join(REPO_ROOT, "clients/go") }),
    skipTier("clients")
      ? undefined
      : withInstalledPythonClient((env) => lastLine(PYTHON, [join(PYTHON_CLIENT, "examples/watch_fleet.py"), ...flags], { cwd: tmpdir(), env })),
  ]);
  // Keys only for the examples that ran.
  return { ts, ...(go === undefined ? {} : { go }), ...(python === undefined ? {} : { python }) };
}
