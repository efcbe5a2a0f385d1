import { setMaxListeners } from "node:events";
import type { PayloadUpdate } from "../payload/manifest.js";
import { applyPayload, type ApplyDeps } from "./apply.js";
import { keptPosition, type PassPosition, type PauseGate } from "./pause.js";
import { StatusWrapper, type StatusSink } from "./reporter.js";
import { NO_METRICS, type MetricsSink, type SyncWork, type SyncWorkerStatus } from "./types.js";
import { CancelledError, NO_TRACING, abortReason, onAbort, type SpanRef } from "../core/index.js";

/** The worker's options a pass uses: the apply's own dependencies, the base of its deadline, its metrics and reports. */
export interface PassDeps extends Omit<ApplyDeps, "metrics" | "architecture" | "attemptsRestarted" | "gate" | "position" | "applied" | "writing"> {
  /** A pass may take twice this (once while Initializing) before it is stopped. */
  readonly minimumReconcileIntervalMs: number;
  readonly metrics?: MetricsSink;
  readonly reports: { attemptsRestarted(): void; passTraced?(ref: SpanRef | undefined): void };
}

export interface PassRunnerOptions {
  readonly deps: PassDeps;
  /** The worker's pause: a pass's tasks wait on it, and its deadline does not run while it is closed. */
  readonly gate: PauseGate;
  /** The worker's status now; a pass reports against the one it began with. */
  readonly status: () => SyncWorkerStatus;
  readonly sink: StatusSink;
  /** Where a pass held by a pause stood when the service stopped: the next pass of that payload continues from it. */
  readonly position?: PassPosition;
  /** A manifest was applied. */
  readonly applied?: () => void;
  /** A pass of the release `image` is about to write to the cluster. */
  readonly writing?: (image: string) => void;
}

/**
 * Runs the worker's passes one at a time (CVO `apply` under the loop's timeout): each with a deadline that time held
 * by a pause does not count, cancellable when a newer update supersedes it, traced and counted. It keeps the pass's
 * position: a pass that ends while paused (superseded, stopped) leaves it to the next pass of the same payload, so a
 * resume or a restart continues where the pass stood.
 */
export class PassRunner {
  readonly #o: PassRunnerOptions;
  /** Stops the running pass; undefined between passes. */
  #cancel: ((reason: Error) => void) | undefined;
  /** The running pass's position, or the one a pass held by a pause left behind (see {@link keptPosition}). */
  #position: PassPosition | undefined;

  constructor(options: PassRunnerOptions) {
    this.#o = options;
    this.#position = options.position;
  }

  /** Where the held pass stands, while paused (what a restart must continue from); undefined while running. */
  heldPosition(): PassPosition | undefined {
    return this.#o.gate.status ? this.#position : undefined;
  }

  /** A pass is running, so {@link cancel} stops one. */
  get running(): boolean {
    return this.#cancel !== undefined;
  }

  /** Stops the running pass with `reason` (it ends as failed); nothing when none runs. */
  cancel(reason: Error): void {
    this.#cancel?.(reason);
    this.#cancel = undefined;
  }

  /** Applies `payload` once for `work`; throws the pass's failure, or why it was stopped (deadline, cancel, `signal`). */
  async run(payload: PayloadUpdate | undefined, work: SyncWork, maxWorkers: number, signal: AbortSignal): Promise<void> {
    if (!payload) throw new Error("no payload is loaded");
    const { deps, gate } = this.#o;
    const interval = deps.minimumReconcileIntervalMs;
    const timeoutMs = work.state === "Initializing" ? interval : interval * 2;
    const controller = new AbortController();
    setMaxListeners(0, controller.signal);
    const stop = (reason: unknown): void => controller.abort(reason);
    const unlisten = onAbort(signal, () => stop(abortReason(signal)));
    const timer = new AbortController();
    // Time held by a pause does not count against the pass.
    void gate.activeSleep(timeoutMs, deps.clock, timer.signal).then(
      () => stop(new CancelledError("deadline")),
      () => undefined,
    );
    this.#cancel = stop;
    const position = keptPosition(this.#position, payload);
    this.#position = position;
    const metrics = deps.metrics ?? NO_METRICS;
    const tracing = deps.tracing ?? NO_TRACING;
    const attributes = {
      "syncworker.sync.version": payload.release.version,
      "syncworker.sync.image": work.desired.image,
      "syncworker.sync.state": work.state,
      "syncworker.sync.generation": work.generation,
      "syncworker.sync.attempt": work.attempt,
      "syncworker.sync.total": payload.manifests.length,
    };
    try {
      // A new trace per attempt (the loop is not inside any call), linked to the Update that caused it.
      await tracing.span(
        `sync ${work.state} ${payload.release.version}`,
        attributes,
        async (span) => {
          deps.reports.passTraced?.(span.ref);
          const reporter = new StatusWrapper(this.#o.sink, this.#o.status(), () => deps.clock.now());
          const applyDeps: ApplyDeps = {
            ...deps,
            applier: deps.applier.forPayload?.(payload) ?? deps.applier,
            metrics,
            architecture: this.#o.status().architecture,
            attemptsRestarted: () => deps.reports.attemptsRestarted(),
            gate,
            position: position.done,
            ...(this.#o.applied ? { applied: this.#o.applied } : {}),
            ...(this.#o.writing ? { writing: () => this.#o.writing?.(work.desired.image) } : {}),
          };
          try {
            await applyPayload(payload, work, maxWorkers, reporter, applyDeps, controller.signal);
          } finally {
            span.setAttributes({ "syncworker.sync.done": this.#o.status().done });
          }
        },
        work.cause ? { links: [work.cause] } : undefined,
      );
      metrics.syncAttempt(work.state, "success", deps.clock.now());
      this.#position = undefined;
    } catch (err) {
      metrics.syncAttempt(work.state, "failure", deps.clock.now());
      throw err;
    } finally {
      // A pass that ended while paused (superseded, stopped) leaves its position to the next pass of its payload.
      if (!gate.status) this.#position = undefined;
      timer.abort();
      unlisten();
      if (this.#cancel === stop) this.#cancel = undefined;
    }
  }
}
