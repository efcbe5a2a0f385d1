/**
 * The content-addressed payload cache: `<cache>/sha256/<hex>/` holds, for the image whose manifest has that
 * digest, `payload.tar` (what its layers leave in the payload directories, as one uncompressed tar) and
 * `entry.json`, which records the archive's own sha256. An entry is created in a temporary directory and renamed
 * into place, so a reader never sees half of one; the archive is checked against its digest on every hit and again
 * when it is loaded, so a file changed or lost on disk is noticed (and pulled again) instead of applied.
 */
import { createHash } from "node:crypto";
import { readFile, writeFile } from "node:fs/promises";
import { homedir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import type { PayloadTree } from "../memory-fs.js";
import { PayloadExtractor, tarOf } from "./extract.js";

/** A payload archive and the digest it must have. */
export interface PayloadArchive {
  readonly path: string;
  /** `sha256:<hex>` of the archive's bytes. */
  readonly digest: string;
}

/** What `entry.json` records. */
interface EntryRecord {
  /** The image manifest's digest the entry is for. */
  readonly digest: string;
  /** The archive's digest. */
  readonly payload: string;
}

const ENTRY_FILE = "entry.json";
const ARCHIVE_FILE = "payload.tar";

/** `$XDG_CACHE_HOME/syncworker/payloads`, else `~/.cache/syncworker/payloads`: `--payload-cache`'s default. */
export function defaultPayloadCache(env: NodeJS.ProcessEnv = process.env): string {
  return join(env["XDG_CACHE_HOME"] || join(homedir(), ".cache"), "syncworker", "payloads");
}

/** The directory of the entry for `digest` (`sha256:<hex>`). */
export function entryDir(cacheDir: string, digest: string): string {
  return join(cacheDir, "sha256", digest.slice("sha256:".length));
}

const sha256 = (bytes: Buffer): string => `sha256:${createHash("sha256").update(bytes).digest("hex")}`;

/** The archive of the entry in `dir`, whose bytes must have `digest`. */
export function archiveIn(dir: string, digest: string): PayloadArchive {
  return { path: join(dir, ARCHIVE_FILE), digest };
}

/**
 * Writes `tree` as the entry for image `digest` into `dir`, completing it before it is renamed into place;
 * returns the archive's digest.
 */
export async function sealEntry(dir: string, digest: string, tree: PayloadTree): Promise<string> {
  const tar = await tarOf(tree);
  const record: EntryRecord = { digest, payload: sha256(tar) };
  await writeFile(join(dir, ARCHIVE_FILE), tar);
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
  const bytes = await readFile(archive.path).catch(() => undefined);
  return bytes && sha256(bytes) === archive.digest ? archive : undefined;
}

/** The payload in `archive`, read only if its bytes still have the recorded digest. */
export async function readArchive(archive: PayloadArchive, signal: AbortSignal): Promise<PayloadTree> {
  const bytes = await readFile(archive.path, { signal });
  const actual = sha256(bytes);
  if (actual !== archive.digest) throw new Error(`payload archive ${archive.path} has digest ${actual}, not the ${archive.digest} it was stored with: it changed on disk`);
  // Our own archive, but read under the same rules as an image's layers: nothing in it is trusted more.
  const extractor = new PayloadExtractor();
  await extractor.extract(Readable.from([bytes]), archive.path, signal);
  return extractor.tree();
}
