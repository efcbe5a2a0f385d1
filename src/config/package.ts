import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/**
 * The directory of the package's `package.json`, where `proto/` and `examples/` ship. Found by walking up from
 * this module rather than by a fixed `../..`, because the same code runs from `src/` (tsx), from `dist/`, and
 * from an installed copy under `node_modules/syncworker/`.
 */
export const PACKAGE_ROOT = findPackageRoot(dirname(fileURLToPath(import.meta.url)));

function findPackageRoot(start: string): string {
  for (let dir = start; ; dir = dirname(dir)) {
    if (existsSync(join(dir, "package.json"))) return dir;
    if (dirname(dir) === dir) throw new Error(`no package.json in ${start} or any directory above it`);
  }
}

/** This build's release, from its `package.json`: what `--version`, `/readyz` and GetStatus report. */
export const PACKAGE_VERSION = (JSON.parse(readFileSync(join(PACKAGE_ROOT, "package.json"), "utf8")) as { version: string }).version;
