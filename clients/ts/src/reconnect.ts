import type { ClientReadableStream } from "@grpc/grpc-js";
import { isTransient, SyncWorkerError } from "./errors.js";

/** How a resuming watch reconnects: shared by `SyncWorkerClient.watchStatus` and `FleetClient.watchFleet`. */
export interface ReconnectOptions {
  /** Aborting ends the watch: it throws the abort as a Canceled (or, for a timeout, DeadlineExceeded) error. */
  readonly signal?: AbortSignal;
  /**
   * Reconnect backoff: first delay and cap (ms). Defaults 100 ms and 5 s. The delay doubles per reconnect and falls
   * back to the first once a message arrives.
   */
  readonly backoff?: { readonly initialMs?: number; readonly maxMs?: number };
  /**
   * Called after a transient error ended the stream (the server unreachable or gone, the connection cut), before
   * waiting `delayMs` to reconnect: each call is one failed attempt in a row until a message arrives again, so a
   * caller can count them to tell an unreachable server. Not called for a stream the server ended cleanly (it
   * reconnects after the same wait), nor for the error that ends the watch. An exception it throws ends the watch.
   */
  readonly onRetry?: (error: SyncWorkerError, delayMs: number) => void;
}

/**
 * The responses of a server stream that `open` starts again after each drop, forever: after a transient error or a
 * clean end it waits (backing off) and calls `open` again, which builds the request from what the caller has seen
 * so far. Ends only when `signal` aborts or on a non-transient error, both thrown as {@link SyncWorkerError}.
 * `break` (or `return()`) cancels the open stream.
 */
export async function* reconnecting<T>(open: () => ClientReadableStream<T>, opts: ReconnectOptions): AsyncGenerator<T, void, undefined> {
  const initialMs = opts.backoff?.initialMs ?? 100;
  const maxMs = opts.backoff?.maxMs ?? 5_000;
  let delay = initialMs;
  for (;;) {
    if (opts.signal?.aborted) throw SyncWorkerError.from(opts.signal.reason);
    const stream = open();
    const cancel = (): void => stream.cancel();
    opts.signal?.addEventListener("abort", cancel, { once: true });
    try {
      for await (const response of stream as AsyncIterable<T>) {
        delay = initialMs;
        yield response;
      }
      // A clean end means the server is shutting down: reconnect as after a drop.
    } catch (err) {
      if (opts.signal?.aborted) throw SyncWorkerError.from(opts.signal.reason);
      const error = SyncWorkerError.from(err);
      if (!isTransient(error)) throw error;
      opts.onRetry?.(error, delay);
    } finally {
      opts.signal?.removeEventListener("abort", cancel);
      stream.cancel();
    }
    await sleep(delay, opts.signal);
    delay = Math.min(delay * 2, maxMs);
  }
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(SyncWorkerError.from(signal.reason));
    const timer = setTimeout(done, ms);
    function done(): void {
      signal?.removeEventListener("abort", aborted);
      resolve();
    }
    function aborted(): void {
      clearTimeout(timer);
      reject(SyncWorkerError.from(signal?.reason));
    }
    signal?.addEventListener("abort", aborted, { once: true });
  });
}
