// An acknowledgement means it is saved: on a --state-dir that is full (a real tmpfs, filled), an Update, a pause
// and a resume are refused with UNAVAILABLE naming the state file and the cause, and change nothing; the service
// keeps serving; SIGTERM exits non-zero since its last state could not be saved; and a restart on the same
// directory, once there is room, shows the release it had accepted before, not the refused one.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { Code, SyncWorkerError, type SyncWorkerStatus } from "@syncworker/client";
import { writeReleases } from "../harness/payload-gen.js";
import { startServer, waitForStatus, type ServerProcess } from "../harness/server.js";
import { tierTests } from "../harness/tiers.js";

const { a: RELEASE_A, b: RELEASE_B } = await writeReleases();
const run = promisify(execFile);
const { after, before, test } = tierTests("disk");

let stateDir = "";

before(async () => {
  stateDir = await mkdtemp(join(tmpdir(), "syncworker-full-disk-"));
  // Room for the state and its temporary copy, little more: filling it takes a moment.
  await run("mount", ["-t", "tmpfs", "-o", "size=2m", "tmpfs", stateDir]);
});

after(async () => {
  await run("umount", [stateDir]).catch(() => undefined);
  await rm(stateDir, { recursive: true, force: true });
});

/**
 * Fills the file system of `dir` to the last byte (dd stops at ENOSPC, which is what it is for here). A save in
 * flight frees its temporary file's room when it ends, so that room is filled again once saves have settled (the
 * writer saves a status within a second).
 */
async function fill(dir: string): Promise<void> {
  for (const name of ["filler", "filler-2"]) {
    await run("dd", ["if=/dev/zero", `of=${join(dir, name)}`, "bs=4k"]).catch((err: { stderr?: string }) => {
      assert.match(err.stderr ?? "", /No space left on device/);
    });
    await new Promise((resolve) => setTimeout(resolve, 1_500));
  }
}

async function unfill(dir: string): Promise<void> {
  for (const name of ["filler", "filler-2"]) await rm(join(dir, name), { force: true });
}

function update(server: ServerProcess, image: string, generation: number): Promise<SyncWorkerStatus> {
  return server.client.update({ generation, desired: { version: "", image, force: false }, overrides: [], capabilities: undefined, state: 0 });
}

/** The refusal of `change`: UNAVAILABLE, reason StateNotSaved, naming the state file and ENOSPC. */
function notSaved(change: string) {
  return (caught: unknown): boolean => {
    const err = SyncWorkerError.from(caught);
    assert.equal(err.code, Code.Unavailable, err.rawMessage);
    assert.equal(
      err.rawMessage,
      `${change} was not applied because its state could not be saved: state file ${join(stateDir, "state.json")}: cannot be written: ENOSPC: no space left on device, write`,
    );
    assert.deepEqual(
      err.details.map((d) => (d.type === "ErrorInfo" ? [d.reason, d.metadata["change"]] : d.type)),
      [["StateNotSaved", change]],
    );
    return true;
  };
}

const completedAt = (image: string) => (s: SyncWorkerStatus) => s.actual?.image === image && s.completed >= 1 && !s.failure && s.total > 0;

test(
  "on a full state disk an Update, pause and resume are refused and change nothing, SIGTERM fails, a restart keeps the accepted release",
  { timeout: 300_000 },
  async () => {
    const first = await startServer(["--state-dir", stateDir]);
    await update(first, RELEASE_A, 1);
    const accepted = await waitForStatus(first.client, completedAt(RELEASE_A), 120_000);
    await fill(stateDir);

    await assert.rejects(update(first, RELEASE_B, 2), notSaved("Update"));
    await assert.rejects(first.client.pauseUpdate("maintenance"), notSaved("PauseUpdate"));
    const now = await first.client.getStatus();
    assert.deepEqual(
      [now.actual?.image, now.generation, now.pause, now.completed >= accepted.completed],
      [RELEASE_A, 1, undefined, true],
      "alive, at the accepted release, generation and completed passes, not paused",
    );
    assert.deepEqual(
      now.history.map((h) => h.image),
      accepted.history.map((h) => h.image),
      "no history entry for the refused release",
    );
    assert.equal(await first.stop(), 1, "SIGTERM exits non-zero: the last state could not be saved");
    assert.match(first.stderr(), /ENOSPC/);
    assert.deepEqual((await readdir(stateDir)).sort(), ["filler", "filler-2", "state.json"], "no temporary file or lock left behind");

    // Room again: the restarted service shows what was accepted, and saves and stops cleanly.
    await unfill(stateDir);
    const second = await startServer(["--state-dir", stateDir]);
    const resumed = await second.client.getStatus();
    assert.deepEqual([resumed.actual?.image, resumed.generation, resumed.pause], [RELEASE_A, 1, undefined]);
    await second.client.pauseUpdate("maintenance");
    await fill(stateDir);
    await assert.rejects(second.client.resumeUpdate(), notSaved("ResumeUpdate"));
    assert.equal((await second.client.getStatus()).pause?.reason, "maintenance", "still paused");
    await unfill(stateDir);
    assert.equal(await second.stop(), 0);
  },
);

test("an Update older than the last accepted one is refused naming both generations, before and after a restart", { timeout: 240_000 }, async () => {
  const dir = await mkdtemp(join(tmpdir(), "syncworker-generation-"));
  const stale = (caught: unknown): boolean => {
    const err = SyncWorkerError.from(caught);
    assert.equal(err.code, Code.InvalidArgument, err.rawMessage);
    assert.deepEqual(err.fieldViolations, [
      { field: "generation", description: "generation 5 is older than the last accepted Update's generation 10; send generation 10 or higher" },
    ]);
    return true;
  };
  const first = await startServer(["--state-dir", dir]);
  assert.equal((await update(first, RELEASE_A, 10)).generation, 10);
  await assert.rejects(update(first, RELEASE_B, 5), stale);
  assert.equal(await first.stop(), 0);
  const second = await startServer(["--state-dir", dir]);
  const resumed = await second.client.getStatus();
  assert.deepEqual([resumed.generation, resumed.loadPayloadStatus?.update?.image], [10, RELEASE_A], "the restart shows the accepted generation");
  await assert.rejects(update(second, RELEASE_B, 5), stale);
  assert.equal(await second.stop(), 0);
});

test(
  "start-up takes a lock whose pid now belongs to another live process, removes an interrupted save's temporary file, and refuses a state.json that is a FIFO",
  { timeout: 240_000 },
  async () => {
    const dir = await mkdtemp(join(tmpdir(), "syncworker-start-"));
    const bootId = (await readFile("/proc/sys/kernel/random/boot_id", "utf8")).trim();
    // This test process is alive and no syncworker: a lock naming it with another start time was left by a process
    // whose pid it reused.
    await writeFile(join(dir, "lock"), `${process.pid} 1 ${bootId}\n`);
    await writeFile(join(dir, "state.json.4242.tmp"), "{");
    const server = await startServer(["--state-dir", dir]);
    assert.deepEqual((await readdir(dir)).sort(), ["lock", "state.json"], "the temporary file is gone");
    assert.equal(await server.stop(), 0);

    const fifoDir = await mkdtemp(join(tmpdir(), "syncworker-start-"));
    const file = join(fifoDir, "state.json");
    await run("mkfifo", [file]);
    await assert.rejects(startServer(["--state-dir", fifoDir]), new RegExp(`exited early with 1: .*state file ${file}: is a FIFO, not a regular file`, "s"));
  },
);
