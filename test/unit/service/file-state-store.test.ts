import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtemp, readdir, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { FileStateStore, StateError, type PersistedState } from "../../../src/service/index.js";
import { EMPTY_CLUSTER_VERSION } from "../../../src/status/index.js";
import { EMPTY_STATUS } from "../../../src/worker/index.js";

const never = new AbortController().signal;
const state = (published: number): PersistedState => ({
  writer: "test",
  savedAt: new Date(Date.UTC(2026, 0, 1)),
  revision: { published, reserved: published + 1000 },
  spec: undefined,
  status: EMPTY_STATUS,
  clusterVersion: EMPTY_CLUSTER_VERSION,
});

test("a saved state loads back; nothing is left beside state.json; no state is undefined", async () => {
  const dir = await mkdtemp(join(tmpdir(), "syncworker-file-state-"));
  const store = new FileStateStore(dir);
  assert.equal(await store.load(never), undefined);
  await store.save(state(1), never);
  await store.save(state(2), never);
  assert.equal((await store.load(never))?.revision.published, 2);
  assert.deepEqual(await readdir(dir), ["state.json"], "the temporary file was renamed over the state");
});

test("the lock keeps a second process off the directory while the first lives, and a dead holder's lock is taken", async () => {
  const dir = await mkdtemp(join(tmpdir(), "syncworker-file-state-"));
  const other = spawn(process.execPath, ["-e", "setTimeout(() => {}, 30000)"], { stdio: "ignore" });
  try {
    await writeFile(join(dir, "lock"), `${other.pid}\n`);
    assert.throws(() => new FileStateStore(dir).lock(), (err: unknown) => err instanceof StateError && err.message.includes(`pid ${other.pid}`) && err.message.includes(dir));
  } finally {
    other.kill("SIGKILL");
    await once(other, "exit");
  }
  const store = new FileStateStore(dir);
  store.lock();
  assert.deepEqual(await readdir(dir), ["lock"]);
  await store.unlock();
  assert.deepEqual(await readdir(dir), []);
});
