import type { DesiredUpdate, LoadPayloadStatus, SyncWorkerStatus } from "./types.js";
import type { ComponentTracker } from "./components.js";
import { ContextError } from "./summarize.js";

/** Where reports end up: the worker's two status writers (load path and apply path). */
export interface StatusSink {
  updateApplyStatus(status: SyncWorkerStatus): void;
  updateLoadStatus(status: SyncWorkerStatus): void;
}

/** pull-spec digest (`repo@sha256:…`), empty unless the spec has exactly one `@`. */
function splitDigest(pullspec: string): string {
  const parts = pullspec.split("@");
  return parts.length === 2 ? (parts[1] ?? "") : "";
}

/** Identical pull specs, or both by digest with equal digests. */
export function equalDigest(a: string, b: string): boolean {
  if (a === b) return true;
  const digest = splitDigest(a);
  return digest !== "" && digest === splitDigest(b);
}

function fraction(s: SyncWorkerStatus): number {
  return s.total > 0 ? s.done / s.total : 0;
}

/**
 * Filters reports against the status seen when a pass began (CVO `statusWrapper`): after a failure it
 * hides reports that would show the same payload regressing, and it stamps `lastProgress`.
 */
export class StatusWrapper {
  constructor(
    private readonly sink: StatusSink,
    readonly previous: SyncWorkerStatus,
    private readonly now: () => Date,
  ) {}

  validPayloadStatus(update: DesiredUpdate): boolean {
    return equalDigest(this.previous.loadPayloadStatus.update.image, update.image);
  }

  reportPayload(loadPayloadStatus: LoadPayloadStatus): void {
    this.sink.updateLoadStatus({ ...this.previous, loadPayloadStatus });
  }

  report(status: SyncWorkerStatus): void {
    const p = this.previous;
    if (p.failure && !status.failure && p.actual.image === status.actual.image && fraction(status) < fraction(p)) {
      return;
    }
    const progressed = fraction(status) > fraction(p) || status.completed > p.completed || (!status.failure && status.actual.image !== p.actual.image);
    const { lastProgress: _dropped, ...rest } = status;
    this.sink.updateApplyStatus({
      ...rest,
      ...(progressed ? { lastProgress: this.now() } : {}),
      generation: status.generation === 0 ? p.generation : status.generation,
    });
  }
}

/**
 * Computes progress reports from the graph runner's counters (CVO `consistentReporter`), each with the
 * components' progress from `components`, whose `done` counts move with this reporter's.
 */
export class ConsistentReporter {
  #done: number;

  /** @param alreadyDone tasks a pass resumed after a pause skips because they were applied before it */
  constructor(
    private readonly base: SyncWorkerStatus,
    private readonly total: number,
    private readonly completed: number,
    private readonly wrapper: StatusWrapper,
    private readonly onProgress: (done: number, total: number) => void,
    private readonly components: ComponentTracker,
    alreadyDone = 0,
  ) {
    this.#done = alreadyDone;
  }

  get done(): number {
    return this.#done;
  }

  inc(): void {
    this.#done++;
  }

  update(): void {
    this.onProgress(this.#done, this.total);
    this.wrapper.report({ ...this.base, done: this.#done, total: this.total, components: this.components.components() });
  }

  /** Reports the summarized failure of a pass (or just progress when only cancellations occurred). */
  errors(summary: Error | undefined): void {
    this.wrapper.report({
      ...this.base,
      done: this.#done,
      total: this.total,
      components: this.components.components(),
      ...(summary ? { failure: summary } : {}),
    });
  }

  contextError(cause: Error): ContextError {
    return new ContextError(`update ${cause.message} at ${this.#done} of ${this.total}`, cause);
  }

  complete(): void {
    this.onProgress(this.#done, this.total);
    this.wrapper.report({
      ...this.base,
      completed: this.completed + 1,
      initial: false,
      reconciling: true,
      done: this.#done,
      total: this.total,
      components: this.components.components(),
    });
  }
}
