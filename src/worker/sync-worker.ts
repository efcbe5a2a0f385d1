import type { PayloadUpdate } from "../payload/manifest.js";
import { capabilitiesStatus, setCapabilities, setFromImplicitlyEnabled } from "../policy/index.js";
import type { Backoff } from "../graph/index.js";
import { PassRunner } from "./pass.js";
import { syncPayload, type PayloadSyncDeps } from "./payload-sync.js";
import { CancelledError, NO_EVENTS, UpdateError, asError, link, type Logger, type Random, type SpanRef } from "../core/index.js";
import { CancelUpdateError, appliedText, type CancelPlan } from "./cancel-update.js";
import { nextOpening, windowState, type MaintenanceWindow } from "../policy/index.js";
import { DeadlineWatch, deadlineMessage, effectiveDeadlines, type DeadlineKind, type UpdateDeadlines } from "./deadlines.js";
import { PreviewedImages, previewUpdate, type PlannedObject, type PreviewInput, type PreviewResult } from "./planning/index.js";
import { PauseGate, type PassPosition } from "./pause.js";
import { StatusWrapper, type StatusSink } from "./reporter.js";
import type { ResourceApplier } from "./task-run.js";
import {
  EMPTY_STATUS,
  NO_METRICS,
  type DesiredSpec,
  type MaintenanceHold,
  type MetricsSink,
  type PayloadState,
  type SyncWork,
  type SyncWorkerStatus,
} from "./types.js";
import { Wakeup } from "./wake.js";
import { calculateNext, compareWork, emptyWork, equalUpdate } from "./work.js";

export interface SyncWorkerOptions extends PayloadSyncDeps {
  readonly applier: ResourceApplier;
  readonly random: Random;
  readonly log: Logger;
  /** Minimum time between reconcile passes; also bounds the error backoff. */
  readonly minimumReconcileIntervalMs: number;
  /** Retry schedule of each manifest (Initializing uses `installBackoff` when steps > 1). */
  readonly backoff: Backoff;
  /** The shorter retry schedule of an install, so a fresh cluster converges quickly. */
  readonly installBackoff: Backoff;
  /** The worker's only way out: its owner hears every status and the start of each attempt sequence. */
  readonly reports: WorkerReports;
  /** Payload metrics; none when absent. */
  readonly metrics?: MetricsSink;
  /** The cluster's enabled feature gates: a feature-gated capability exists only while one of its gates is on. */
  readonly featureGates?: ReadonlySet<string>;
  /**
   * Where a restarted service left off: the status it last recorded (without its failure, which the next
   * pass finds again) and the completed passes of the desired release, so both continue instead of
   * starting from zero. Absent on a first start.
   */
  readonly resume?: SyncWorkerStatus;
  /** The position of the pass a pause held when the service stopped (with a paused `resume`): it continues from there. */
  readonly resumePosition?: PassPosition;
  /** The server's deadlines of an update (`--progress-deadline`, `--total-deadline`); an Update's own fields take precedence. */
  readonly deadlines?: UpdateDeadlines;
  /** When updates may run (`--maintenance-window`); none: any time. */
  readonly maintenanceWindows?: readonly MaintenanceWindow[];
  /** Reconcile passes of an applied release also wait for a window (`--maintenance-window-reconcile`); otherwise they go on. */
  readonly reconcileInWindowsOnly?: boolean;
  // `tracing` (from PayloadSyncDeps): sync, node, task and payload spans; none when absent.
}

/** The narrow port through which the worker reports to the service that owns it. */
export interface WorkerReports {
  /** Every status the worker records, in order (the CVO's report channel, without loss). */
  status(status: SyncWorkerStatus): void;
  /** A pass with attempt 0 begins: ClusterOperator wait times of earlier attempts no longer count. */
  attemptsRestarted(): void;
  /** A pass began, traced as `ref` (none when tracing is off): what is said about the sync from now on refers to it. */
  passTraced?(ref: SpanRef | undefined): void;
}

/** The longest the maintenance window watch sleeps before it looks again. */
const DAY_MS = 86_400_000;

/**
 * An Update, the one record from the gRPC edge through the service (which saves it, as the CVO keeps its
 * ClusterVersion spec) to the worker. `state` is the client's choice, undefined when it lets the service choose;
 * the worker is always given one, and honors it only on its first call.
 */
export type UpdateRequest = DesiredSpec & {
  /** The span of the call that asked for this update; each sync attempt it causes links to it. Never saved. */
  readonly cause?: SpanRef;
};

/** What update() made of a request: the status right after it, and whether the release is the worker's now. */
export interface UpdateOutcome {
  readonly status: SyncWorkerStatus;
  /** The release loaded and passed its preconditions, now or in an earlier update(); false when refused or ignored. */
  readonly accepted: boolean;
}

/**
 * Retrieves and applies the desired payload and keeps it applied (CVO `SyncWorker`).
 *
 * State transitions of the loop's work:
 *   Initial: wait for a valid update(), report empty status
 *     update() -> Sync
 *   Sync: apply()
 *     apply() fails -> Error; apply() succeeds -> Reconciling
 *   Reconciling: apply() no more often than the minimum reconcile interval
 *     update() with different values -> Sync (state Updating)
 *   Error: back off (R/8, R/4, R/2, then R) and apply() again
 *
 * update() and the loop share `#work` and `#status`; every status write goes through
 * updateApplyStatus/updateLoadStatus, which own disjoint fields so neither clobbers the other.
 */
export class SyncWorker {
  readonly #o: SyncWorkerOptions;
  #work: SyncWork | undefined;
  #status: SyncWorkerStatus = EMPTY_STATUS;
  #payload: PayloadUpdate | undefined;
  readonly #wakeup: Wakeup;
  /** A drift correction was asked for since the loop last woke. */
  #driftPending = false;
  #updates: Promise<unknown> = Promise.resolve();
  /** Aborts the payload load of the newest update() so far, when a newer one supersedes it. */
  #supersede: AbortController | undefined;
  #published: SyncWorkerStatus = EMPTY_STATUS;
  /** The signal of the running loop; loads stop with it. Set once by start(). */
  #lifetime: AbortSignal | undefined;
  /** The images of recent previews, which a refused plan digest names. */
  readonly #previewed = new PreviewedImages();
  /** Closed while paused: passes, nodes, tasks and retries wait on it. */
  readonly #gate: PauseGate;
  /** Runs the passes and keeps the position of one a pause holds. */
  readonly #passes: PassRunner;
  /** Times the accepted update's deadlines until its release is first completely applied. */
  readonly #deadlines: DeadlineWatch;
  /** The deadlines being timed, for the failure's words. */
  #timed: UpdateDeadlines | undefined;
  /** The failure of a passed deadline: shown instead of the passes' own while it stands. */
  #deadlineFailure: UpdateError | undefined;
  /** The last failure a pass reported, shown again once a passed deadline is cleared. */
  #passFailure: SyncWorkerStatus["failure"];
  /**
   * The release in effect before the newest accepted Update, kept while nothing of that update has been written:
   * what a cancel restores. Undefined for a first release, and once the update's apply started.
   */
  #previous: { readonly work: SyncWork; readonly payload: PayloadUpdate | undefined; readonly status: SyncWorkerStatus } | undefined;
  /** A pass of the newest accepted release has written to the cluster (it can no longer be dropped). */
  #writing = false;
  /** Why the update waits for a maintenance window or its not_before, and until when; undefined while it may run. */
  #maintenance: MaintenanceHold | undefined;
  /** The release a pass last applied completely: its passes are reconciles, not an update. */
  #completedImage: string | undefined;
  /** Wakes the maintenance window watch to look again now (the work changed). */
  #rewatchWindows: () => void = () => undefined;
  /** The status setters stay private: reporters get this sink, never the worker. */
  readonly #sink: StatusSink = {
    updateApplyStatus: (status) => this.#updateApplyStatus(status),
    updateLoadStatus: (status) => this.#updateLoadStatus(status),
  };

  constructor(options: SyncWorkerOptions) {
    this.#o = options;
    this.#gate = new PauseGate(options.clock, options.resume?.pause);
    this.#wakeup = new Wakeup(options.clock, options.log);
    this.#deadlines = new DeadlineWatch(options.clock, this.#gate, (kind) => this.#deadlineChanged(kind));
    this.#passes = new PassRunner({
      deps: options,
      gate: this.#gate,
      status: () => this.#status,
      sink: this.#sink,
      ...(options.resumePosition ? { position: options.resumePosition } : {}),
      applied: () => this.#deadlines.progressed(),
      writing: (image) => {
        if (image !== this.#work?.desired.image || this.#writing) return;
        this.#writing = true;
        this.#previous = undefined;
      },
    });
    if (options.resume) {
      if (options.resume.completed > 0) this.#completedImage = options.resume.actual.image;
      const { failure: _failure, ...rest } = options.resume;
      this.#status = rest;
      this.#published = rest;
    }
  }

  status(): SyncWorkerStatus {
    return this.#status;
  }

  /**
   * Holds the work at a task boundary: running attempts finish, nothing new starts (no pass, node, task or retry),
   * and the pass keeps its position. Throws a PauseError when already paused.
   */
  pause(pausedBy: string, reason: string): SyncWorkerStatus {
    this.#gate.pause(pausedBy, reason);
    this.#publish(this.#withPause(this.#status));
    return this.#status;
  }

  /** A PauseError when the worker cannot be paused (`pausing`) or resumed now; changes nothing. */
  checkPause(pausing: boolean): void {
    this.#gate.check(pausing);
  }

  /** Lets the held work continue from where it stood. Throws a PauseError when not paused. */
  resume(): SyncWorkerStatus {
    this.#gate.resume();
    this.#publish(this.#withPause(this.#status));
    return this.#status;
  }

  /** Where the held pass stands, while paused (what a restart must continue from); undefined while running. */
  heldPosition(): PassPosition | undefined {
    return this.#passes.heldPosition();
  }

  /**
   * A managed object was changed or deleted by someone else: wakes the loop for a pass even while
   * Reconciling, where a plain notification only ends a wait that has work to do (upstream's rule).
   * Floods coalesce like notifications. Returns false when a notification was already pending.
   */
  correctDrift(message: string): boolean {
    this.#driftPending = true;
    return this.notify(message);
  }

  /** Wakes the loop early; returns false when a notification was already pending. */
  notify(message: string): boolean {
    return this.#wakeup.notify(message);
  }

  /**
   * What an Update of `input` would do to each object of the live cluster, from the payload and capabilities
   * this worker holds now; writes nothing and leaves the worker's status alone. Runs beside the loop.
   */
  async preview(input: PreviewInput, onObject: (object: PlannedObject) => void, signal: AbortSignal): Promise<PreviewResult> {
    const base = { payload: this.#payload, enabled: this.#work?.capabilities.enabled ?? new Set<string>() };
    const bounded = link(signal, this.#lifetime);
    const result = await previewUpdate(this.#o, base, input, onObject, bounded.signal).finally(bounded.dispose);
    this.#previewed.record(result.plan.digest, result.release.image);
    return result;
  }

  /**
   * Sets the desired state and returns the status right after it was taken. Calls are serialized:
   * each sees the outcome of the previous one. A call stops the payload load of the one before it (that one
   * reports the load as failed): a slow or stuck payload must not hold up a newer desired release.
   */
  update(input: UpdateRequest & { readonly state: PayloadState }, signal: AbortSignal): Promise<UpdateOutcome> {
    this.#supersede?.abort(new Error("superseded by a newer Update"));
    const supersede = new AbortController();
    this.#supersede = supersede;
    const run = this.#updates.then(async () => {
      const linked = link(signal, supersede.signal);
      const accepted = await this.#update(input, linked.signal).finally(linked.dispose);
      // update() also edits fields directly (capabilities, architecture); watchers must see them too.
      // Publish the current status, not one from before: the loop may have reported since.
      if (this.#status !== this.#published) this.#publish(this.#status);
      return { status: this.#status, accepted };
    });
    this.#updates = run.catch(() => undefined);
    return run;
  }

  /** Takes the request's release if it loads and passes its preconditions; returns whether the release is taken. */
  async #update(input: UpdateRequest & { readonly state: PayloadState }, signal: AbortSignal): Promise<boolean> {
    const work: SyncWork = {
      ...emptyWork(),
      generation: input.generation,
      desired: input.desired,
      overrides: input.overrides,
      ...(input.cause ? { cause: input.cause } : {}),
      ...(input.limits ? { limits: input.limits } : {}),
      ...(input.expectedPlanDigest ? { expectedPlanDigest: input.expectedPlanDigest } : {}),
      ...(input.acceptRisks?.length ? { acceptRisks: input.acceptRisks } : {}),
      ...(input.deadlines ? { deadlines: input.deadlines } : {}),
      ...(input.notBefore ? { notBefore: input.notBefore } : {}),
    };
    let priorEnabled: ReadonlySet<string> = new Set();
    if (this.#work) {
      this.#work.generation = input.generation;
      priorEnabled = this.#work.capabilities.enabled;
    }
    if (!work.desired.image) {
      this.#o.log.info("Update work has no release image; ignoring requested change");
      return false;
    }
    work.capabilities = setCapabilities(input.capabilities, priorEnabled, this.#o.featureGates);
    const [versionEqual, overridesEqual, capabilitiesEqual] = compareWork(this.#work, work);
    this.#status = {
      ...this.#status,
      capabilitiesStatus: { ...this.#status.capabilitiesStatus, implicitlyEnabled: work.capabilities.implicitlyEnabled },
    };

    if (versionEqual && overridesEqual && capabilitiesEqual && this.#work) {
      if (!equalUpdate(this.#work.desired, this.#status.loadPayloadStatus.update)) {
        await this.#loadUpdatedPayload(this.#work, signal).catch((err: unknown) => {
          this.#o.log.warn(`Error when attempting to reset payload status to currently loaded payload: ${String(err)}`);
        });
      }
      // The release the worker already has: it was accepted when it was first taken.
      return true;
    }

    const oldDesired = this.#work?.desired;
    // What a cancel would restore, as it stands before this update loads a payload over it.
    const before = this.#work ? { work: { ...this.#work }, payload: this.#payload, status: this.#status } : undefined;
    if (!this.#work) {
      work.state = input.state;
      // A resumed worker already knows the release it was applying; anything else starts from the request.
      const known = this.#status.actual.image === work.desired.image;
      // A worker resumed on another release shows that one until a pass of the request reports: a replayed Update
      // refused again (at PreconditionChecks, say) must not show a release that was never applied.
      const resumedOther = !known && (this.#o.resume?.actual.image ?? "") !== "";
      this.#status = {
        ...this.#status,
        generation: input.generation,
        ...(resumedOther
          ? {}
          : {
              reconciling: input.state === "Reconciling",
              actual: known ? this.#status.actual : { version: work.desired.version, image: work.desired.image, url: "", channels: [] },
              // Completed passes count for the release shown; another one has none yet.
              completed: known ? this.#status.completed : 0,
            }),
      };
    }
    if (!versionEqual && this.#work && oldDesired && input.state === "Initializing") {
      this.#o.log.warn(`Ignoring detected version change from ${oldDesired.image} to ${work.desired.image} during payload initialization`);
      this.#work.desired = oldDesired;
      if (overridesEqual && capabilitiesEqual) return false;
    }

    let implicit: readonly string[];
    try {
      implicit = await this.#loadUpdatedPayload(work, signal);
    } catch {
      if (this.#work) {
        this.#work.overrides = input.overrides;
        this.#work.capabilities = work.capabilities;
        this.#setCapabilitiesStatus(this.#work);
      }
      return false;
    }
    if (!oldDesired) this.#o.log.info(`Propagating initial target version ${work.desired.version} to sync worker loop in state ${input.state}.`);

    this.#work = work;
    // An update over one that never wrote goes back, if cancelled, to the release in effect before both.
    if (this.#writing || !this.#previous) this.#previous = before;
    this.#writing = false;
    // A release the resumed service had already completed is not timed again.
    if (this.#status.actual.image === work.desired.image && this.#status.completed > 0) this.#deadlines.disarm();
    else this.#arm(work);
    // Before the loop can start a pass of it: an update outside its window is held from its first task.
    this.#watchWindowsAgain();
    // Accepted, but held until resumed; the replay of the saved Update on start (no earlier work) is not a new one.
    if (oldDesired) this.#gate.markUpdatePending();
    work.capabilities = setFromImplicitlyEnabled(implicit, work.capabilities);
    this.#setCapabilitiesStatus(work);
    this.#status = this.#withPause({ ...this.#status, architecture: this.#payload?.architecture ?? "" });
    if (this.#passes.running) {
      this.#o.log.debug("Cancel the sync worker's current loop");
      this.#passes.cancel(new CancelledError());
    }
    this.notify("new work is available");
    return true;
  }

  /**
   * Decides what a CancelUpdate drops, after stopping a payload that is still loading: the newest Update when the
   * worker refused it (or stopped its load), or the accepted one while none of it was written. Throws a
   * {@link CancelUpdateError} saying why nothing can be dropped: the apply started (what was applied), no Update is
   * pending, or there is no release to go back to.
   */
  async planCancel(): Promise<CancelPlan> {
    this.#supersede?.abort(new Error("cancelled by CancelUpdate"));
    await this.#updates;
    const work = this.#work;
    const load = this.#status.loadPayloadStatus.update;
    if (load.image && load.image !== work?.desired.image) {
      if (!work) throw new CancelUpdateError("NoPreviousRelease", `there is no release to go back to: the only Update (${load.image}) was not accepted`);
      return { kind: "refused", image: load.image };
    }
    if (!work) throw new CancelUpdateError("NothingToCancel", "no Update has been made: there is nothing to cancel");
    const release = `${work.desired.version || "the release"} (${work.desired.image})`;
    if (this.#previous) return { kind: "accepted", image: work.desired.image };
    const shown = this.#status.actual.image === work.desired.image;
    if (shown && this.#status.completed > 0) throw new CancelUpdateError("NothingToCancel", `no update is pending: ${release} is completely applied`);
    if (this.#writing || (shown && this.#status.done > 0)) {
      throw new CancelUpdateError("ApplyStarted", `the update to ${release} has started applying, ${appliedText(this.#status)} applied; it cannot be dropped`);
    }
    throw new CancelUpdateError("NoPreviousRelease", `there is no earlier release this process applied to go back to from ${release}`);
  }

  /**
   * Drops what {@link planCancel} found: a refused Update's load status gives way to the release in effect; an
   * accepted one's work, payload and status give way to the previous release's, which is reconciled again. Throws an
   * ApplyStarted {@link CancelUpdateError} when a pass wrote to the cluster since the plan was made.
   */
  async cancel(plan: CancelPlan): Promise<void> {
    const work = this.#work;
    if (!work) return;
    if (plan.kind === "refused") {
      // The release in effect never changed: its own load status comes back.
      const reporter = new StatusWrapper(this.#sink, this.#status, () => this.#o.clock.now());
      const payload = this.#payload;
      const message = `Payload loaded version=${JSON.stringify(work.desired.version)} image=${JSON.stringify(work.desired.image)}`;
      reporter.reportPayload({
        step: "PayloadLoaded",
        message,
        update: work.desired,
        verified: payload?.verifiedImage ?? false,
        lastTransitionTime: this.#o.clock.now(),
      });
      return;
    }
    const previous = this.#previous;
    if (!previous || work.desired.image !== plan.image) {
      throw new CancelUpdateError(
        "ApplyStarted",
        `the update to ${plan.image} started writing to the cluster while the cancel was being saved; it cannot be dropped`,
      );
    }
    this.#previous = undefined;
    this.#work = previous.work;
    this.#payload = previous.payload;
    this.#deadlines.disarm();
    this.#gate.clearUpdatePending();
    if (this.#passes.running) this.#passes.cancel(new CancelledError());
    this.#watchWindowsAgain();
    this.#publish(this.#withPause({ ...previous.status, generation: Math.max(previous.status.generation, this.#status.generation) }));
    this.notify("the pending update was cancelled");
  }

  /**
   * Holds the work while it may not run: an update (a release not yet completely applied) before its not_before or
   * outside the maintenance windows, and with `reconcileInWindowsOnly` a reconcile pass outside them too. Looks
   * again when the windows change and whenever the work does ({@link #watchWindowsAgain}).
   */
  async #watchWindows(signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      const again = new AbortController();
      this.#rewatchWindows = () => again.abort();
      const changesAt = this.#holdOutsideWindows();
      const bounded = link(signal, again.signal);
      // Timers hold at most 2^31-1 ms: a window months away is looked at again daily.
      const ms = changesAt === undefined ? DAY_MS : Math.min(DAY_MS, Math.max(0, changesAt.getTime() - this.#o.clock.now().getTime()));
      await this.#o.clock.sleep(ms, bounded.signal).catch(() => undefined);
      bounded.dispose();
    }
  }

  /** Looks at the windows now (synchronously, so no pass starts in between) and has the watch sleep anew. */
  #watchWindowsAgain(): void {
    this.#holdOutsideWindows();
    this.#rewatchWindows();
  }

  /** Sets or ends the hold for the work as it stands now; returns when that may change. */
  #holdOutsideWindows(): Date | undefined {
    const work = this.#work;
    const windows = this.#o.maintenanceWindows ?? [];
    const updating = work !== undefined && work.desired.image !== this.#completedImage;
    const notBefore = updating ? work?.notBefore : undefined;
    const applies = work !== undefined && (updating || this.#o.reconcileInWindowsOnly === true);
    const now = this.#o.clock.now();
    const state = applies ? windowState(windows, now, notBefore) : { open: true, reason: "" };
    let hold: MaintenanceHold | undefined;
    if (!state.open) {
      const until = nextOpening(windows, now, notBefore);
      hold = { reason: state.reason, ...(until ? { until } : {}) };
    }
    if (hold?.reason !== this.#maintenance?.reason || hold?.until?.getTime() !== this.#maintenance?.until?.getTime()) {
      this.#maintenance = hold;
      this.#gate.hold(hold?.reason);
      if (hold) this.#o.log.info(`holding the update: ${hold.reason}${hold.until ? `, until ${hold.until.toISOString()}` : ""}`);
      this.#publish(this.#withPause(this.#status));
    }
    return "changesAt" in state ? state.changesAt : undefined;
  }

  #arm(work: SyncWork): void {
    this.#timed = effectiveDeadlines(work.deadlines, this.#o.deadlines);
    this.#deadlines.arm(work.desired.image, this.#timed);
  }

  /**
   * A deadline passed (`kind`) or a passed one was cleared: the status shows the deadline's failure while one stands
   * (naming what the update waits on), the metrics follow, and an update that asked for it pauses at the next task
   * boundary.
   */
  #deadlineChanged(kind: DeadlineKind | undefined): void {
    const metrics = this.#o.metrics ?? NO_METRICS;
    const exceeded = this.#deadlines.exceeded;
    if (kind) metrics.deadlineExceeded(kind, true);
    else for (const k of ["Progress", "Total"] as const) if (!exceeded.includes(k)) metrics.deadlineExceeded(k, false);
    const [standing] = exceeded;
    const ms = standing === "Total" ? this.#timed?.totalMs : this.#timed?.progressMs;
    this.#deadlineFailure =
      standing && ms !== undefined
        ? new UpdateError({ reason: `${standing}DeadlineExceeded`, message: deadlineMessage(standing, ms, this.#status.components) })
        : undefined;
    if (kind && this.#deadlineFailure) {
      const { reason, message } = this.#deadlineFailure;
      this.#o.log.warn(`${reason}: ${message}`);
      (this.#o.events ?? NO_EVENTS).event("Warning", reason, message);
      // The pause names the deadline only: the failure beside it says what the update waits on.
      if (this.#timed?.onDeadline === "Pause" && !this.#gate.status) this.#gate.pause("syncworker", `${reason} (on_deadline PAUSE)`);
    }
    const { failure: _shown, ...rest } = this.#status;
    const failure = this.#deadlineFailure ?? this.#passFailure;
    this.#publish(this.#withPause(failure ? { ...rest, failure } : rest));
  }

  #setCapabilitiesStatus(work: SyncWork): void {
    const { enabled, known } = capabilitiesStatus(work.capabilities);
    this.#status = { ...this.#status, capabilitiesStatus: { enabled, known, implicitlyEnabled: work.capabilities.implicitlyEnabled } };
  }

  async #loadUpdatedPayload(work: SyncWork, signal: AbortSignal): Promise<readonly string[]> {
    const reporter = new StatusWrapper(this.#sink, this.#status, () => this.#o.clock.now());
    const bounded = link(signal, this.#lifetime);
    const { implicit, loaded } = await syncPayload(
      this.#o,
      { payload: this.#payload, verified: this.#status.verified, previewed: this.#previewed },
      work,
      reporter,
      bounded.signal,
    ).finally(bounded.dispose);
    if (loaded) this.#payload = loaded;
    return implicit;
  }

  #publish(status: SyncWorkerStatus): void {
    this.#status = status;
    this.#published = status;
    this.#o.reports.status(status);
  }

  /** `status` with the pause and the maintenance hold as the worker has them: it owns those fields, whatever a report started from. */
  #withPause(status: SyncWorkerStatus): SyncWorkerStatus {
    const { pause: _stale, maintenance: _held, ...rest } = status;
    const pause = this.#gate.status;
    const maintenance = this.#maintenance;
    return { ...rest, ...(pause ? { pause } : {}), ...(maintenance ? { maintenance } : {}) };
  }

  /** Records apply-owned fields; load-owned ones are kept. */
  #updateApplyStatus(update: SyncWorkerStatus): void {
    this.#passFailure = update.failure;
    const failure = this.#deadlineFailure ?? update.failure;
    this.#publish(
      this.#withPause({
        ...update,
        ...(failure ? { failure } : {}),
        // Deliberate deviation: upstream writes a stale pass's lower generation; watchers must never see it go back.
        generation: Math.max(update.generation, this.#status.generation),
        loadPayloadStatus: this.#status.loadPayloadStatus,
        capabilitiesStatus: this.#status.capabilitiesStatus,
      }),
    );
  }

  /** Records load-owned fields; apply-owned ones are kept. */
  #updateLoadStatus(update: SyncWorkerStatus): void {
    const s = this.#status;
    const { failure: _f, lastProgress: _l, ...rest } = update;
    const next: SyncWorkerStatus = {
      ...rest,
      // The snapshot a load started from may predate newer apply reports (see updateApplyStatus).
      generation: Math.max(rest.generation, s.generation),
      ...(s.failure ? { failure: s.failure } : {}),
      ...(s.lastProgress ? { lastProgress: s.lastProgress } : {}),
      done: s.done,
      total: s.total,
      components: s.components,
      // The count is of passes of the release shown: a newly loaded release has none yet. (Carried over from the
      // previous release, e.g. by a service resumed on a completed status, it made the history record the new
      // release as Completed the moment it loaded.)
      completed: rest.actual.image === s.actual.image ? s.completed : 0,
      initial: s.initial,
      versionHash: s.versionHash,
    };
    this.#publish(this.#withPause(next));
  }

  /**
   * Runs the loop until `signal` aborts: edge-triggered by update() and notify(), level-driven
   * (a pass every minimum reconcile interval) once the payload applied. A worker runs one loop:
   * a second start() throws.
   */
  async start(maxWorkers: number, signal: AbortSignal): Promise<void> {
    if (this.#lifetime) throw new Error("the sync worker was already started");
    this.#lifetime = signal;
    void this.#watchWindows(signal);
    // A resumed worker continues counting the completed passes of its release.
    const work: SyncWork = { ...emptyWork(), completed: this.#o.resume?.completed ?? 0 };
    const interval = this.#o.minimumReconcileIntervalMs;
    let consecutiveErrors = 0; // never reset on success, as upstream
    let nextAt: number | undefined;
    while (!signal.aborted) {
      let waitingToReconcile = work.state === "Reconciling";
      const woke = await this.#wakeup.wait(nextAt, signal);
      if (woke === "stopped") break;
      if (woke === "timer") {
        nextAt = undefined;
        waitingToReconcile = false;
      }
      if (this.#driftPending) {
        this.#driftPending = false;
        waitingToReconcile = false;
      }
      // A pause holds every pass (an update, a reconcile, a drift fix) until resumed; the work is read after it.
      await this.#gate.wait(signal);
      if (signal.aborted) break;
      const changed = calculateNext(work, this.#work, this.#o.log);
      if (!changed && waitingToReconcile) continue;
      if (!work.desired.image) {
        nextAt = this.#o.clock.now().getTime() + interval;
        continue;
      }
      try {
        await this.#passes.run(this.#payload, work, maxWorkers, signal);
      } catch (err) {
        consecutiveErrors++;
        let wait = interval;
        if (consecutiveErrors < 4) wait = (interval / 16) * 2 ** consecutiveErrors;
        wait *= 1 + 0.2 * this.#o.random();
        nextAt = this.#o.clock.now().getTime() + wait;
        work.completed = 0;
        work.attempt++;
        this.#o.log.info(`unable to synchronize image (waiting ${Math.round(wait)}ms): ${asError(err).message}`);
        continue;
      }
      if (work.state !== "Reconciling") this.#o.log.info(`Sync succeeded, transitioning from ${work.state} to Reconciling`);
      // The release is completely applied: its update's deadlines end, and its reconcile passes need no window.
      this.#completedImage = work.desired.image;
      this.#deadlines.disarm(work.desired.image);
      this.#watchWindowsAgain();
      work.completed++;
      work.attempt = 0;
      work.state = "Reconciling";
      nextAt = this.#o.clock.now().getTime() + interval;
    }
    this.#deadlines.disarm();
    this.#o.log.info("Worker shut down");
  }
}
