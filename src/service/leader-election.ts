import { NO_LOG, link, onAbort, type Clock, type Logger, type Random } from "../core/index.js";

/** The leader election record a `coordination.k8s.io/v1` Lease holds (client-go `LeaderElectionRecord`). */
export interface LeaseRecord {
  readonly holderIdentity: string;
  readonly leaseDurationSeconds: number;
  readonly acquireTime: Date;
  readonly renewTime: Date;
  readonly leaseTransitions: number;
}

/** Reads and writes one Lease with optimistic concurrency; the Kubernetes edge implements it. */
export interface LeaseClient {
  /** `Lease ns/name`, for messages. */
  readonly where: string;
  /** The record and its resourceVersion, or undefined when the Lease does not exist. */
  get(signal: AbortSignal): Promise<{ readonly record: LeaseRecord; readonly version: string } | undefined>;
  /** Creates the Lease; fails when it already exists. */
  create(record: LeaseRecord, signal: AbortSignal): Promise<void>;
  /** Replaces the record if the Lease is still at `version`; fails on a conflict. */
  update(record: LeaseRecord, version: string, signal: AbortSignal): Promise<void>;
}

/** client-go's leader election timing. */
export interface LeaseTiming {
  /** How long a standby waits after the last change it saw before it takes the Lease over. */
  readonly leaseDurationMs: number;
  /** How long the leader keeps retrying a renewal before it gives up leading (< lease duration). */
  readonly renewDeadlineMs: number;
  /** Time between attempts to acquire or renew. */
  readonly retryPeriodMs: number;
}

/** client-go's defaults (`LeaseDuration` 15 s, `RenewDeadline` 10 s, `RetryPeriod` 2 s). */
export const DEFAULT_LEASE_TIMING: LeaseTiming = { leaseDurationMs: 15_000, renewDeadlineMs: 10_000, retryPeriodMs: 2_000 };

/** client-go's `JitterFactor`: waits between acquisition attempts are up to 20% longer. */
const JITTER_FACTOR = 1.2;

export interface LeadershipCallbacks {
  /**
   * This process now leads. Runs until `term` aborts (leadership lost or the elector stopped) and must
   * stop every write to the cluster before it resolves; only then does the elector try to lead again.
   */
  lead(term: AbortSignal): Promise<void>;
  /** The holder changed (our own identity when we lead; "" when nobody holds the Lease). */
  newLeader(identity: string): void;
}

function sameRecord(a: LeaseRecord | undefined, b: LeaseRecord): boolean {
  return (
    !!a &&
    a.holderIdentity === b.holderIdentity &&
    a.leaseDurationSeconds === b.leaseDurationSeconds &&
    a.acquireTime.getTime() === b.acquireTime.getTime() &&
    a.renewTime.getTime() === b.renewTime.getTime() &&
    a.leaseTransitions === b.leaseTransitions
  );
}

/**
 * Leader election over a Lease with client-go's algorithm: a candidate takes the Lease when it does not
 * exist, is released, or has not changed for a whole lease duration as observed on the candidate's own
 * clock (no clock skew between replicas matters); the leader renews every retry period and stops leading
 * when it could not renew for the renew deadline, which is shorter than the lease duration, so it has
 * stopped before anyone else may take over. On an orderly stop the leader releases the Lease, so a
 * standby takes over at its next attempt rather than after a lease duration.
 */
export class LeaderElector {
  #observed: LeaseRecord | undefined;
  #observedAt = 0;
  #leader = "";
  #onNewLeader: (identity: string) => void = () => undefined;

  constructor(
    private readonly client: LeaseClient,
    readonly identity: string,
    private readonly clock: Clock,
    private readonly random: Random,
    private readonly timing: LeaseTiming = DEFAULT_LEASE_TIMING,
    private readonly log: Pick<Logger, "info" | "warn"> = NO_LOG,
  ) {
    if (!(timing.renewDeadlineMs < timing.leaseDurationMs)) throw new RangeError("the renew deadline must be shorter than the lease duration");
    if (!(timing.retryPeriodMs * JITTER_FACTOR < timing.renewDeadlineMs))
      throw new RangeError("the retry period (with jitter) must be shorter than the renew deadline");
  }

  /** The identity of the current holder as last observed ("" when unknown or released). */
  get leader(): string {
    return this.#leader;
  }

  /** Campaigns, leads, and campaigns again after losing, until `signal` aborts. */
  async run(callbacks: LeadershipCallbacks, signal: AbortSignal): Promise<void> {
    this.#onNewLeader = (identity) => callbacks.newLeader(identity);
    while (!signal.aborted) {
      if (!(await this.#acquire(signal))) return;
      const term = new AbortController();
      const unlisten = onAbort(signal, () => term.abort(signal.reason));
      const leading = callbacks.lead(term.signal);
      try {
        await this.#renewUntilLost(term.signal);
      } finally {
        term.abort(new Error(`leadership of ${this.client.where} lost`));
        unlisten();
        await leading.catch((err: unknown) => this.log.warn(`leading ended with an error: ${String(err)}`));
      }
      if (signal.aborted) await this.#release();
      else this.log.warn(`stopped leading: could not renew ${this.client.where} within ${this.timing.renewDeadlineMs}ms`);
    }
  }

  async #acquire(signal: AbortSignal): Promise<boolean> {
    this.log.info(`attempting to acquire ${this.client.where} as ${this.identity}`);
    while (!signal.aborted) {
      const acquired = await this.#tryAcquireOrRenew(signal).catch((err: unknown) => {
        if (!signal.aborted) this.log.warn(`error acquiring ${this.client.where}: ${String(err)}`);
        return false;
      });
      if (acquired === true) {
        this.log.info(`acquired ${this.client.where} as ${this.identity}`);
        return true;
      }
      const wait = this.timing.retryPeriodMs * (1 + (JITTER_FACTOR - 1) * this.random());
      if (
        !(await this.clock.sleep(wait, signal).then(
          () => true,
          () => false,
        ))
      )
        return false;
    }
    return false;
  }

  /**
   * Renews every retry period. A renewal round retries until it succeeds or the renew deadline passes
   * (client-go's `PollImmediateUntil` under a deadline); a failed round, or the Lease seen in other hands,
   * ends the term.
   */
  async #renewUntilLost(term: AbortSignal): Promise<void> {
    const pause = (ms: number, signal: AbortSignal): Promise<boolean> =>
      this.clock.sleep(ms, signal).then(
        () => true,
        () => false,
      );
    while (await pause(this.timing.retryPeriodMs, term)) {
      const round = new AbortController();
      const deadline = new AbortController();
      const timing = link(round.signal, term);
      void pause(this.timing.renewDeadlineMs, timing.signal).then((expired) => expired && deadline.abort(new Error("renew deadline passed")));
      const bounded = link(term, deadline.signal);
      const attempt = bounded.signal;
      try {
        for (;;) {
          const outcome = await this.#tryAcquireOrRenew(attempt).catch((err: unknown) => {
            if (!attempt.aborted) this.log.warn(`error renewing ${this.client.where}: ${String(err)}`);
            return false as const;
          });
          if (outcome === true) break;
          if (outcome === "held") return;
          if (!(await pause(this.timing.retryPeriodMs, attempt))) return;
        }
      } finally {
        round.abort();
        timing.dispose();
        bounded.dispose();
      }
    }
  }

  /** One attempt (client-go `tryAcquireOrRenew`): true when this process holds the Lease now, "held" when another does. */
  async #tryAcquireOrRenew(signal: AbortSignal): Promise<boolean | "held"> {
    const now = this.clock.now();
    const fresh = (acquireTime: Date, transitions: number): LeaseRecord => ({
      holderIdentity: this.identity,
      leaseDurationSeconds: Math.ceil(this.timing.leaseDurationMs / 1000),
      acquireTime,
      renewTime: now,
      leaseTransitions: transitions,
    });
    const current = await this.client.get(signal);
    if (!current) {
      const record = fresh(now, 0);
      await this.client.create(record, signal);
      this.#observe(record, now.getTime());
      return true;
    }
    if (!sameRecord(this.#observed, current.record)) this.#observe(current.record, now.getTime());
    const held = current.record.holderIdentity;
    const expiresAt = this.#observedAt + current.record.leaseDurationSeconds * 1000;
    if (held !== "" && held !== this.identity && expiresAt > now.getTime()) return "held";
    const record =
      held === this.identity ? fresh(current.record.acquireTime, current.record.leaseTransitions) : fresh(now, current.record.leaseTransitions + 1);
    await this.client.update(record, current.version, signal);
    this.#observe(record, now.getTime());
    return true;
  }

  #observe(record: LeaseRecord, at: number): void {
    this.#observed = record;
    this.#observedAt = at;
    if (this.#leader === record.holderIdentity) return;
    this.#leader = record.holderIdentity;
    this.#onNewLeader(this.#leader);
  }

  /** Gives the Lease up on an orderly stop (client-go `ReleaseOnCancel`); best effort. */
  async #release(): Promise<void> {
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(new Error("release timed out")), this.timing.renewDeadlineMs);
    try {
      const current = await this.client.get(controller.signal);
      if (!current || current.record.holderIdentity !== this.identity) return;
      const now = this.clock.now();
      await this.client.update(
        { holderIdentity: "", leaseDurationSeconds: 1, acquireTime: now, renewTime: now, leaseTransitions: current.record.leaseTransitions },
        current.version,
        controller.signal,
      );
      this.#leader = "";
      this.#onNewLeader("");
      this.log.info(`released ${this.client.where}`);
    } catch (err) {
      this.log.warn(`could not release ${this.client.where}: ${String(err)}`);
    } finally {
      clearTimeout(timer);
    }
  }
}
