import assert from "node:assert/strict";
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { mkdirSync } from "node:fs";
import { once } from "node:events";
import { mkdtemp, readdir, readFile, writeFile } from "node:fs/promises";
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

test("a state that does not fit the format is not saved: the error names the file and the field, the saved state stays", async () => {
  const dir = await mkdtemp(join(tmpdir(), "syncworker-file-state-"));
  const store = new FileStateStore(dir);
  await store.save(state(1), never);
  const before = await readFile(join(dir, "state.json"), "utf8");
  await assert.rejects(
    store.save({ ...state(2), status: { ...EMPTY_STATUS, total: -1 } }, never),
    (err: unknown) =>
      err instanceof StateError && err.message.startsWith(`state file ${join(dir, "state.json")}: not saved`) && /status\.total/.test(err.message),
  );
  assert.equal(await readFile(join(dir, "state.json"), "utf8"), before);
  assert.deepEqual(await readdir(dir), ["state.json"]);
});

test("the lock keeps a second process off the directory while the first lives, and a dead holder's lock is taken", async () => {
  const dir = await mkdtemp(join(tmpdir(), "syncworker-file-state-"));
  const other = spawn(process.execPath, ["-e", "setTimeout(() => {}, 30000)"], { stdio: "ignore" });
  try {
    await writeFile(join(dir, "lock"), `${other.pid}\n`);
    assert.throws(
      () => new FileStateStore(dir).lock(),
      (err: unknown) => err instanceof StateError && err.message.includes(`pid ${other.pid}`) && err.message.includes(dir),
    );
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

/** A child process that takes `dir`'s lock through FileStateStore and holds it until killed. */
async function lockHolder(dir: string): Promise<ChildProcess> {
  const module = new URL("../../../src/service/file-state-store.ts", import.meta.url).href;
  const child = spawn(
    process.execPath,
    [
      "--import",
      "tsx",
      "--input-type=module",
      "-e",
      `const m = await import(${JSON.stringify(module)}); new m.FileStateStore(${JSON.stringify(dir)}).lock(); console.log("locked"); setTimeout(() => {}, 60000);`,
    ],
    { stdio: ["ignore", "pipe", "inherit"] },
  );
  const [line] = (await once(child.stdout, "data")) as [Buffer];
  assert.equal(line.toString().trim(), "locked");
  return child;
}

test("a lock naming a live pid of an unrelated process (the pid was reused) is stale and taken", async () => {
  const dir = await mkdtemp(join(tmpdir(), "syncworker-file-state-"));
  const holder = await lockHolder(dir);
  const unrelated = spawn(process.execPath, ["-e", "setTimeout(() => {}, 30000)"], { stdio: "ignore" });
  try {
    const held = (await readFile(join(dir, "lock"), "utf8")).trim();
    assert.throws(
      () => new FileStateStore(dir).lock(),
      (err: unknown) => err instanceof StateError && err.message.includes(`pid ${holder.pid}`),
      "the live holder keeps it",
    );
    // The same lock, its pid now belonging to another live process (as after a restart in a fresh pid namespace).
    await writeFile(join(dir, "lock"), `${held.replace(/^\d+/, String(unrelated.pid))}\n`);
    const store = new FileStateStore(dir);
    store.lock();
    assert.match(await readFile(join(dir, "lock"), "utf8"), new RegExp(`^${process.pid} \\d+ [0-9a-f-]+\\n$`), "the lock records pid, start time and boot id");
    await store.unlock();
  } finally {
    for (const child of [holder, unrelated]) {
      child.kill("SIGKILL");
      await once(child, "exit");
    }
  }
});

test("temporary files a save killed midway left behind are removed when the directory is taken", async () => {
  const dir = await mkdtemp(join(tmpdir(), "syncworker-file-state-"));
  await writeFile(join(dir, "state.json.4242.tmp"), "{");
  await writeFile(join(dir, "state.json.x.tmp"), "not ours");
  const store = new FileStateStore(dir);
  store.lock();
  assert.deepEqual((await readdir(dir)).sort(), ["lock", "state.json.x.tmp"]);
  await store.unlock();
});

test("a state file that is not a regular file is refused naming it, without waiting on a FIFO", async () => {
  for (const [make, kind] of [
    [(path: string) => execFileSync("mkfifo", [path]), "a FIFO"],
    [(path: string) => mkdirSync(path), "a directory"],
  ] as const) {
    const dir = await mkdtemp(join(tmpdir(), "syncworker-file-state-"));
    const file = join(dir, "state.json");
    make(file);
    await assert.rejects(
      new FileStateStore(dir).load(AbortSignal.timeout(5000)),
      (err: unknown) =>
        err instanceof StateError && err.message === `state file ${file}: is ${kind}, not a regular file: remove it or choose another --state-dir`,
    );
  }
});
