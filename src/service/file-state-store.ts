import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync, type Stats } from "node:fs";
import { open, readFile, rename, rm, stat } from "node:fs/promises";
import { homedir } from "node:os";
import { join } from "node:path";
import { decodeState, encodeState, StateError, type PersistedState } from "./state.js";
import type { StateStore } from "./state-store.js";

/** `$XDG_STATE_HOME/syncworker`, else `~/.local/state/syncworker`: where a user's service keeps its state by default. */
export function defaultStateDir(env: NodeJS.ProcessEnv = process.env): string {
  return join(env["XDG_STATE_HOME"] || join(homedir(), ".local", "state"), "syncworker");
}

/** Whether process `pid` exists (signal 0 only checks; EPERM means it exists under another user). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** The contents of a small file, or "" when it cannot be read (no /proc on this system, or the process is gone). */
function readOr(path: string): string {
  try {
    return readFileSync(path, "utf8").trim();
  } catch {
    return "";
  }
}

/**
 * Who process `pid` is beyond its number, which is reused: its start time in clock ticks since boot (field 22
 * of /proc/PID/stat, after the command name, which may hold spaces and parentheses) and the boot's id. "" where
 * there is no /proc.
 */
function processIdentity(pid: number): string {
  const stat = readOr(`/proc/${pid}/stat`);
  const startTime = stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19];
  const bootId = readOr("/proc/sys/kernel/random/boot_id");
  return startTime && bootId ? `${startTime} ${bootId}` : "";
}

/**
 * Whether the lock text `held` (`PID START BOOT`, or a bare pid from an older version) names a live process
 * other than this one. A pid alive under another start time or boot is an unrelated process that reused it.
 */
function heldByOther(held: string): number | undefined {
  const [pidText = "", ...identity] = held.split(" ");
  const pid = Number(pidText);
  if (!Number.isInteger(pid) || pid <= 0 || pid === process.pid || !alive(pid)) return undefined;
  const recorded = identity.join(" ");
  return recorded === "" || recorded === processIdentity(pid) ? pid : undefined;
}

/** A temporary file of a save (`state.json.PID.tmp`); one left by a process killed mid-save is removed at start. */
const TEMPORARY = /^state\.json\.\d+\.tmp$/;

/** What a file that is not a regular one is, for the message refusing it. */
function kindOf(stats: Stats): string {
  if (stats.isDirectory()) return "a directory";
  if (stats.isFIFO()) return "a FIFO";
  if (stats.isSocket()) return "a socket";
  if (stats.isCharacterDevice() || stats.isBlockDevice()) return "a device";
  return "not a regular file";
}

/**
 * The embedded cluster's state: `state.json` in a directory, replaced atomically on each save (write a
 * temporary file, fsync it, rename it over the old one, fsync the directory), so a crash at any moment
 * leaves either the old or the new state, never a torn one; the temporary files of a process killed mid-save
 * are removed when the next one takes the directory. A `lock` file holding the owner's pid, start time and
 * boot id keeps a second process off the same directory while the first lives (a pid alone is reused).
 */
export class FileStateStore implements StateStore {
  readonly where: string;
  readonly #file: string;
  readonly #lock: string;
  #locked = false;

  constructor(private readonly dir: string) {
    this.#file = join(dir, "state.json");
    this.#lock = join(dir, "lock");
    this.where = `state file ${this.#file}`;
  }

  /** Takes the directory for this process; throws naming the pid that holds it. */
  lock(): void {
    try {
      mkdirSync(this.dir, { recursive: true });
    } catch (err) {
      throw new StateError(`state directory ${this.dir}`, `cannot be created: ${(err as Error).message}`, err);
    }
    const me = `${process.pid} ${processIdentity(process.pid)}`.trim();
    for (let attempt = 0; attempt < 2; attempt++) {
      try {
        writeFileSync(this.#lock, `${me}\n`, { flag: "wx" });
        this.#locked = true;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw new StateError(this.#lock, (err as Error).message, err);
      }
      if (this.#locked) return this.#removeTemporaries();
      const holder = heldByOther(readOr(this.#lock));
      if (holder !== undefined) {
        throw new StateError(`state directory ${this.dir}`, `in use by another syncworker (pid ${holder}); give each service its own --state-dir`);
      }
      // The holder is gone (killed without cleanup) or its pid now belongs to another process: its lock is stale.
      rmSync(this.#lock, { force: true });
    }
    throw new StateError(this.#lock, "could not be taken");
  }

  /** Removes what saves of a process killed mid-save left; only the lock holder saves, so none is in use. */
  #removeTemporaries(): void {
    try {
      for (const name of readdirSync(this.dir)) {
        if (TEMPORARY.test(name)) rmSync(join(this.dir, name), { force: true });
      }
    } catch (err) {
      throw new StateError(`state directory ${this.dir}`, `its temporary files cannot be removed: ${(err as Error).message}`, err);
    }
  }

  /** Gives the directory up (an orderly stop). */
  async unlock(): Promise<void> {
    if (!this.#locked) return;
    this.#locked = false;
    await rm(this.#lock, { force: true });
  }

  async load(signal: AbortSignal): Promise<PersistedState | undefined> {
    let text: string;
    try {
      // Opening a FIFO would wait for a writer forever; a directory would fail with a bare EISDIR.
      const stats = await stat(this.#file);
      if (!stats.isFile()) throw new StateError(this.where, `is ${kindOf(stats)}, not a regular file: remove it or choose another --state-dir`);
      text = await readFile(this.#file, { encoding: "utf8", signal });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "ENOENT") return undefined;
      if (err instanceof StateError) throw err;
      throw new StateError(this.where, `cannot be read: ${(err as Error).message}`, err);
    }
    return decodeState(text, this.where);
  }

  async save(state: PersistedState, signal: AbortSignal): Promise<void> {
    signal.throwIfAborted();
    const text = encodeState(state, this.where);
    const temporary = `${this.#file}.${process.pid}.tmp`;
    try {
      const file = await open(temporary, "w", 0o600);
      try {
        await file.writeFile(text);
        await file.sync();
      } finally {
        await file.close();
      }
      await rename(temporary, this.#file);
      const dir = await open(this.dir, "r");
      try {
        await dir.sync();
      } finally {
        await dir.close();
      }
    } catch (err) {
      await rm(temporary, { force: true });
      throw new StateError(this.where, `cannot be written: ${(err as Error).message}`, err);
    }
  }
}
