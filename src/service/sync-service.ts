import type { Backoff } from "../graph/index.js";
import type { PayloadRetriever, PayloadLoader } from "../payload/index.js";
import { parseSemVer, type MaintenanceWindow, type Precondition } from "../policy/index.js";
import {
  boundStatus,
  ClusterVersionTracker,
  EMPTY_CLUSTER_VERSION,
  isSnapshotEdge,
  isStatusEdge,
  NO_DURATIONS,
  SnapshotStore,
  statusText,
  ThrottledNotifier,
  UpdateTimingTracker,
  type Deliver,
  type ServiceStatus,
  type Snapshot,
} from "../status/index.js";
import {
  CancelUpdateError,
  EMPTY_STATUS,
  SyncWorker,
  type CancelPlan,
  type MetricsSink,
  type ResourceApplier,
  type SyncWorkerStatus,
  type UpdateRequest,
  type BlastRadiusLimits,
  type UpdateDeadlines,
  type ObjectPlanner,
  type PlannedObject,
  type PreviewInput,
  type PreviewResult,
} from "../worker/index.js";
import type { Clock, EventRecorder, Logger, Random, SpanRef, Tracing } from "../core/index.js";
import { chooseState } from "./choose-state.js";
import { NotLeaderError, StaleGenerationError } from "./errors.js";
import type { LeaderElector } from "./leader-election.js";
import { OperatorWaits } from "./operator-waits.js";
import { acceptedSpec, type DesiredSpec, type PersistedState } from "./state.js";
import type { StateStore } from "./state-store.js";
import { StateWriter } from "./state-writer.js";

/** What the service gives the cluster it drives. */
export interface ClusterPorts {
  /** The applier waits on this ClusterOperator (the first time counts for the 40-minute grace). */
  readonly onOperatorWait: (name: string) => void;
  /** Something changed in the cluster: wakes the worker as NotifyResourceActivity does. */
  readonly notify: (message: string) => void;
  /** Someone else changed or deleted an object we manage: a pass corrects it now, even while reconciling. */
  readonly drift: (message: string) => void;
}

/** The cluster the service drives, built by the composition root (embedded or real). */
export interface ClusterTarget {
  readonly applier: ResourceApplier;
  /** Computes objects' effects with dry runs, for Preview and the plan checks of an Update. */
  readonly planner?: ObjectPlanner;
  /** Checked before a new release is accepted. */
  readonly preconditions: readonly Precondition[];
  /** Where the worker's events are recorded in the cluster, besides the log; flushed on stop. */
  readonly events?: EventRecorder & { flush(): Promise<void> };
}

/** The service's log: the worker's levels plus the child loggers pino gives. */
export interface ServiceLogger extends Logger {
  child(bindings: Record<string, string>): ServiceLogger;
}

export interface SyncServiceOptions {
  readonly clock: Clock;
  readonly random: Random;
  readonly log: ServiceLogger;
  /** Builds the cluster target once the service can receive its reports. */
  readonly cluster: (ports: ClusterPorts) => ClusterTarget;
  readonly retriever: PayloadRetriever;
  readonly loadPayload: PayloadLoader;
  readonly maxWorkers: number;
  readonly minimumReconcileIntervalMs: number;
  readonly backoff: Backoff;
  /** The worker's retry schedule while it installs (see `SyncWorkerOptions`). */
  readonly installBackoff: Backoff;
  /** The cluster's enabled feature gates (from its feature set), for the feature-gated capabilities. */
  readonly featureGates?: ReadonlySet<string>;
  /** Blast-radius limits of every Update and Preview, where the request sets none; absent: unlimited. */
  readonly limits?: BlastRadiusLimits;
  /** Deadlines of every Update, where the request sets none (`--progress-deadline`, `--total-deadline`); absent: none. */
  readonly deadlines?: UpdateDeadlines;
  /** When updates may run (`--maintenance-window`); none: any time. */
  readonly maintenanceWindows?: readonly MaintenanceWindow[];
  /** Reconcile passes wait for a maintenance window too (`--maintenance-window-reconcile`). */
  readonly reconcileInWindowsOnly?: boolean;
  readonly state: StateStore;
  /** Absent: this process is the only writer (the embedded cluster) and leads from the start. */
  readonly election?: LeaderElector;
  /** Who writes the state: the elector's identity, else host and pid. */
  readonly identity: string;
  /** Least time between two saves of the status (accepted Updates are saved at once); default 1 s. */
  readonly saveIntervalMs?: number;
  readonly metrics?: MetricsSink;
  readonly tracing?: Tracing;
  /** Told how many snapshots a slow watcher skipped (a metric). */
  readonly onCoalesced?: (skipped: number) => void;
  /**
   * Sees every snapshot this process publishes as the leader, before any watcher's coalescing (events, embedders,
   * tests), with the trace of the sync pass it belongs to when tracing is on.
   */
  readonly onSnapshot?: (snapshot: Snapshot<ServiceStatus>, trace: SpanRef | undefined) => void;
  /** Told each leader the election sees (the identity; "" for none), after this process started or stopped leading. */
  readonly onLeader?: (identity: string) => void;
  /**
   * Least time between two snapshots that only advance progress (edges are published at once, and the
   * newest status is always published in the end); absent or 0: every status is a snapshot.
   */
  readonly progressIntervalMs?: number;
}

/** How many revisions a leader reserves ahead in its saved state, so a successor starts above every one it published. */
const REVISION_RESERVE = 1000;

/** What a saved state shows in a snapshot: a standby shows the leader's components and timing as last saved. */
function shown(state: PersistedState): ServiceStatus {
  return { worker: state.status, clusterVersion: state.clusterVersion, ...(state.progress ? { progress: state.progress } : {}) };
}

interface Term {
  readonly worker: SyncWorker;
  readonly writer: StateWriter;
  readonly signal: AbortSignal;
}

/**
 * Owns the running service: the worker, the snapshot store, the update history and conditions, the
 * ClusterOperator wait times, the events, the state choice for an unset `state`, the persisted state,
 * and (with an elector) leadership. The gRPC layer calls it and holds no state of its own; main.ts only
 * constructs and starts it.
 *
 * A leader runs the worker and saves its state; a standby runs no worker, serves reads from the state
 * the leader saves (mirrored with the leader's revisions), and refuses writes with {@link NotLeaderError}.
 */
export class SyncService {
  readonly #o: SyncServiceOptions;
  readonly #waits: OperatorWaits;
  /** Elapsed time, the estimate of the time left and slow components; learns component durations. */
  #timing: UpdateTimingTracker;
  readonly #cluster: ClusterTarget;
  readonly #lifetime = new AbortController();
  readonly #statusLog: ThrottledNotifier;
  /** Throttles progress-only snapshots; absent when every status is published. */
  readonly #progress: ThrottledNotifier | undefined;
  #store: SnapshotStore<ServiceStatus> | undefined;
  /** The trace of the sync pass running or last run; what the snapshots are said to belong to. */
  #passTrace: SpanRef | undefined;
  #tracker: ClusterVersionTracker;
  #spec: DesiredSpec | undefined;
  /** The Update of the release the worker holds (accepted), and of the one before it: what a cancel saves back. */
  #inEffect: DesiredSpec | undefined;
  #beforeInEffect: DesiredSpec | undefined;
  #reserved = 0;
  #term: Term | undefined;
  #running: Promise<void> | undefined;
  #started = false;
  /** Why the final save of an orderly stop failed; undefined when it succeeded. */
  #unsaved: Error | undefined;

  constructor(options: SyncServiceOptions) {
    this.#o = options;
    const now = (): Date => options.clock.now();
    this.#waits = new OperatorWaits(now);
    this.#tracker = new ClusterVersionTracker(now, (name) => this.#waits.startedAt(name));
    this.#timing = new UpdateTimingTracker(NO_DURATIONS, now, (name) => this.#waits.startedAt(name));
    this.#cluster = options.cluster({
      onOperatorWait: (name) => this.#waits.record(name),
      notify: (message) => void this.#term?.worker.notify(message),
      drift: (message) => {
        options.log.info(`drift: ${message}`);
        this.#term?.worker.correctDrift(message);
      },
    });
    // Progress is logged on every edge and otherwise at most every 15 s (the CVO's notifier settings).
    const progressLog = options.log.child({ component: "status" });
    this.#statusLog = new ThrottledNotifier(15_000, 2, options.clock, () => progressLog.info(this.latest().value.clusterVersion.message));
    // Every snapshot costs a fan-out to each watcher; a 1,000-manifest sync reports a status per manifest.
    const interval = options.progressIntervalMs ?? 0;
    this.#progress = interval > 0 ? new ThrottledNotifier(interval, 1, options.clock, (status) => this.#publish(status), isSnapshotEdge) : undefined;
  }

  /**
   * Loads the persisted state (a state that cannot be read fails here, naming it), then leads at once
   * without an elector, or serves as a standby while campaigning. Resolves once reads can be served
   * and, without an elector, once Updates are accepted.
   */
  async start(): Promise<void> {
    if (this.#started) throw new Error("the sync service was already started");
    this.#started = true;
    const signal = this.#lifetime.signal;
    const saved = await this.#o.state.load(signal);
    const value = saved ? shown(saved) : { worker: EMPTY_STATUS, clusterVersion: EMPTY_CLUSTER_VERSION };
    this.#store = new SnapshotStore<ServiceStatus>(value, Date.now, setImmediate, this.#o.onCoalesced, saved?.revision.published ?? 1, boundStatus);
    const election = this.#o.election;
    if (!election) {
      const term = await this.#openTerm(signal);
      this.#running = this.#runTerm(term);
      return;
    }
    this.#o.state.watch?.((state) => this.#mirror(state), signal);
    this.#running = election.run(
      {
        lead: async (signal) => this.#runTerm(await this.#openTerm(signal)),
        newLeader: (identity) => {
          this.#o.log.info(`leader is now ${identity || "(none)"}`);
          this.#o.onLeader?.(identity);
        },
      },
      signal,
    );
  }

  /**
   * Stops the worker (saving its last state while still the owner), flushes events, releases leadership.
   * Rejects with the save's error, once all is stopped, when the last state could not be saved: what was
   * acknowledged is stored, but a restart will not find where the worker stood.
   */
  async stop(): Promise<void> {
    this.#lifetime.abort(new Error("the service is stopping"));
    await this.#running;
    this.#progress?.stop();
    this.#statusLog.stop();
    await this.#cluster.events?.flush();
    if (this.#unsaved !== undefined) throw this.#unsaved;
  }

  /** "leader" runs the worker; "standby" serves reads and waits for leadership. */
  role(): "leader" | "standby" {
    return this.#term ? "leader" : "standby";
  }

  /** The latest snapshot. */
  latest(): Snapshot<ServiceStatus> {
    if (!this.#store) throw new Error("the sync service is not started");
    // A reader gets the newest status: the progress throttle bounds how often watchers are sent one, not what a read sees.
    this.#progress?.flush();
    return this.#store.latest();
  }

  /** Streams snapshots after `sinceRevision`, latest-value semantics (see SnapshotStore.subscribe). */
  subscribe(sinceRevision: number, deliver: Deliver<ServiceStatus>): () => void {
    if (!this.#store) throw new Error("the sync service is not started");
    return this.#store.subscribe(sinceRevision, deliver);
  }

  /**
   * Sets the desired release and returns the snapshot right after it was taken. The request is saved
   * before the worker is given it, so an Update whose call returned survives a crash, and one whose save
   * failed is refused (a StateNotSavedError) and changes nothing. An Update older than the last
   * accepted one is refused ({@link StaleGenerationError}).
   */
  async update(request: UpdateRequest, signal: AbortSignal): Promise<Snapshot<ServiceStatus>> {
    const term = this.#leading();
    const { cause: _cause, ...spec } = request;
    this.#checkGeneration(spec.generation);
    // Saved even when the worker then refuses it, as the CVO keeps a spec it cannot apply: a restart checks it again, never applies it unchecked.
    const outcome = await term.writer.commit({
      name: "Update",
      draft: (state) => (state.spec && state.spec.generation > spec.generation ? state : { ...state, spec }),
      apply: () => {
        this.#checkGeneration(spec.generation);
        this.#spec = spec;
        const state = request.state ?? chooseState(this.#tracker.status.history, request.desired.image);
        return term.worker.update({ ...request, state }, signal);
      },
    });
    // A newer Update may have replaced the spec while this one loaded.
    if (this.#spec === spec && outcome.accepted) {
      this.#spec = acceptedSpec(spec);
      if (this.#inEffect?.desired.image !== spec.desired.image) this.#beforeInEffect = this.#inEffect;
      this.#inEffect = this.#spec;
    }
    // The request itself is stored; a failure to store the status it led to is logged by the writer and retried.
    await term.writer.flush().catch(() => undefined);
    return this.latest();
  }

  /**
   * Holds the update at a task boundary (see SyncWorker.pause) and returns the snapshot that shows it. Saved before
   * it is made, so a restart comes back paused. A PauseError when already paused.
   */
  async pause(pausedBy: string, reason: string): Promise<Snapshot<ServiceStatus>> {
    const term = this.#leading();
    const pause = { pausedBy, reason, pausedAt: this.#o.clock.now(), updatePending: false };
    term.worker.checkPause(true);
    await term.writer.commit({
      name: "PauseUpdate",
      draft: (state) => (state.status.pause ? state : { ...state, status: { ...state.status, pause } }),
      apply: () => term.worker.pause(pausedBy, reason),
    });
    return this.latest();
  }

  /** Lets a paused update continue where it stood; a PauseError when not paused. Saved before it is made. */
  async resume(): Promise<Snapshot<ServiceStatus>> {
    const term = this.#leading();
    term.worker.checkPause(false);
    await term.writer.commit({
      name: "ResumeUpdate",
      draft: ({ position: _held, ...state }) => {
        const { pause: _pause, ...status } = state.status;
        return { ...state, status };
      },
      apply: () => term.worker.resume(),
    });
    return this.latest();
  }

  /**
   * CancelUpdate: drops the desired release while none of it was written (see SyncWorker.planCancel); the release in
   * effect stays and is reconciled, and the saved spec goes back to that release's Update (at the dropped one's
   * generation), so a restart does not replay the dropped one. Once applying started it is refused with a
   * {@link CancelUpdateError} naming what was applied, unless `rollback`: then an update back to the last completed
   * release starts, within the same minor version only, and the history records it as a rollback.
   */
  async cancel(rollback: boolean, signal: AbortSignal): Promise<{ readonly snapshot: Snapshot<ServiceStatus>; readonly rollbackStarted: boolean }> {
    const term = this.#leading();
    let plan: CancelPlan;
    try {
      plan = await term.worker.planCancel();
    } catch (err) {
      if (rollback && err instanceof CancelUpdateError && err.reason === "ApplyStarted")
        return { snapshot: await this.#rollback(err, signal), rollbackStarted: true };
      throw err;
    }
    const restored = plan.kind === "accepted" ? this.#beforeInEffect : this.#inEffect;
    if (!restored) throw new CancelUpdateError("NoPreviousRelease", `there is no release to go back to from ${plan.image}`);
    const spec: DesiredSpec = { ...restored, generation: Math.max(restored.generation, this.#spec?.generation ?? 0) };
    await term.writer
      .commit({
        name: "CancelUpdate",
        draft: (state) => ({ ...state, spec }),
        apply: () => {
          if (plan.kind === "accepted") this.#tracker.forgetPending(plan.image);
          return term.worker.cancel(plan).then(() => {
            this.#spec = spec;
            this.#inEffect = spec;
            if (plan.kind === "accepted") this.#beforeInEffect = undefined;
          });
        },
      })
      .catch((err: unknown) => {
        // Refused after the spec was saved (a pass wrote in between): the next save writes the update's spec back.
        if (err instanceof CancelUpdateError) term.writer.schedule(true);
        throw err;
      });
    await term.writer.flush().catch(() => undefined);
    return { snapshot: this.latest(), rollbackStarted: false };
  }

  /** The rollback a cancel asked for once applying started: an Update back to the last completed release of the same minor. */
  async #rollback(refusal: CancelUpdateError, signal: AbortSignal): Promise<Snapshot<ServiceStatus>> {
    const spec = this.#spec;
    const worker = this.latest().value.worker;
    const target = this.#tracker.status.history.find((h) => h.state === "Completed" && h.image !== spec?.desired.image);
    if (!spec || !target)
      throw new CancelUpdateError("NoCompletedRelease", `${refusal.message}, and no earlier release was completely applied to roll back to`);
    const version = worker.actual.image === spec.desired.image ? worker.actual.version : spec.desired.version;
    const from = parseSemVer(version);
    const to = parseSemVer(target.version);
    if (from instanceof Error || to instanceof Error || from.major !== to.major || from.minor !== to.minor) {
      throw new CancelUpdateError(
        "RollbackAcrossMinor",
        `${refusal.message}; a rollback from ${version || spec.desired.image} to ${target.version || target.image} would leave its minor version, and only a rollback within the same minor version is allowed (as oc adm upgrade rollback)`,
      );
    }
    this.#tracker.markRollback(target.image);
    // The risks accepted for the release rolled back from are not the rollback's.
    const { acceptRisks: _risks, ...kept } = spec;
    return this.update({ ...kept, desired: { version: target.version, image: target.image, force: false }, state: "Updating" }, signal);
  }

  /** A generation below the last accepted Update's would go back to an older desired state. */
  #checkGeneration(generation: number): void {
    const accepted = this.#spec?.generation ?? 0;
    if (generation < accepted) throw new StaleGenerationError(generation, accepted);
  }

  /** What an Update would do to each object (see SyncWorker.preview); only the leader's worker holds the payload. */
  preview(input: PreviewInput, onObject: (object: PlannedObject) => void, signal: AbortSignal): Promise<PreviewResult> {
    return this.#leading().worker.preview(input, onObject, signal);
  }

  /** Wakes the worker early; false when a notification was already pending. */
  notify(message: string): boolean {
    return this.#leading().worker.notify(message);
  }

  #leading(): Term {
    if (this.#term) return this.#term;
    throw new NotLeaderError(this.#o.election?.leader ?? "");
  }

  /** A standby shows what the leader saved, at the leader's revision. */
  #mirror(state: PersistedState): void {
    if (this.#term || !this.#store) return;
    this.#store.mirror({ revision: state.revision.published, publishedAt: state.savedAt.getTime(), value: shown(state) });
  }

  /**
   * Takes ownership: reloads the state (the previous leader's last word), reserves revisions above any
   * it published and saves that reservation, then builds a worker that resumes where the state says.
   */
  async #openTerm(signal: AbortSignal): Promise<Term> {
    const store = this.#store!;
    const saved = await this.#o.state.load(signal);
    this.#spec = saved?.spec;
    // A new term knows no release before the one it resumes: a cancel can only drop what it accepts itself.
    this.#inEffect = saved?.spec;
    this.#beforeInEffect = undefined;
    this.#tracker = new ClusterVersionTracker(
      () => this.#o.clock.now(),
      (name) => this.#waits.startedAt(name),
      saved?.clusterVersion ?? this.#tracker.status,
    );
    this.#timing = new UpdateTimingTracker(
      saved?.durations ?? this.#timing.learned,
      () => this.#o.clock.now(),
      (name) => this.#waits.startedAt(name),
    );
    const floor = Math.max(saved?.revision.reserved ?? 0, store.latest().revision);
    store.mirror({ revision: floor + 1, publishedAt: Date.now(), value: saved ? shown(saved) : store.latest().value });
    this.#reserved = floor + 1 + REVISION_RESERVE;
    const log = this.#o.log;
    const eventLog = log.child({ component: "events" });
    const worker = new SyncWorker({
      retriever: this.#o.retriever,
      loadPayload: this.#o.loadPayload,
      applier: this.#cluster.applier,
      clock: this.#o.clock,
      random: this.#o.random,
      log: log.child({ component: "worker" }),
      minimumReconcileIntervalMs: this.#o.minimumReconcileIntervalMs,
      backoff: this.#o.backoff,
      installBackoff: this.#o.installBackoff,
      reports: {
        status: (status) => this.#onStatus(status),
        attemptsRestarted: () => this.#waits.clear(),
        passTraced: (ref) => (this.#passTrace = ref),
      },
      events: {
        event: (type, reason, text) => {
          const message = statusText(text);
          if (type === "Warning") eventLog.warn(`${reason}: ${message}`);
          else eventLog.info(`${reason}: ${message}`);
          this.#cluster.events?.event(type, reason, message);
        },
      },
      preconditions: this.#cluster.preconditions,
      ...(this.#cluster.planner ? { planner: this.#cluster.planner } : {}),
      ...(this.#o.limits ? { limits: this.#o.limits } : {}),
      ...(this.#o.deadlines ? { deadlines: this.#o.deadlines } : {}),
      ...(this.#o.maintenanceWindows ? { maintenanceWindows: this.#o.maintenanceWindows } : {}),
      ...(this.#o.reconcileInWindowsOnly ? { reconcileInWindowsOnly: true } : {}),
      ...(this.#o.featureGates ? { featureGates: this.#o.featureGates } : {}),
      ...(saved ? { resume: saved.status } : {}),
      ...(saved?.position ? { resumePosition: saved.position } : {}),
      ...(this.#o.metrics ? { metrics: this.#o.metrics } : {}),
      ...(this.#o.tracing ? { tracing: this.#o.tracing } : {}),
    });
    const writer = new StateWriter(
      this.#o.state,
      () => this.#persisted(worker),
      this.#o.clock,
      this.#o.saveIntervalMs ?? 1000,
      (err) => log.warn(`saving the state failed: ${String(err)}`),
    );
    await writer.flush();
    const term = { worker, writer, signal };
    this.#term = term;
    log.info(saved ? `resuming from ${this.#o.state.where} at revision ${floor + 1}` : `no saved state at ${this.#o.state.where}; starting fresh`);
    return term;
  }

  /** Runs the worker for the term, replaying the saved desired release first; ends when the term's signal aborts. */
  async #runTerm(term: Term): Promise<void> {
    const loop = term.worker.start(this.#o.maxWorkers, term.signal);
    const spec = this.#spec;
    if (spec) {
      // A release completed last is reconciled, whatever the client asked for when it sent it.
      const chosen = chooseState(this.#tracker.status.history, spec.desired.image);
      const state = chosen === "Reconciling" ? chosen : (spec.state ?? chosen);
      await term.worker.update({ ...spec, state }, term.signal).then(
        ({ accepted }) => {
          // A newer Update may have replaced the spec while the replay loaded.
          if (this.#spec !== spec) return;
          if (accepted) this.#spec = acceptedSpec(spec);
          term.writer.schedule(true);
        },
        (err: unknown) => {
          if (term.signal.aborted) return;
          this.#o.log.warn(`resuming the desired release failed: ${String(err)}`);
          this.#syncFailing(err instanceof Error ? err : new Error(String(err)));
        },
      );
    }
    await loop;
    this.#term = undefined;
    // The last status is shown (and, on an orderly stop, saved below) even if a throttle held it.
    this.#progress?.flush();
    // An orderly stop saves the last status; a lost leadership must not write any more.
    if (this.#lifetime.signal.aborted) {
      await term.writer.flush().catch((err: unknown) => this.#o.log.warn(`saving the last state failed: ${String(err)}`));
      this.#unsaved = term.writer.failure;
    }
    term.writer.stop();
  }

  /** A sync that could not start shows in the snapshot's conditions, as the CVO's failing status does. */
  #syncFailing(err: Error): void {
    const store = this.#store!;
    const worker = store.latest().value.worker;
    store.publish({ worker, clusterVersion: this.#tracker.observeFailure(worker, err) });
    this.#term?.writer.schedule(true);
  }

  #onStatus(status: SyncWorkerStatus): void {
    if (this.#progress) this.#progress.push(status);
    else this.#publish(status);
  }

  #publish(status: SyncWorkerStatus): void {
    const store = this.#store!;
    const previous = store.latest().value.worker;
    const clusterVersion = this.#tracker.observe(status);
    const learned = this.#timing.learned;
    const snapshot = store.publish({ worker: status, clusterVersion, progress: this.#timing.observe(status, clusterVersion.history) });
    this.#o.onSnapshot?.(snapshot, this.#passTrace);
    this.#statusLog.push(status);
    const writer = this.#term?.writer;
    if (!writer) return;
    if (snapshot.revision + REVISION_RESERVE / 2 > this.#reserved) {
      this.#reserved = snapshot.revision + REVISION_RESERVE;
      writer.schedule(true);
    } else writer.schedule(isStatusEdge(previous, status) || this.#timing.learned !== learned);
  }

  #persisted(worker: SyncWorker): PersistedState {
    const latest = this.latest();
    const position = worker.heldPosition();
    return {
      writer: this.#o.identity,
      savedAt: this.#o.clock.now(),
      revision: { published: latest.revision, reserved: this.#reserved },
      spec: this.#spec,
      status: latest.value.worker,
      clusterVersion: latest.value.clusterVersion,
      ...(position ? { position } : {}),
      ...(this.#timing.learned.updates > 0 ? { durations: this.#timing.learned } : {}),
      ...(latest.value.progress ? { progress: latest.value.progress } : {}),
    };
  }
}
