// Entry of the payload loader thread when the sources run through tsx (tests, benchmarks, the demo): a worker
// thread starts without the main thread's loader, so it registers tsx before loading them. The build runs
// dist/retrieval/load-thread.js directly and does not ship this file.
import { register } from "tsx/esm/api";

register();
await import("./load-thread.ts");
