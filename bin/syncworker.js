#!/usr/bin/env node
// Runs the compiled program: the published package ships dist/, a clone builds it with `npm run build`.
import { existsSync } from "node:fs";

const entry = new URL("../dist/cli/bin.js", import.meta.url);
if (!existsSync(entry)) {
  process.stderr.write(`syncworker: ${new URL("..", import.meta.url).pathname} has no build; run \`npm run build\` there first\n`);
  process.exit(1);
}
await import(entry.href);
