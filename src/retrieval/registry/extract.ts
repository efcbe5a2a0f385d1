/**
 * Extracts the payload directories of image layers (tar streams, applied in order) into a {@link PayloadTree} in
 * memory, refusing what could reach outside it: absolute names, `..`, device files, links whose target leaves the
 * root, and entries that would be written through a symbolic link. tar-stream parses; the policy is here
 * because no tar library refuses exactly these (node-tar strips and warns, tar-fs follows links). In memory, not on
 * disk: a payload is a thousand small files, and creating them cost a pull 50–700 ms on a 2-core VM's ext4 (measured
 * with `npm run bench -- pull`), where the whole download took 10 ms.
 */
import { posix } from "node:path";
import type { Readable } from "node:stream";
import { extract, type Header } from "tar-stream";
import type { PayloadNode, PayloadTree } from "../../payload/memory-fs.js";
import type { PullLimits } from "./limits.js";

/** Top-level directories of a release image that hold the payload (CVO `release-manifests/`, `manifests/`). */
export const PAYLOAD_DIRS: readonly string[] = ["release-manifests", "manifests"];

/** Payload files are manifests: a larger entry is refused rather than buffered (a decompression bomb). */
const MAX_FILE_BYTES = 64 * 2 ** 20;
const WHITEOUT = ".wh.";
const OPAQUE = ".wh..wh..opq";

/** Totals one image may extract to; unbounded for an archive the cache wrote under them. */
export type ExtractLimits = Pick<PullLimits, "maxPayloadBytes" | "maxPayloadFiles">;
const UNBOUNDED: ExtractLimits = { maxPayloadBytes: Infinity, maxPayloadFiles: Infinity };

/** What an entry is, as a tar header says. */
export type EntryHeader = Pick<Header, "name" | "type"> & Partial<Pick<Header, "size" | "linkname">>;

/** A tar entry's contents. */
async function bodyOf(entry: unknown): Promise<Buffer> {
  const chunks: Uint8Array[] = [];
  // streamx readables are async iterable; its type declarations leave that out.
  for await (const chunk of entry as AsyncIterable<Uint8Array>) chunks.push(chunk);
  return Buffer.concat(chunks);
}

/**
 * Applies the payload entries of successive layers to one tree. One instance per image, so no later entry (of this
 * or a later layer) is written through a symbolic link an earlier one made.
 */
export class PayloadExtractor {
  readonly #tree = new Map<string, PayloadNode>();
  /** Payload entries and file bytes applied so far, counted as they come (a later whiteout gives nothing back). */
  #entries = 0;
  #bytes = 0;

  constructor(private readonly limits: ExtractLimits = UNBOUNDED) {}

  /** Consumes `tar` (an uncompressed tar stream) to its end; `layer` names it in errors. */
  async extract(tar: Readable, layer: string, signal: AbortSignal): Promise<void> {
    const entries = extract();
    const stop = (err: unknown): void => void entries.destroy(err instanceof Error ? err : new Error(String(err)));
    const abort = (): void => stop(signal.reason);
    tar.on("error", stop);
    signal.addEventListener("abort", abort, { once: true });
    tar.pipe(entries);
    try {
      for await (const entry of entries) {
        signal.throwIfAborted();
        await this.#entry(entry.header, () => bodyOf(entry), layer);
        entry.resume();
      }
    } finally {
      signal.removeEventListener("abort", abort);
      tar.destroy();
    }
  }

  /** Applies one entry whose contents are at hand (`data`, for a file), under the same rules as a layer's. */
  add(header: EntryHeader, data: Buffer, source: string): Promise<void> {
    return this.#entry(header, async () => data, source);
  }

  /** What the layers left in the payload directories. */
  tree(): PayloadTree {
    return this.#tree;
  }

  async #entry(header: EntryHeader, body: () => Promise<Buffer>, layer: string): Promise<void> {
    const name = header.name;
    const refuse = (why: string): Error => new Error(`layer ${layer}: tar entry ${JSON.stringify(name)} refused: ${why}`);
    if (name.startsWith("/")) throw refuse("absolute path");
    const parts = name.split("/").filter((p) => p !== "" && p !== ".");
    if (parts.includes("..")) throw refuse('path contains ".."');
    if (parts.length === 0 || !PAYLOAD_DIRS.includes(parts[0]!)) return;
    if (++this.#entries > this.limits.maxPayloadFiles) throw refuse(`the payload has more than ${this.limits.maxPayloadFiles} entries (--payload-max-files)`);
    const path = parts.join("/");
    for (let i = 1; i < parts.length; i++) {
      const prefix = parts.slice(0, i).join("/");
      const kind = this.#tree.get(prefix)?.kind;
      if (kind === "symlink") throw refuse(`it would be written through the symbolic link ${prefix}`);
      if (kind === "file") throw refuse(`${prefix} is a file, not a directory`);
    }
    const dir = posix.dirname(path);
    const base = parts[parts.length - 1]!;
    if (base === OPAQUE) return this.#clear(dir);
    if (base.startsWith(WHITEOUT)) return this.#remove(posix.join(dir, base.slice(WHITEOUT.length)));
    switch (header.type) {
      case "directory":
        if (this.#tree.get(path)?.kind !== "directory") this.#put(path, { kind: "directory" });
        return;
      case "file":
      case "contiguous-file": {
        const size = header.size ?? 0;
        if (size > MAX_FILE_BYTES) throw refuse(`${size} bytes is more than a payload file may have (${MAX_FILE_BYTES})`);
        if ((this.#bytes += size) > this.limits.maxPayloadBytes) {
          throw refuse(`the payload's files would exceed ${this.limits.maxPayloadBytes} bytes in all (--payload-max-bytes)`);
        }
        this.#put(path, { kind: "file", data: await body() });
        return;
      }
      case "symlink": {
        const linkname = header.linkname ?? "";
        const resolved = posix.normalize(posix.join(dir, linkname));
        if (linkname.startsWith("/") || resolved === ".." || resolved.startsWith("../"))
          throw refuse(`symbolic link to ${JSON.stringify(linkname)} leaves the extraction root`);
        this.#put(path, { kind: "symlink", target: linkname });
        return;
      }
      case "link": {
        // A hard link names another entry of the archive, which must be a payload file extracted before it.
        const linked = this.#tree.get(posix.normalize(header.linkname ?? "").replace(/^\.\//, ""));
        if (linked?.kind !== "file") throw refuse(`hard link to ${JSON.stringify(header.linkname)}, which is not a payload file extracted before it`);
        this.#put(path, linked);
        return;
      }
      case "character-device":
      case "block-device":
      case "fifo":
        throw refuse(`${header.type} entries are not allowed in a payload`);
      default:
        throw refuse(`unsupported entry type ${String(header.type)}`);
    }
  }

  /** Sets `path` to `node`, replacing whatever was there (and under it), with its parent directories. */
  #put(path: string, node: PayloadNode): void {
    // Only a directory has anything under it; a new path has nothing to replace.
    if (this.#tree.get(path)?.kind === "directory") this.#clear(path);
    for (let p = posix.dirname(path); p !== "." && !this.#tree.has(p); p = posix.dirname(p)) this.#tree.set(p, { kind: "directory" });
    this.#tree.set(path, node);
  }

  /** A whiteout: `path` and everything under it is gone (OCI image spec, layer changesets). */
  #remove(path: string): void {
    this.#tree.delete(path);
    for (const p of this.#tree.keys()) if (p.startsWith(`${path}/`)) this.#tree.delete(p);
  }

  /** An opaque whiteout: the directory stays, what lower layers put in it goes. */
  #clear(dir: string): void {
    for (const p of this.#tree.keys()) if (p.startsWith(`${dir}/`)) this.#tree.delete(p);
  }
}
