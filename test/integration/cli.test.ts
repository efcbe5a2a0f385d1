import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { after, before, test } from "node:test";
import { promisify } from "node:util";
import { REPO_ROOT, startServer, SYNCWORKER, type ServerProcess } from "../harness/server.js";

const run = promisify(execFile);

let server: ServerProcess;
before(async () => (server = await startServer()));
after(async () => assert.equal(await server.stop(), 0));

async function cli(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [...SYNCWORKER, ...args], { cwd: REPO_ROOT });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

test("update, watch until complete, status and notify through the CLI", { timeout: 60_000 }, async () => {
  const update = await cli("update", "--image", "examples/payloads/demo-1.0.0", "--address", server.address);
  assert.equal(update.code, 0, update.stderr);
  assert.equal((JSON.parse(update.stdout) as { loadPayloadStatus: { step: string } }).loadPayloadStatus.step, "PayloadLoaded");

  const watched = await cli("watch", "--until-complete", "1.0.0", "--address", server.address);
  assert.equal(watched.code, 0, watched.stderr);
  const lines = watched.stdout
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as { revision: string; message: string });
  assert.equal(lines.at(-1)?.message, "Cluster version is 1.0.0", "JSON lines when stdout is not a terminal");

  const status = JSON.parse((await cli("status", "-o", "json", "--address", server.address)).stdout) as { actual: { version: string } };
  assert.equal(status.actual.version, "1.0.0");
  assert.match((await cli("notify", "--address", server.address)).stdout, /notified|already pending/);
});

test("the CLI exits 1 with the server's message for an invalid request", async () => {
  const result = await cli("update", "--image", "", "--address", server.address);
  assert.equal(result.code, 1);
  assert.match(result.stderr, /INVALID_ARGUMENT: desired\.image is required/);
});
