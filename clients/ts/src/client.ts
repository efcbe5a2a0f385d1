import { connectivityState, type CallOptions, type Metadata } from "@grpc/grpc-js";
import { connection, type ClientOptions } from "./connection.js";
import { Code, SyncWorkerError } from "./errors.js";
import { reconnecting, type ReconnectOptions } from "./reconnect.js";
import {
  SyncWorkerClient as GeneratedClient,
  type DesiredUpdate,
  type GetStatusResponse,
  type NotifyResourceActivityResponse,
  type PauseUpdateResponse,
  type PreviewRequest,
  type PreviewResponse,
  type ResumeUpdateResponse,
  type CancelUpdateResponse,
  type SyncWorkerStatus,
  type UpdateRequest,
  type UpdateResponse,
} from "./gen/syncworker/v1/syncworker.js";

/** Per-call options: every call has a deadline and can be aborted. */
export interface CallOpts {
  readonly signal?: AbortSignal;
  /** Milliseconds until the call fails with DeadlineExceeded; defaults to the client's `timeoutMs`. */
  readonly timeoutMs?: number;
}

export type { ClientOptions, TlsOptions } from "./connection.js";

/** Options of {@link SyncWorkerClient.watchStatus}: where to resume, and how to reconnect (`signal`, `backoff`, `onRetry`). */
export interface WatchOptions extends ReconnectOptions {
  /** Resume after this revision (snapshots at or below it are skipped). Default 0: start with the current one. */
  readonly sinceRevision?: number;
}

export type UpdateInput = Partial<Omit<UpdateRequest, "desired">> & { readonly desired: Partial<DesiredUpdate> & { image: string } };

export type PreviewInput = Partial<Omit<PreviewRequest, "desired">> & { readonly desired: Partial<DesiredUpdate> & { image: string } };

/**
 * A SyncWorker client with promises, deadlines, AbortSignals and a resuming watch. Errors are always
 * {@link SyncWorkerError}.
 */
export class SyncWorkerClient {
  readonly #raw: GeneratedClient;
  readonly #address: string;
  readonly #timeoutMs: number;
  /** Metadata every call carries: the bearer token, if any. */
  readonly #metadata: () => Metadata;

  constructor(address: string, options: ClientOptions = {}) {
    const { credentials, channelOptions, metadata } = connection(options);
    this.#address = address;
    this.#raw = new GeneratedClient(address, credentials, channelOptions);
    this.#timeoutMs = options.timeoutMs ?? 30_000;
    this.#metadata = metadata;
  }

  /** Sets the desired release; resolves with the worker's status right after it took the request. */
  async update(input: UpdateInput, opts: CallOpts = {}): Promise<SyncWorkerStatus> {
    const req: UpdateRequest = {
      generation: input.generation ?? 0,
      desired: { version: "", force: false, ...input.desired },
      overrides: input.overrides ?? [],
      capabilities: input.capabilities,
      state: input.state ?? 0,
      limits: input.limits,
      expectedPlanDigest: input.expectedPlanDigest ?? "",
      acceptRisks: input.acceptRisks ?? [],
      progressDeadline: input.progressDeadline,
      totalDeadline: input.totalDeadline,
      onDeadline: input.onDeadline ?? 0,
      notBefore: input.notBefore,
    };
    const res = await this.#unary<UpdateResponse>(opts, (md, o, cb) => this.#raw.update(req, md, o, cb));
    return required(res.status);
  }

  async getStatus(opts: CallOpts = {}): Promise<SyncWorkerStatus> {
    const res = await this.#unary<GetStatusResponse>(opts, (md, o, cb) => this.#raw.getStatus({}, md, o, cb));
    return required(res.status);
  }

  /** The syncworker release the server runs (e.g. "0.1.0"); "" from a server older than the field. */
  async serverVersion(opts: CallOpts = {}): Promise<string> {
    const res = await this.#unary<GetStatusResponse>(opts, (md, o, cb) => this.#raw.getStatus({}, md, o, cb));
    return res.serverVersion;
  }

  /**
   * Connects now instead of at the first call, so a caller can tell "cannot reach the server" from a call's own
   * failure: resolves once the channel is up (TCP, TLS and HTTP/2), rejects with Unavailable as soon as an attempt
   * fails (refused, a TLS or protocol mismatch) and with DeadlineExceeded when `timeoutMs` (default: the client's)
   * passes while it is still connecting. Calls wait for a connection on their own; this is only for failing fast.
   */
  async connect(opts: CallOpts = {}): Promise<void> {
    const channel = this.#raw.getChannel();
    const timeoutMs = opts.timeoutMs ?? this.#timeoutMs;
    const deadline = Date.now() + timeoutMs;
    for (let state = channel.getConnectivityState(true); state !== connectivityState.READY;) {
      opts.signal?.throwIfAborted();
      if (state === connectivityState.TRANSIENT_FAILURE) throw new SyncWorkerError(Code.Unavailable, `cannot connect to ${this.#address}`);
      if (state === connectivityState.SHUTDOWN) throw new SyncWorkerError(Code.Canceled, "the client is closed");
      const from = state;
      state = await new Promise<connectivityState>((resolve, reject) => {
        const aborted = (): void => reject(SyncWorkerError.from(opts.signal?.reason));
        opts.signal?.addEventListener("abort", aborted, { once: true });
        channel.watchConnectivityState(from, deadline, (err) => {
          opts.signal?.removeEventListener("abort", aborted);
          if (err) reject(new SyncWorkerError(Code.DeadlineExceeded, `no connection to ${this.#address} within ${timeoutMs} ms`));
          else resolve(channel.getConnectivityState(true));
        });
      });
    }
  }

  /**
   * Pauses the update at a task boundary: running attempts finish, no new task starts, the position is kept (across
   * restarts too). Resolves with the status showing `pause`; FailedPrecondition when already paused.
   */
  async pauseUpdate(reason = "", opts: CallOpts = {}): Promise<SyncWorkerStatus> {
    const res = await this.#unary<PauseUpdateResponse>(opts, (md, o, cb) => this.#raw.pauseUpdate({ reason }, md, o, cb));
    return required(res.status);
  }

  /**
   * Drops the desired release while none of it was applied; the release in effect stays. Once applying started,
   * FailedPrecondition naming what was applied, unless `rollback`: then an update back to the last completed release
   * of the same minor version starts. Resolves with the status after it, and whether a rollback started (rather
   * than the desired release being dropped): while paused, the status shows the rollback only once resumed.
   */
  async cancelUpdate(rollback = false, opts: CallOpts = {}): Promise<{ readonly status: SyncWorkerStatus; readonly rollbackStarted: boolean }> {
    const res = await this.#unary<CancelUpdateResponse>(opts, (md, o, cb) => this.#raw.cancelUpdate({ rollback }, md, o, cb));
    return { status: required(res.status), rollbackStarted: res.rollbackStarted };
  }

  /** Continues a paused update from where it stood; FailedPrecondition when not paused. */
  async resumeUpdate(opts: CallOpts = {}): Promise<SyncWorkerStatus> {
    const res = await this.#unary<ResumeUpdateResponse>(opts, (md, o, cb) => this.#raw.resumeUpdate({}, md, o, cb));
    return required(res.status);
  }

  /** Wakes the worker early; false when a notification was already pending and this one coalesced into it. */
  async notify(message: string, opts: CallOpts = {}): Promise<boolean> {
    const res = await this.#unary<NotifyResourceActivityResponse>(opts, (md, o, cb) => this.#raw.notifyResourceActivity({ message }, md, o, cb));
    return res.queued;
  }

  /**
   * What an update to `input.desired` would do, computed by the server against the live cluster without writing:
   * one `{ object }` per payload object (create, change with its diff, unchanged, delete or skipped), then one
   * `{ summary }` with the counts and the plan's digest (pin it with `update({ expectedPlanDigest })`). No deadline
   * unless `timeoutMs` is given: a large payload on a real cluster takes a while. `break` cancels the call.
   */
  async *preview(input: PreviewInput, opts: CallOpts = {}): AsyncGenerator<PreviewResponse, void, undefined> {
    const req: PreviewRequest = {
      desired: { version: "", force: false, ...input.desired },
      overrides: input.overrides ?? [],
      capabilities: input.capabilities,
      limits: input.limits,
    };
    opts.signal?.throwIfAborted();
    const options = opts.timeoutMs === undefined ? {} : { deadline: new Date(Date.now() + opts.timeoutMs) };
    const stream = this.#raw.preview(req, this.#metadata(), options);
    const cancel = (): void => stream.cancel();
    opts.signal?.addEventListener("abort", cancel, { once: true });
    try {
      for await (const response of stream as AsyncIterable<PreviewResponse>) yield response;
    } catch (err) {
      throw SyncWorkerError.from(opts.signal?.aborted ? opts.signal.reason : err);
    } finally {
      opts.signal?.removeEventListener("abort", cancel);
      stream.cancel();
    }
  }

  /**
   * Every status snapshot from `sinceRevision` on, as an async iterator. A dropped stream is reopened with
   * backoff from the last revision seen, so no snapshot is yielded twice and none after a gap is lost (the
   * server coalesces, so the latest state always arrives). Ends only when the signal aborts (then it throws
   * the abort as a Canceled error) or on a non-transient error. `break` closes the stream. `onRetry` hears of
   * each transient failure before the wait to reconnect (e.g. to count a server unreachable).
   */
  async *watchStatus(opts: WatchOptions = {}): AsyncGenerator<SyncWorkerStatus, void, undefined> {
    let last = opts.sinceRevision ?? 0;
    for await (const { status } of reconnecting(() => this.#raw.statusWatch({ sinceRevision: last }, this.#metadata()), opts)) {
      // The server already filters by since_revision; this guard keeps the promise even if it did not.
      if (!status || status.revision <= last) continue;
      last = status.revision;
      yield status;
    }
  }

  close(): void {
    this.#raw.close();
  }

  #unary<Res>(
    opts: CallOpts,
    start: (md: Metadata, options: Partial<CallOptions>, cb: (err: Error | null, res: Res) => void) => { cancel(): void },
  ): Promise<Res> {
    const { signal } = opts;
    if (signal?.aborted) return Promise.reject(SyncWorkerError.from(signal.reason));
    const deadline = new Date(Date.now() + (opts.timeoutMs ?? this.#timeoutMs));
    return new Promise<Res>((resolve, reject) => {
      const onAbort = (): void => call.cancel();
      const call = start(this.#metadata(), { deadline }, (err, res) => {
        signal?.removeEventListener("abort", onAbort);
        if (!err) return resolve(res);
        // A cancel we caused reports the abort reason, not grpc-js' generic "Cancelled on client".
        reject(signal?.aborted ? SyncWorkerError.from(signal.reason) : SyncWorkerError.from(err));
      });
      signal?.addEventListener("abort", onAbort, { once: true });
    });
  }
}

function required(status: SyncWorkerStatus | undefined): SyncWorkerStatus {
  if (!status) throw new SyncWorkerError(Code.Internal, "server response carried no status");
  return status;
}

/** True when `status` shows `version` (or, if empty, any version) completely applied without failure. */
export function isComplete(status: SyncWorkerStatus, version = ""): boolean {
  return (
    status.completed >= 1 &&
    !status.failure &&
    !status.loadPayloadStatus?.failure &&
    status.done === status.total &&
    (version === "" || status.actual?.version === version)
  );
}
