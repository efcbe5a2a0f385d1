/**
 * The content-addressed payload cache: `<cache>/sha256/<hex>/` holds, for the image whose manifest has that
 * digest, `payload.archive` (what its layers leave in the payload directories, in one file) and `entry.json`, which
 * records the archive's own sha256. An entry is created in a temporary directory and renamed
 * into place, so a reader never sees half of one; the archive is checked against its digest on every hit and again
 * when it is loaded, so a file changed or lost on disk is noticed (and pulled again) instead of applied.
 */
import { readdir, readFile, rm, stat, utimes, writeFile } from "node:fs/promises";
import { homedir } from "node:os";
import { join } from "node:path";
import type { PayloadTree } from "../../payload/memory-fs.js";
import type { PayloadArchive } from "../../payload/retrieval-port.js";
import { PayloadExtractor } from "./extract.js";
import { sha256Digest } from "./image-manifest.js";

/** What `entry.json` records. */
interface EntryRecord {
  /** The image manifest's digest the entry is for. */
  readonly digest: string;
  /** The archive's digest. */
  readonly payload: string;
}

const ENTRY_FILE = "entry.json";
const ARCHIVE_FILE = "payload.archive";
const ARCHIVE_FORMAT = "syncworker.payload-archive/v1";

/**
 * The archive's first line: its format and its entries in order (`[path, "directory"]`, `[path, "symlink", target]`,
 * `[path, "file", size]`); the files' bytes follow, concatenated in that order. Not tar: packing a 1,000-file tree with
 * tar-stream took 17-50 ms of a 100 ms pull and parsing it back 10-40 ms (bench pull); this form takes a few ms each
 * way, and only this module reads it.
 */
interface ArchiveIndex {
  readonly format: string;
  readonly entries: ReadonlyArray<readonly [string, "directory"] | readonly [string, "symlink", string] | readonly [string, "file", number]>;
}

function encodeArchive(tree: PayloadTree): Buffer {
  const entries: ArchiveIndex["entries"][number][] = [];
  const data: Buffer[] = [];
  for (const [path, node] of tree) {
    if (node.kind === "file") {
      entries.push([path, "file", node.data.length]);
      data.push(node.data);
    } else entries.push(node.kind === "symlink" ? [path, "symlink", node.target] : [path, "directory"]);
  }
  const index: ArchiveIndex = { format: ARCHIVE_FORMAT, entries };
  return Buffer.concat([Buffer.from(`${JSON.stringify(index)}\n`), ...data]);
}

/** The tree in `bytes`, every entry applied under the same rules as an image layer's. */
async function decodeArchive(bytes: Buffer, where: string): Promise<PayloadTree> {
  const broken = (why: string): Error => new Error(`payload archive ${where} is damaged: ${why}`);
  const end = bytes.indexOf(0x0a);
  let index: ArchiveIndex;
  try {
    index = JSON.parse(bytes.subarray(0, end).toString("utf8")) as ArchiveIndex;
  } catch (err) {
    throw broken(`its index does not parse (${err instanceof Error ? err.message : String(err)})`);
  }
  if (end < 0 || index.format !== ARCHIVE_FORMAT || !Array.isArray(index.entries)) throw broken(`it is not a ${ARCHIVE_FORMAT} archive`);
  const extractor = new PayloadExtractor();
  let offset = end + 1;
  for (const entry of index.entries) {
    const [name, type, detail] = entry as readonly unknown[];
    if (typeof name !== "string") throw broken(`an entry has no name`);
    if (type === "file") {
      if (!Number.isSafeInteger(detail) || (detail as number) < 0 || offset + (detail as number) > bytes.length) throw broken(`${name} has a bad size`);
      await extractor.add({ name, type, size: detail as number }, bytes.subarray(offset, (offset += detail as number)), where);
    } else if (type === "symlink" && typeof detail === "string") await extractor.add({ name, type, linkname: detail }, Buffer.alloc(0), where);
    else if (type === "directory") await extractor.add({ name, type }, Buffer.alloc(0), where);
    else throw broken(`${name} has an unknown type`);
  }
  if (offset !== bytes.length) throw broken(`${bytes.length - offset} bytes follow its last entry`);
  return extractor.tree();
}

/** `$XDG_CACHE_HOME/syncworker/payloads`, else `~/.cache/syncworker/payloads`: `--payload-cache`'s default. */
export function defaultPayloadCache(env: NodeJS.ProcessEnv = process.env): string {
  return join(env["XDG_CACHE_HOME"] || join(homedir(), ".cache"), "syncworker", "payloads");
}

/**
 * Entries {@link pruneCache} keeps: the running release, the one before it (a rollback), and a few pulled ahead or
 * previewed. An entry is a payload's manifests (a few MB), and a long-lived service pulls every release it is given.
 */
export const KEPT_ENTRIES = 5;

/** The directory of the entry for `digest` (`sha256:<hex>`). */
export function entryDir(cacheDir: string, digest: string): string {
  return join(cacheDir, "sha256", digest.slice("sha256:".length));
}

/** The archive of the entry in `dir`, whose bytes must have `digest`. */
export function archiveIn(dir: string, digest: string): PayloadArchive {
  return { path: join(dir, ARCHIVE_FILE), digest };
}

/**
 * Writes `tree` as the entry for image `digest` into `dir`, completing it before it is renamed into place;
 * returns the archive's digest.
 */
export async function sealEntry(dir: string, digest: string, tree: PayloadTree): Promise<string> {
  const archive = encodeArchive(tree);
  const record: EntryRecord = { digest, payload: sha256Digest(archive) };
  await writeFile(join(dir, ARCHIVE_FILE), archive);
  await writeFile(join(dir, ENTRY_FILE), JSON.stringify(record));
  return record.payload;
}

/** The archive of `dir` when it is a complete entry for `digest` whose archive is as recorded; else undefined. */
export async function checkEntry(dir: string, digest: string): Promise<PayloadArchive | undefined> {
  let record: EntryRecord;
  try {
    record = JSON.parse(await readFile(join(dir, ENTRY_FILE), "utf8")) as EntryRecord;
  } catch {
    return undefined;
  }
  if (record.digest !== digest || typeof record.payload !== "string") return undefined;
  const archive = archiveIn(dir, record.payload);
  return verifiedBytes(archive).then(
    () => archive,
    () => undefined,
  );
}

/** The bytes of `archive`, if they still have the recorded digest. */
async function verifiedBytes(archive: PayloadArchive, signal?: AbortSignal): Promise<Buffer> {
  const bytes = await readFile(archive.path, { signal }).catch((err: Error) => {
    // Node's own texts (a read of over 2 GiB: "File size (…) is greater than 2 GiB") do not name the file.
    throw signal?.aborted ? err : new Error(`payload archive ${archive.path} cannot be read: ${err.message}`, { cause: err });
  });
  const actual = sha256Digest(bytes);
  if (actual !== archive.digest)
    throw new Error(`payload archive ${archive.path} has digest ${actual}, not the ${archive.digest} it was stored with: it changed on disk`);
  return bytes;
}

/** The payload in `archive`, read only if its bytes still have the recorded digest. */
export async function readArchive(archive: PayloadArchive, signal: AbortSignal): Promise<PayloadTree> {
  const bytes = await verifiedBytes(archive, signal);
  // Our own archive, but read under the same rules as an image's layers: nothing in it is trusted more.
  signal.throwIfAborted();
  return decodeArchive(bytes, archive.path);
}

/** Marks the entry in `dir` as just used, so pruning keeps it; best effort. */
export async function touchEntry(dir: string): Promise<void> {
  const now = new Date();
  await utimes(join(dir, ENTRY_FILE), now, now).catch(() => undefined);
}

/**
 * Removes all but the `keep` most recently used entries (pulled or hit) of the cache, and beyond those the least
 * recently used while the entries take more than `maxBytes` (`--payload-cache-max`); the newest entry always stays.
 * Returns the directories removed. A loaded payload is in memory, so removing its entry later only means a pull if
 * it is needed again.
 */
export async function pruneCache(cacheDir: string, maxBytes: number, keep = KEPT_ENTRIES): Promise<string[]> {
  const root = join(cacheDir, "sha256");
  const names = await readdir(root).catch(() => [] as string[]);
  const entries = await Promise.all(
    names.map(async (name) => {
      const dir = join(root, name);
      const used = (await stat(join(dir, ENTRY_FILE)).catch(() => undefined))?.mtimeMs ?? 0;
      const bytes = (await stat(join(dir, ARCHIVE_FILE)).catch(() => undefined))?.size ?? 0;
      return { dir, used, bytes };
    }),
  );
  // The newest entries that fit stay: once the budget is spent, every older entry goes.
  let total = 0;
  const removed = entries
    .sort((a, b) => b.used - a.used)
    .filter(({ bytes }, i) => {
      total += bytes;
      return i > 0 && (i >= keep || total > maxBytes);
    });
  for (const { dir } of removed) await rm(dir, { recursive: true, force: true });
  return removed.map(({ dir }) => dir);
}

/** The prefix of a pull's working directory in the cache (the retriever's `mkdtemp`). */
export const PULL_DIR_PREFIX = "tmp-";

/**
 * Removes the working directories of pulls that were killed before they could clean up (a crash, SIGKILL, a full
 * disk): those in `cacheDir` untouched for longer than `olderThanMs`, which the caller sets above the longest a
 * pull may take, so a pull still running is never one of them. Returns the directories removed.
 */
export async function removeStalePulls(cacheDir: string, olderThanMs: number, now = Date.now()): Promise<string[]> {
  const names = (await readdir(cacheDir).catch(() => [] as string[])).filter((name) => name.startsWith(PULL_DIR_PREFIX));
  const stale: string[] = [];
  for (const name of names) {
    const dir = join(cacheDir, name);
    const modified = (await stat(dir).catch(() => undefined))?.mtimeMs;
    if (modified !== undefined && now - modified > olderThanMs) stale.push(dir);
  }
  for (const dir of stale) await rm(dir, { recursive: true, force: true });
  return stale;
}
