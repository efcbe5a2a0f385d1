import { Worker } from "node:worker_threads";
import type { LoadOptions } from "../payload/load.js";
import type { PayloadSource } from "../payload/retrieval-port.js";
import type { PayloadUpdate } from "../payload/manifest.js";
import { PayloadError, type PayloadErrorKind, type PayloadProblem } from "../payload/errors.js";
import { UpdateError, link } from "../core/index.js";

/** The load options that can cross a thread boundary (no callbacks, no signal). */
export type PortableLoadOptions = Omit<LoadOptions, "onExcluded" | "onManifest" | "onWarning" | "signal">;

/** @internal */
export interface LoadRequest {
  readonly id: number;
  readonly source: PayloadSource;
  readonly releaseImage: string;
  readonly options: PortableLoadOptions;
}

/** Stops the load `id` between two files. @internal */
export interface CancelRequest {
  readonly cancel: number;
}

interface SerializedError {
  readonly message: string;
  readonly reason?: string;
  readonly kind?: PayloadErrorKind;
  readonly problems?: readonly PayloadProblem[];
}

/** @internal */
export type LoadReply =
  { readonly id: number; readonly update: PayloadUpdate; readonly warnings: readonly string[] } | { readonly id: number; readonly error: SerializedError };

/** Errors lose their class when posted between threads; keep what the worker reports. @internal */
export function serializeError(err: unknown): SerializedError {
  if (err instanceof PayloadError) return { message: err.message, reason: err.reason, kind: err.kind, problems: err.problems };
  if (err instanceof UpdateError) return { message: err.message, reason: err.reason };
  return { message: err instanceof Error ? err.message : String(err) };
}

function deserializeError(err: SerializedError): Error {
  if (err.kind) return new PayloadError({ kind: err.kind, message: err.message, problems: err.problems });
  return err.reason ? new UpdateError({ reason: err.reason, message: err.message }) : new Error(err.message);
}

/**
 * The thread's module: compiled, `load-thread.js` beside this one; from the sources under tsx, an entry that
 * registers tsx first, since a worker thread starts without the main thread's module hooks.
 */
const THREAD_ENTRY = import.meta.url.endsWith(".ts") ? "./load-thread-entry.mjs" : "./load-thread.js";

/**
 * Loads payloads in one background thread, one at a time (parsing a real payload takes hundreds of
 * milliseconds of CPU, which must not stall the gRPC event loop). Failures arrive as {@link PayloadError}.
 * The thread is started on first use and does not keep the process alive; `close()` ends it.
 */
export class ThreadedPayloadLoader {
  #worker: Worker | undefined;
  #nextId = 1;
  readonly #pending = new Map<number, { directory: string; resolve: (u: PayloadUpdate) => void; reject: (e: Error) => void }>();

  /**
   * @param deadlineMs how long one load may take; a payload still loading then fails with a {@link PayloadError}
   *   of kind `Timeout` instead of holding up the Update (and the ones queued behind it)
   * @param onWarning the load's warnings (`LoadOptions.onWarning`), delivered in the calling thread just before
   *   its update; a failed load's are dropped, since its error says what went wrong
   */
  constructor(
    private readonly options: PortableLoadOptions,
    private readonly deadlineMs: number,
    private readonly onWarning?: (message: string) => void,
  ) {}

  /** Starts the thread ahead of the first load, so that load does not pay for the start-up. */
  warm(): void {
    this.#start();
  }

  /**
   * Loads in the thread; when `signal` aborts or the deadline passes, the thread stops reading that payload and
   * this rejects with the reason.
   */
  load(source: PayloadSource, releaseImage: string, signal: AbortSignal): Promise<PayloadUpdate> {
    const deadline = new AbortController();
    const text = `the payload ${source.directory} did not load within ${this.deadlineMs / 1000}s`;
    const timer = setTimeout(
      () => deadline.abort(new PayloadError({ kind: "Timeout", message: text, problems: [{ file: "", message: text }] })),
      this.deadlineMs,
    );
    const bounded = link(signal, deadline.signal);
    return this.#load(source, releaseImage, bounded.signal).finally(() => {
      clearTimeout(timer);
      bounded.dispose();
    });
  }

  #load(source: PayloadSource, releaseImage: string, signal: AbortSignal): Promise<PayloadUpdate> {
    if (signal.aborted) return Promise.reject(signal.reason as Error);
    const worker = this.#start();
    const id = this.#nextId++;
    return new Promise((resolve, reject) => {
      const onAbort = (): void => {
        this.#pending.delete(id);
        worker.postMessage({ cancel: id } satisfies CancelRequest);
        reject(signal.reason as Error);
      };
      signal.addEventListener("abort", onAbort, { once: true });
      const settle =
        <T>(fn: (value: T) => void) =>
        (value: T): void => {
          signal.removeEventListener("abort", onAbort);
          fn(value);
        };
      this.#pending.set(id, { directory: source.directory, resolve: settle(resolve), reject: settle(reject) });
      worker.postMessage({
        id,
        source: { directory: source.directory, ...(source.archive ? { archive: source.archive } : {}) },
        releaseImage,
        options: this.options,
      } satisfies LoadRequest);
    });
  }

  async close(): Promise<void> {
    const worker = this.#worker;
    this.#worker = undefined;
    await worker?.terminate();
  }

  #start(): Worker {
    if (this.#worker) return this.#worker;
    const worker = new Worker(new URL(THREAD_ENTRY, import.meta.url));
    worker.unref();
    worker.on("message", (reply: LoadReply) => {
      const pending = this.#pending.get(reply.id);
      this.#pending.delete(reply.id);
      if (!pending) return; // cancelled: nobody waits for its result or its warnings
      if (!("update" in reply)) return pending.reject(deserializeError(reply.error));
      for (const w of reply.warnings) this.onWarning?.(w);
      pending.resolve(reply.update);
    });
    // A reply that cannot be deserialized (e.g. nested too deep for structured clone) names no load: every
    // waiting one fails at once, with the reason, rather than at its deadline; the thread stops working on them.
    worker.on("messageerror", (err) => {
      for (const id of this.#pending.keys()) worker.postMessage({ cancel: id } satisfies CancelRequest);
      this.#failAll((directory) => `the payload ${directory} was loaded but could not be passed back from the loader thread: ${err.message}`);
    });
    worker.on("error", (err) => this.#failAll((directory) => `the payload loader thread failed while loading ${directory}: ${err.message}`));
    worker.on("exit", (code) => {
      if (this.#worker === worker) this.#worker = undefined;
      this.#failAll((directory) => `the payload loader thread exited with code ${code} while loading ${directory}`);
    });
    this.#worker = worker;
    return worker;
  }

  #failAll(message: (directory: string) => string): void {
    for (const { directory, reject } of this.#pending.values()) {
      const text = message(directory);
      reject(new PayloadError({ kind: "Internal", message: text, problems: [{ file: "", message: text }] }));
    }
    this.#pending.clear();
  }
}
