import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { open, readFile, rename, rm } from "node:fs/promises";
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

/**
 * The embedded cluster's state: `state.json` in a directory, replaced atomically on each save (write a
 * temporary file, fsync it, rename it over the old one, fsync the directory), so a crash at any moment
 * leaves either the old or the new state, never a torn one. A `lock` file holding the owner's pid keeps
 * a second process off the same directory while the first lives.
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
    for (let attempt = 0; attempt < 2; attempt++) {
      try {
        writeFileSync(this.#lock, `${process.pid}\n`, { flag: "wx" });
        this.#locked = true;
        return;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw new StateError(this.#lock, (err as Error).message, err);
      }
      const holder = Number(readFileSync(this.#lock, "utf8").trim());
      if (Number.isInteger(holder) && holder > 0 && holder !== process.pid && alive(holder)) {
        throw new StateError(`state directory ${this.dir}`, `in use by another syncworker (pid ${holder}); give each service its own --state-dir`);
      }
      // The holder is gone (killed without cleanup): its lock is stale.
      rmSync(this.#lock, { force: true });
    }
    throw new StateError(this.#lock, "could not be taken");
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
      text = await readFile(this.#file, { encoding: "utf8", signal });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "ENOENT") return undefined;
      throw new StateError(this.where, `cannot be read: ${(err as Error).message}`, err);
    }
    return decodeState(text, this.where);
  }

  async save(state: PersistedState, signal: AbortSignal): Promise<void> {
    signal.throwIfAborted();
    const temporary = `${this.#file}.${process.pid}.tmp`;
    try {
      const file = await open(temporary, "w", 0o600);
      try {
        await file.writeFile(encodeState(state));
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
