// Bundles the live pages (src/page: Preact and the shared stream client) into the scripts the admin listeners serve:
// src/page/assets/app.js, the update page `serve` shows (src/api/page.ts), and src/page/assets/fleet.js, the fleet
// page `syncworker fleet` shows (src/api/fleet-page.ts). Each is one self-contained file. Generated:
// scripts/check-gen.sh fails when either is stale. Usage: `node --import tsx scripts/gen-page.ts [OUT_DIR]` (default
// src/page/assets).
import { build } from "esbuild";

/** Each page's entry, by the name of the script it becomes. */
const PAGE_ENTRIES: Readonly<Record<string, string>> = { app: "src/page/app.tsx", fleet: "src/page/fleet.tsx" };

const outdir = process.argv[2] ?? "src/page/assets";
await build({
  entryPoints: PAGE_ENTRIES,
  outdir,
  bundle: true,
  format: "esm",
  target: "es2020",
  minify: true,
  jsx: "automatic",
  jsxImportSource: "preact",
  legalComments: "eof",
  tsconfig: "src/page/tsconfig.json",
  logLevel: "warning",
});
