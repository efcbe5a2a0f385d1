/**
 * The content-addressed payload cache: `<cache>/sha256/<hex>/` holds what was extracted from the image
 * with that manifest digest (`payload/`) and `entry.json`, the list of its files with their sha256. An entry
 * is created in a temporary directory and renamed into place, so a reader never sees half of one; a hit is
 * checked against its list before it is used, so a file changed or lost on disk is noticed and pulled again.
 */
import { createHash } from "node:crypto";
import { readFile, readdir, readlink, writeFile } from "node:fs/promises";
import { join, relative } from "node:path";

/** What `entry.json` records. */
interface EntryRecord {
  readonly digest: string;
  /** Relative path → `sha256:<hex>` of a file, or `-> target` of a symbolic link. */
  readonly files: Readonly<Record<string, string>>;
}

const ENTRY_FILE = "entry.json";
export const PAYLOAD_SUBDIR = "payload";

/** The directory of the entry for `digest` (`sha256:<hex>`). */
export function entryDir(cacheDir: string, digest: string): string {
  return join(cacheDir, "sha256", digest.slice("sha256:".length));
}

/** Every file and link under `root`, keyed by relative path. */
async function listing(root: string): Promise<Record<string, string>> {
  const files: Record<string, string> = {};
  for (const entry of await readdir(root, { recursive: true, withFileTypes: true })) {
    const path = join(entry.parentPath, entry.name);
    const key = relative(root, path);
    if (entry.isSymbolicLink()) files[key] = `-> ${await readlink(path)}`;
    else if (entry.isFile()) files[key] = `sha256:${createHash("sha256").update(await readFile(path)).digest("hex")}`;
  }
  return files;
}

/** Records what `dir/payload` holds, completing an entry before it is renamed into place. */
export async function sealEntry(dir: string, digest: string): Promise<void> {
  const record: EntryRecord = { digest, files: await listing(join(dir, PAYLOAD_SUBDIR)) };
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
