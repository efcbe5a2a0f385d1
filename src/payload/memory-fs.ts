/**
 * A payload held in memory (what a release image's layers leave in `release-manifests/` and `manifests/`) and the
 * {@link PayloadFs} that loads it, so a pulled payload is read from one verified archive instead of a thousand files.
 */
import { posix } from "node:path";
import type { PayloadEntryType, PayloadFs } from "./load.js";
import { decodeUtf8 } from "./utf8.js";

export type PayloadNode =
  { readonly kind: "file"; readonly data: Buffer } | { readonly kind: "directory" } | { readonly kind: "symlink"; readonly target: string };

/** Relative posix path (no leading `/`, no `.` or `..` parts) → node; every directory on a path has its own entry. */
export type PayloadTree = ReadonlyMap<string, PayloadNode>;

/** Symbolic links followed while resolving one path before it is refused, as Linux's ELOOP limit. */
const MAX_LINKS = 40;

function fsError(code: "ENOENT" | "ENOTDIR" | "ELOOP", syscall: string, path: string): Error {
  const text = { ENOENT: "no such file or directory", ENOTDIR: "not a directory", ELOOP: "too many levels of symbolic links" }[code];
  return Object.assign(new Error(`${code}: ${text}, ${syscall} '${path}'`), { code, syscall, path });
}

const isAbove = (relative: string): boolean => relative === ".." || relative.startsWith("../");

const TYPE: Readonly<Record<PayloadNode["kind"], PayloadEntryType>> = { file: "file", directory: "directory", symlink: "symlink" };

/**
 * {@link PayloadFs} over a {@link PayloadTree} mounted at the absolute path `root`. Links resolve inside the
 * tree only: a target that climbs above the root resolves to a path outside it, which the loader refuses.
 */
export class MemoryPayloadFs implements PayloadFs {
  readonly #children = new Map<string, string[]>();

  constructor(
    private readonly tree: PayloadTree,
    private readonly root: string,
  ) {
    this.#children.set("", []);
    for (const [path, node] of tree) {
      if (node.kind === "directory" && !this.#children.has(path)) this.#children.set(path, []);
      const parent = posix.dirname(path);
      const siblings = this.#children.get(parent === "." ? "" : parent) ?? [];
      siblings.push(posix.basename(path));
      this.#children.set(parent === "." ? "" : parent, siblings);
    }
  }

  async readdir(dir: string): Promise<{ name: string; type: PayloadEntryType }[]> {
    const { real, node } = this.#lookup(dir, "scandir", true);
    if (node.kind !== "directory") throw fsError("ENOTDIR", "scandir", dir);
    return (this.#children.get(real) ?? []).map((name) => ({ name, type: TYPE[this.tree.get(real === "" ? name : `${real}/${name}`)!.kind] }));
  }

  async readFile(path: string): Promise<string> {
    const { node } = this.#lookup(path, "open", false);
    if (node.kind !== "file") throw new Error(`${path} is ${node.kind === "symlink" ? "a symbolic link" : "a directory"}, not a regular file`);
    return decodeUtf8(node.data);
  }

  async stat(path: string): Promise<{ isDirectory: boolean }> {
    return { isDirectory: this.#lookup(path, "stat", true).node.kind === "directory" };
  }

  async realpath(path: string): Promise<string> {
    const real = this.#resolve(path, "realpath", true);
    return real === "" ? this.root : posix.join(this.root, real);
  }

  /** The node at `path`; a path that is missing or lies above the root does not exist. */
  #lookup(path: string, syscall: string, followLast: boolean): { real: string; node: PayloadNode } {
    const real = this.#resolve(path, syscall, followLast);
    const node: PayloadNode | undefined = real === "" ? { kind: "directory" } : isAbove(real) ? undefined : this.tree.get(real);
    if (!node) throw fsError("ENOENT", syscall, path);
    return { real, node };
  }

  /**
   * `path` relative to the root with its links resolved (the last one only when `followLast`); a path above the
   * root comes back starting with `..`, and is never looked up.
   */
  #resolve(path: string, syscall: string, followLast: boolean): string {
    const start = posix.relative(this.root, posix.resolve(this.root, path));
    if (isAbove(start)) return start;
    const pending = start === "" ? [] : start.split("/");
    const done: string[] = [];
    let links = 0;
    while (pending.length > 0) {
      const part = pending.shift()!;
      if (part === "..") {
        if (done.length === 0 || done[done.length - 1] === "..") done.push("..");
        else done.pop();
        continue;
      }
      if (done[0] === "..") {
        done.push(part);
        continue;
      }
      const candidate = [...done, part].join("/");
      const node = this.tree.get(candidate);
      if (!node) throw fsError("ENOENT", syscall, path);
      if (node.kind === "file" && pending.length > 0) throw fsError("ENOTDIR", syscall, path);
      if (node.kind !== "symlink" || (pending.length === 0 && !followLast)) {
        done.push(part);
        continue;
      }
      if (++links > MAX_LINKS) throw fsError("ELOOP", syscall, path);
      pending.unshift(...node.target.split("/").filter((p) => p !== "" && p !== "."));
      // An absolute target names the host's file system, never the payload's.
      if (node.target.startsWith("/")) done.splice(0, done.length, "..");
    }
    return done.join("/");
  }
}
