#!/usr/bin/env node
// Runs the TypeScript sources directly (tsx), so the CLI needs no build step.
import { register } from "tsx/esm/api";

register();
const { main } = await import("../src/cli/main.ts");
await main(process.argv);
