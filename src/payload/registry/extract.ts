/**
 * Extracts the payload directories of image layers (tar streams, applied in order) into one directory,
 * refusing what could write outside it: absolute names, `..`, device files, links whose target leaves the
 * root, and entries that would be written through a symbolic link. tar-stream parses; the policy is here
 * because no tar library refuses exactly these (node-tar strips and warns, tar-fs follows links).
 */
import { createHash } from "node:crypto";
import { mkdirSync, writeFileSync } from "node:fs";
import { link, readdir, rm, symlink } from "node:fs/promises";
import { posix } from "node:path";
import type { Readable } from "node:stream";
import { extract, type Header } from "tar-stream";

/** Top-level directories of a release image that hold the payload (CVO `release-manifests/`, `manifests/`). */
export const PAYLOAD_DIRS: readonly string[] = ["release-manifests", "manifests"];

/** Payload files are manifests: a larger entry is refused rather than buffered (a decompression bomb). */
const MAX_FILE_BYTES = 64 * 2 ** 20;
const WHITEOUT = ".wh.";
const OPAQUE = ".wh..wh..opq";

/**
 * Writes the payload entries of successive layers under `root`. One instance per image: it remembers the
 * symbolic links it created so no later entry (of this or a later layer) is written through one, and what it
 * wrote, so the cache can record it without reading it back.
 */
export class PayloadExtractor {
  readonly #links = new Map<string, string>();
  /** Relative path → `sha256:<hex>` of every regular file written. */
  readonly #files = new Map<string, string>();
  readonly #dirs = new Set<string>();

  constructor(private readonly root: string) {}

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
        // streamx readables are async iterable; its type declarations leave that out.
        await this.#entry(entry.header, entry as unknown as AsyncIterable<Uint8Array>, layer);
        entry.resume();
      }
    } finally {
      signal.removeEventListener("abort", abort);
      tar.destroy();
    }
  }

  /** What was extracted: relative path → `sha256:<hex>` of a file or `-> target` of a symbolic link. */
  written(): Record<string, string> {
    const out: Record<string, string> = {};
    for (const [path, digest] of this.#files) out[path] = digest;
    for (const [path, target] of this.#links) out[path] = `-> ${target}`;
    return out;
  }

  async #entry(header: Header, body: AsyncIterable<Uint8Array>, layer: string): Promise<void> {
    const name = header.name;
    const refuse = (why: string): Error => new Error(`layer ${layer}: tar entry ${JSON.stringify(name)} refused: ${why}`);
    if (name.startsWith("/")) throw refuse("absolute path");
    const parts = name.split("/").filter((p) => p !== "" && p !== ".");
    if (parts.includes("..")) throw refuse("path contains \"..\"");
    if (parts.length === 0 || !PAYLOAD_DIRS.includes(parts[0]!)) return;
    const path = parts.join("/");
    for (let i = 1; i < parts.length; i++) {
      const prefix = parts.slice(0, i).join("/");
      if (this.#links.has(prefix)) throw refuse(`it would be written through the symbolic link ${prefix}`);
    }
    const dir = posix.dirname(path);
    const base = parts[parts.length - 1]!;
    if (base === OPAQUE) return this.#clear(dir);
    if (base.startsWith(WHITEOUT)) return this.#remove(posix.join(dir, base.slice(WHITEOUT.length)));
    const target = this.#abs(path);
    switch (header.type) {
      case "directory":
        this.#mkdir(path);
        return;
      case "file":
      case "contiguous-file": {
        if (header.size > MAX_FILE_BYTES) throw refuse(`${header.size} bytes is more than a payload file may have (${MAX_FILE_BYTES})`);
        const chunks: Uint8Array[] = [];
        for await (const chunk of body) chunks.push(chunk);
        const data = Buffer.concat(chunks);
        await this.#replace(path);
        // Synchronous: payload files are small, each write blocks for microseconds, and a thread-pool round trip
        // for each of open, write and close made a 1,000-file payload's extraction most of a pull.
        writeFileSync(target, data, { flag: "wx", mode: 0o644 });
        this.#files.set(path, `sha256:${createHash("sha256").update(data).digest("hex")}`);
        return;
      }
      case "symlink": {
        const linkname = header.linkname ?? "";
        const resolved = posix.normalize(posix.join(dir, linkname));
        if (linkname.startsWith("/") || resolved === ".." || resolved.startsWith("../")) throw refuse(`symbolic link to ${JSON.stringify(linkname)} leaves the extraction root`);
        await this.#replace(path);
        await symlink(linkname, target);
        this.#links.set(path, linkname);
        return;
      }
      case "link": {
        // A hard link names another entry of the archive, which must be a payload file extracted before it.
        const linked = posix.normalize(header.linkname ?? "").replace(/^\.\//, "");
        const digest = this.#files.get(linked);
        if (!digest) throw refuse(`hard link to ${JSON.stringify(header.linkname)}, which is not a payload file extracted before it`);
        await this.#replace(path);
        await link(this.#abs(linked), target);
        this.#files.set(path, digest);
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

  #abs(path: string): string {
    return posix.join(this.root, path);
  }

  /** Creates directory `path` (relative) and its parents, once. */
  #mkdir(path: string): void {
    if (this.#dirs.has(path)) return;
    mkdirSync(this.#abs(path), { recursive: true });
    for (let p = path; p !== "." && !this.#dirs.has(p); p = posix.dirname(p)) this.#dirs.add(p);
  }

  /** Makes room for `path`: its parent exists and nothing (file, link, a lower layer's directory) is in the way. */
  async #replace(path: string): Promise<void> {
    this.#mkdir(posix.dirname(path));
    // The root starts empty, so only what this extractor wrote can be in the way.
    if (this.#files.has(path) || this.#links.has(path) || this.#dirs.has(path)) await this.#remove(path);
  }

  /** A whiteout: `path` and everything under it is gone (OCI image spec, layer changesets). */
  async #remove(path: string): Promise<void> {
    await rm(this.#abs(path), { recursive: true, force: true });
    const gone = (p: string): boolean => p === path || p.startsWith(`${path}/`);
    for (const map of [this.#links, this.#files]) for (const p of map.keys()) if (gone(p)) map.delete(p);
    for (const p of this.#dirs) if (gone(p)) this.#dirs.delete(p);
  }

  /** An opaque whiteout: the directory stays, what lower layers put in it goes. */
  async #clear(dir: string): Promise<void> {
    const children = await readdir(this.#abs(dir)).catch(() => []);
    for (const child of children) await this.#remove(posix.join(dir, child));
  }
}
