import assert from "node:assert/strict";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { test } from "node:test";
import { checkImports } from "../../../scripts/check-imports.js";
import { REPO_ROOT } from "../../harness/server.js";

/** Writes `files` (paths relative to the tree's root) into a fresh directory and returns what the checker reports. */
async function check(files: Record<string, string>): Promise<string[]> {
  const root = await mkdtemp(join(tmpdir(), "check-imports-"));
  try {
    for (const [path, text] of Object.entries(files)) {
      await mkdir(dirname(join(root, path)), { recursive: true });
      await writeFile(join(root, path), text);
    }
    return checkImports(root);
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

const CLEAN = {
  "src/core/ids.ts": 'import { join } from "node:path";\nexport const id = join("a", "b");\n',
  "src/payload/manifest.ts": 'import { id } from "../core/ids.js";\nexport type Manifest = { id: typeof id };\n',
  "src/retrieval/fs.ts":
    'import { readFile } from "node:fs/promises";\nimport type { Manifest } from "../payload/manifest.js";\nexport const read = (m: Manifest) => readFile(m.id);\n',
  "src/main.ts":
    'import { read } from "./retrieval/fs.js";\nimport type { Manifest } from "./payload/manifest.js";\nexport const run = (m: Manifest) => read(m);\n',
};

test("a tree that keeps the layering passes", async () => {
  assert.deepEqual(await check(CLEAN), []);
});

test("an import cycle is reported on each of its files, type-only imports included", async () => {
  const errors = await check({
    ...CLEAN,
    "src/worker/a.ts": '// a\nimport type { B } from "./b.js";\nexport type A = { b?: B };\n',
    "src/worker/b.ts": 'import type { A } from "./a.js";\nexport type B = { a?: A };\n',
  });
  assert.deepEqual(errors, [
    "src/worker/a.ts:2: no-cycle: import cycle src/worker/a.ts ↔ src/worker/b.ts",
    "src/worker/b.ts:1: no-cycle: import cycle src/worker/a.ts ↔ src/worker/b.ts",
  ]);
});

test("a folder importing one its row of the table does not list is reported", async () => {
  const errors = await check({
    ...CLEAN,
    "src/worker/run.ts": "export const run = 1;\n",
    "src/payload/load.ts":
      'import type { Manifest } from "./manifest.js";\nimport { run } from "../worker/run.js";\nexport const load = (m: Manifest) => run;\n',
    "src/core/ports.ts": 'import type { Manifest } from "../payload/manifest.js";\nexport type Port = Manifest;\n',
  });
  assert.deepEqual(errors, [
    "src/core/ports.ts:1: allowed-folders: src/core may not import src/payload (../payload/manifest.js)",
    "src/payload/load.ts:2: allowed-folders: src/payload may not import src/worker (../worker/run.js)",
  ]);
});

test("payload/ importing the file system, the network, signatures or threads is reported, and core importing a package", async () => {
  const errors = await check({
    ...CLEAN,
    "src/payload/io.ts": [
      'import { constants } from "node:fs";',
      'import { readFile } from "node:fs/promises";',
      'import { fetch } from "undici";',
      'import * as openpgp from "openpgp";',
      'import { Worker } from "node:worker_threads";',
      'import { join } from "node:path";',
      "export { constants, readFile, fetch, openpgp, Worker, join };",
      "",
    ].join("\n"),
    "src/core/yaml.ts": 'import { parse } from "yaml";\nexport { parse };\n',
  });
  assert.deepEqual(errors, [
    'src/core/yaml.ts:1: forbidden-modules: src/core must not import "yaml"',
    'src/payload/io.ts:1: forbidden-modules: src/payload must not import "node:fs"',
    'src/payload/io.ts:2: forbidden-modules: src/payload must not import "node:fs/promises"',
    'src/payload/io.ts:3: forbidden-modules: src/payload must not import "undici"',
    'src/payload/io.ts:4: forbidden-modules: src/payload must not import "openpgp"',
    'src/payload/io.ts:5: forbidden-modules: src/payload must not import "node:worker_threads"',
  ]);
});

test("a top-level folder without a row in the table is reported", async () => {
  const errors = await check({ ...CLEAN, "src/extra/x.ts": 'import { id } from "../core/ids.js";\nexport const x = id;\n' });
  assert.deepEqual(errors, ["src/extra/x.ts:1: allowed-folders: src/extra has no row in the ALLOWED table (imports src/core)"]);
});

test("this repository keeps its layering", () => {
  assert.deepEqual(checkImports(REPO_ROOT), []);
});
