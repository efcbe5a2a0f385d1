// Runs in a worker thread: loads payloads on request so YAML parsing never blocks the service's
// event loop (a real payload takes about a second of CPU).
import { parentPort } from "node:worker_threads";
import { loadUpdate, type LoadOptions } from "./load.js";
import { serializeError, type LoadRequest, type LoadReply } from "./threaded-loader.js";

parentPort?.on("message", (request: LoadRequest) => {
  const options: LoadOptions = request.options;
  loadUpdate(request.directory, request.releaseImage, options).then(
    (update) => parentPort?.postMessage({ id: request.id, update } satisfies LoadReply),
    (err: unknown) => parentPort?.postMessage({ id: request.id, error: serializeError(err) } satisfies LoadReply),
  );
});
