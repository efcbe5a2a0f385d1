// The `syncworker` program: bin/syncworker.js runs this module from dist/; tests, benchmarks and the demo run
// it from the sources with `node --import tsx src/cli/bin.ts`.
import { main } from "./main.js";

await main(process.argv);
