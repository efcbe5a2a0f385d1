// Runs in a worker thread: loads payloads on request so YAML parsing never blocks the service's
// event loop (a real payload takes about a second of CPU).
import { parentPort } from "node:worker_threads";
import { loadUpdate, type LoadOptions } from "../payload/load.js";
import { openPayload } from "./retrieve.js";
import { serializeError, type CancelRequest, type LoadRequest, type LoadReply } from "./threaded-loader.js";

/** Loads in progress, so a cancel from the service stops one between two files. */
const running = new Map<number, AbortController>();

parentPort?.on("message", (request: LoadRequest | CancelRequest) => {
  if ("cancel" in request) return running.get(request.cancel)?.abort(new Error("payload load cancelled"));
  const controller = new AbortController();
  running.set(request.id, controller);
  const warnings: string[] = [];
  const options: LoadOptions = { ...request.options, signal: controller.signal, onWarning: (w) => warnings.push(w) };
  openPayload(request.source, controller.signal)
    .then(({ dir, fs }) => loadUpdate(dir, request.releaseImage, options, fs))
    .then(
      (update) => parentPort?.postMessage({ id: request.id, update, warnings } satisfies LoadReply),
      (err: unknown) => parentPort?.postMessage({ id: request.id, error: serializeError(err) } satisfies LoadReply),
    )
    .finally(() => running.delete(request.id));
});
