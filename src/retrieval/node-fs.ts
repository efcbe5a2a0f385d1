/**
 * The Node implementation of the payload loader's {@link PayloadFs}, over `node:fs/promises`: what the service, the CLI
 * and the loader thread read a payload directory with (payload/ itself only ever gets a {@link PayloadFs} passed in).
 */
import { constants } from "node:fs";
import { open, readdir, realpath, stat } from "node:fs/promises";
import { NOT_REGULAR, type PayloadEntryType, type PayloadFs } from "../payload/load.js";
import { decodeUtf8 } from "../payload/utf8.js";

function entryType(e: { isFile(): boolean; isDirectory(): boolean; isSymbolicLink(): boolean; isFIFO(): boolean; isSocket(): boolean }): PayloadEntryType {
  if (e.isFile()) return "file";
  if (e.isDirectory()) return "directory";
  if (e.isSymbolicLink()) return "symlink";
  if (e.isFIFO()) return "fifo";
  return e.isSocket() ? "socket" : "device";
}

/** {@link PayloadFs} over `node:fs/promises`. */
export const nodePayloadFs: PayloadFs = {
  async readdir(dir) {
    const entries = await readdir(dir, { withFileTypes: true });
    return entries.map((e) => ({ name: e.name, type: entryType(e) }));
  },
  async readFile(path) {
    // O_NONBLOCK: opening a FIFO returns at once instead of waiting for a writer; the type is then checked on the
    // opened descriptor, so a file swapped after the directory listing cannot slip through.
    const handle = await open(path, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW);
    try {
      const type = entryType(await handle.stat());
      if (type !== "file") throw new Error(`${path} is ${NOT_REGULAR[type]}, not a regular file`);
      return decodeUtf8(await handle.readFile());
    } finally {
      await handle.close();
    }
  },
  async stat(path) {
    return { isDirectory: (await stat(path)).isDirectory() };
  },
  realpath: (path) => realpath(path),
};

/** True for a "does not exist" failure, also when wrapped (the downloader treats it as "not yet downloaded"). */
export function isNotExist(err: unknown): boolean {
  for (let e = err; typeof e === "object" && e !== null; e = (e as { cause?: unknown }).cause) {
    if ((e as { code?: unknown }).code === "ENOENT") return true;
  }
  return false;
}
