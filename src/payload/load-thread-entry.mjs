// Entry of the payload loader thread: the sources are TypeScript run through tsx, and a worker
// thread starts without the main thread's loader, so it registers tsx before loading them.
import { register } from "tsx/esm/api";

register();
await import("./load-thread.ts");
