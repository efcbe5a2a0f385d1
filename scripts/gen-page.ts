// Bundles the live update page (src/page, Preact and its stream client) into src/page/assets/app.js, the one script
// the service serves (src/api/page.ts). Generated: scripts/check-gen.sh fails when it is stale. Usage:
// `node --import tsx scripts/gen-page.ts [OUT_FILE]` (default src/page/assets/app.js).
import { build } from "esbuild";

const out = process.argv[2] ?? "src/page/assets/app.js";
await build({
  entryPoints: ["src/page/app.tsx"],
  outfile: out,
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
