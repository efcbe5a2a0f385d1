/**
 * The content-addressed payload cache: `<cache>/sha256/<hex>/` holds what was extracted from the image
 * with that manifest digest (`payload/`) and `entry.json`, the list of its files with their sha256. An entry
 * is created in a temporary directory and renamed into place, so a reader never sees half of one; a hit is
 * checked against its list before it is used, so a file changed or lost on disk is noticed and pulled again.
 */
import { createHash } from "node:crypto";
import { readFileSync, readlinkSync } from "node:fs";
import { readFile, readdir, writeFile } from "node:fs/promises";
import { homedir } from "node:os";
import { join, relative } from "node:path";

/** What `entry.json` records. */
interface EntryRecord {
  readonly digest: string;
  /** Relative path → `sha256:<hex>` of a file, or `-> target` of a symbolic link. */
  readonly files: Readonly<Record<string, string>>;
}

const ENTRY_FILE = "entry.json";

/** `$XDG_CACHE_HOME/syncworker/payloads`, else `~/.cache/syncworker/payloads`: `--payload-cache`'s default. */
export function defaultPayloadCache(env: NodeJS.ProcessEnv = process.env): string {
  return join(env["XDG_CACHE_HOME"] || join(homedir(), ".cache"), "syncworker", "payloads");
}
export const PAYLOAD_SUBDIR = "payload";

/** The directory of the entry for `digest` (`sha256:<hex>`). */
export function entryDir(cacheDir: string, digest: string): string {
  return join(cacheDir, "sha256", digest.slice("sha256:".length));
}

/** Files hashed between two turns of the event loop while a listing is checked. */
const BATCH = 64;

/**
 * Every file and link under `root`, keyed by relative path. Read synchronously in batches: a payload is many
 * small files, a thread-pool round trip per open, read and close cost more than the reads, and yielding between
 * batches keeps the event loop responsive.
 */
async function listing(root: string): Promise<Record<string, string>> {
  const entries = await readdir(root, { recursive: true, withFileTypes: true });
  const files: Record<string, string> = {};
  for (let i = 0; i < entries.length; i++) {
    if (i % BATCH === BATCH - 1) await new Promise((resolve) => setImmediate(resolve));
    const entry = entries[i]!;
    const path = join(entry.parentPath, entry.name);
    if (entry.isSymbolicLink()) files[relative(root, path)] = `-> ${readlinkSync(path)}`;
    else if (entry.isFile()) files[relative(root, path)] = `sha256:${createHash("sha256").update(readFileSync(path)).digest("hex")}`;
  }
  return files;
}

/**
 * Records `files` (relative path → `sha256:<hex>`, or `-> target` for a link: what the extractor wrote) as
 * what `dir/payload` holds, completing an entry before it is renamed into place.
 */
export async function sealEntry(dir: string, digest: string, files: Readonly<Record<string, string>>): Promise<void> {
  const record: EntryRecord = { digest, files };
  await writeFile(join(dir, ENTRY_FILE), JSON.stringify(record));
}

/**
 * True when `dir` is a complete entry for `digest` whose files are exactly as recorded; false when it is
 * absent, partial or changed (the caller pulls again).
 */
export async function checkEntry(dir: string, digest: string): Promise<boolean> {
  let record: EntryRecord;
  try {
    record = JSON.parse(await readFile(join(dir, ENTRY_FILE), "utf8")) as EntryRecord;
  } catch {
    return false;
  }
  if (record.digest !== digest || typeof record.files !== "object") return false;
  let actual: Record<string, string>;
  try {
    actual = await listing(join(dir, PAYLOAD_SUBDIR));
  } catch {
    return false;
  }
  const keys = Object.keys(actual);
  return keys.length === Object.keys(record.files).length && keys.every((k) => record.files[k] === actual[k]);
}
