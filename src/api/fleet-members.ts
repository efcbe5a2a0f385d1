import { Code, isComplete, isTransient, SyncWorkerClient, SyncWorkerError, type SyncWorkerStatus, type TlsOptions } from "@syncworker/client";
import { toDuration } from "./convert-progress.js";
import { INSTALL_WAIT_REASONS, UPDATE_EFFECTS, asError, type Clock, type Logger, type UpdateEffect } from "../core/index.js";
import {
  MemberCallError,
  durationMs,
  type MemberControls,
  type MemberObservation,
  type MemberPort,
  type MemberSnapshot,
  type MemberUpdate,
  type PreviewOutcome,
} from "../fleet/index.js";

/** How to reach one member's syncworker; `version` changes whenever any of it does (a MemberCluster or Secret edit). */
export interface MemberEndpoint {
  readonly address: string;
  readonly tls?: TlsOptions;
  readonly token?: string;
  readonly version: string;
}

interface Connection {
  readonly endpoint: MemberEndpoint;
  readonly client: SyncWorkerClient;
  readonly stop: AbortController;
  observation: MemberObservation | undefined;
  /** The member's last full status, for FleetWatch's `full_status`. */
  status: SyncWorkerStatus | undefined;
  lastSeen: Date | undefined;
}

export interface MemberConnectionsOptions {
  readonly clock: Clock;
  readonly log: Logger;
  /** Deadline of a unary call to a member. */
  readonly callTimeoutMs: number;
  /** A member's snapshot changed, or it became unreachable or reachable again. */
  readonly changed: (namespace: string, name: string) => void;
}

/**
 * One client and one StatusWatch per member, kept on every replica (leader or not), so a new leader has every
 * member's state at once. A watch that cannot reach its member marks it unreachable since the first failure; its next
 * snapshot marks it reachable again.
 */
export class MemberConnections implements MemberPort {
  readonly #connections = new Map<string, Connection>();

  constructor(
    private readonly namespace: string,
    private readonly options: MemberConnectionsOptions,
  ) {}

  /** Connects to every member listed, reconnects those whose endpoint changed, and drops the ones gone. */
  sync(endpoints: ReadonlyMap<string, MemberEndpoint>): void {
    for (const [name, connection] of this.#connections) {
      if (endpoints.get(name)?.version === connection.endpoint.version) continue;
      connection.stop.abort();
      connection.client.close();
      this.#connections.delete(name);
    }
    for (const [name, endpoint] of endpoints) if (!this.#connections.has(name)) this.#connect(name, endpoint);
  }

  close(): void {
    this.sync(new Map());
  }

  #connect(name: string, endpoint: MemberEndpoint): void {
    const client = new SyncWorkerClient(endpoint.address, {
      timeoutMs: this.options.callTimeoutMs,
      ...(endpoint.tls ? { tls: endpoint.tls } : {}),
      ...(endpoint.token ? { token: endpoint.token } : {}),
    });
    const connection: Connection = { endpoint, client, stop: new AbortController(), observation: undefined, status: undefined, lastSeen: undefined };
    this.#connections.set(name, connection);
    void this.#watch(name, connection);
  }

  async #watch(name: string, connection: Connection): Promise<void> {
    const { clock, log, changed } = this.options;
    const unreachable = (err: unknown): void => {
      if (connection.observation?.unreachableSince) return;
      log.info(`member ${this.namespace}/${name} at ${connection.endpoint.address} unreachable: ${asError(err).message}`);
      connection.observation = { ...connection.observation, unreachableSince: clock.now() };
      changed(this.namespace, name);
    };
    while (!connection.stop.signal.aborted) {
      try {
        for await (const status of connection.client.watchStatus({ signal: connection.stop.signal, backoff: { maxMs: 5_000 }, onRetry: unreachable })) {
          connection.status = status;
          connection.lastSeen = clock.now();
          connection.observation = { snapshot: snapshotOf(status) };
          changed(this.namespace, name);
        }
      } catch (err) {
        if (connection.stop.signal.aborted) return;
        // Not transient (refused credentials, an unknown service): unreachable until it is mended; try again later.
        unreachable(err);
        await clock.sleep(5_000, connection.stop.signal).catch(() => undefined);
      }
    }
  }

  observation(namespace: string, name: string): MemberObservation | undefined {
    return namespace === this.namespace ? this.#connections.get(name)?.observation : undefined;
  }

  /** The member as its own StatusWatch last showed it: the fleet's summary, the full status, and when. */
  member(name: string): { readonly snapshot?: MemberSnapshot; readonly status?: SyncWorkerStatus; readonly lastSeen?: Date } | undefined {
    const connection = this.#connections.get(name);
    if (!connection) return undefined;
    return {
      ...(connection.observation?.snapshot ? { snapshot: connection.observation.snapshot } : {}),
      ...(connection.status ? { status: connection.status } : {}),
      ...(connection.lastSeen ? { lastSeen: connection.lastSeen } : {}),
    };
  }

  #client(namespace: string, name: string): SyncWorkerClient {
    const connection = namespace === this.namespace ? this.#connections.get(name) : undefined;
    if (!connection) throw new MemberCallError("unreachable", "NotConnected", `member ${namespace}/${name} has no connection yet`);
    return connection.client;
  }

  async preview(namespace: string, name: string, image: string, controls: MemberControls, signal: AbortSignal): Promise<PreviewOutcome> {
    return await call(async () => {
      const stream = this.#client(namespace, name).preview(
        { desired: { image }, ...(controls.limits ? { limits: controls.limits } : {}) },
        { signal, timeoutMs: 5 * this.options.callTimeoutMs },
      );
      for await (const response of stream) {
        const summary = response.summary;
        if (summary) return { planDigest: summary.planDigest, image: summary.release?.image || image, limitViolations: summary.limitViolations };
      }
      throw new MemberCallError("unreachable", "NoSummary", "the preview ended without its summary");
    });
  }

  async update(namespace: string, name: string, update: MemberUpdate, signal: AbortSignal): Promise<void> {
    const { controls } = update;
    const status = await call(() =>
      this.#client(namespace, name).update(
        {
          generation: update.generation,
          desired: { image: update.image, version: update.version },
          expectedPlanDigest: update.planDigest,
          acceptRisks: controls.acceptRisks,
          ...(controls.limits ? { limits: controls.limits } : {}),
          ...(controls.progressDeadline ? { progressDeadline: toDuration(durationMs(controls.progressDeadline)) } : {}),
          ...(controls.totalDeadline ? { totalDeadline: toDuration(durationMs(controls.totalDeadline)) } : {}),
        },
        { signal },
      ),
    );
    // The Update returns once its release was loaded and checked: the load status it returns is this Update's.
    const load = status.loadPayloadStatus;
    const refusal = load?.failure;
    if (refusal && load?.update?.image === update.image)
      throw new MemberCallError(refusal.reason === "PlanDigestMismatch" ? "planChanged" : "refused", refusal.reason, refusal.message);
  }

  async pause(namespace: string, name: string, reason: string, signal: AbortSignal): Promise<void> {
    await call(() => this.#client(namespace, name).pauseUpdate(reason, { signal }));
  }

  async resume(namespace: string, name: string, signal: AbortSignal): Promise<void> {
    await call(() => this.#client(namespace, name).resumeUpdate({ signal }));
  }

  async cancel(namespace: string, name: string, signal: AbortSignal): Promise<void> {
    await call(() => this.#client(namespace, name).cancelUpdate(false, { signal }));
  }
}

/** A member's failed call as the controller tells them apart: not reached (try again) or refused (the answer). */
async function call<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    if (err instanceof MemberCallError) throw err;
    const error = err instanceof SyncWorkerError ? err : SyncWorkerError.from(err);
    const unreachable = isTransient(error) || error.code === Code.DeadlineExceeded || error.code === Code.Canceled;
    throw new MemberCallError(unreachable ? "unreachable" : "refused", Code[error.code] ?? "Unknown", error.message);
  }
}

const EFFECTS: readonly UpdateEffect[] = ["", "Report", "None", "FailAfterInterval", "Fail"];

/** What the fleet keeps of a member's status. */
export function snapshotOf(status: SyncWorkerStatus): MemberSnapshot {
  // An install's operators not up yet is its wait, not a failure (see INSTALL_WAIT_REASONS).
  const installWait = status.initial && status.failure !== undefined && INSTALL_WAIT_REASONS.has(status.failure.reason);
  const waiting = status.maintenance?.reason || (installWait ? status.failure?.message : undefined) || status.components.find((c) => c.waitReason)?.waitReason;
  const component = status.components.find((c) => c.waitReason)?.component;
  const failure = installWait ? undefined : status.failure;
  const refusal = status.loadPayloadStatus?.failure;
  const remaining = status.timing?.estimatedRemaining;
  return {
    revision: status.revision,
    generation: status.generation,
    image: status.actual?.image ?? "",
    version: status.actual?.version ?? "",
    done: status.done,
    total: status.total,
    complete: isComplete(status),
    ...(failure ? { failure: { reason: failure.reason, message: failure.message, effect: EFFECTS[failure.effect] ?? UPDATE_EFFECTS[4] } } : {}),
    ...(refusal ? { refusal: { reason: refusal.reason, message: refusal.message } } : {}),
    ...(status.pause?.paused ? { paused: `paused by ${status.pause.pausedBy}${status.pause.reason ? `: ${status.pause.reason}` : ""}` } : {}),
    ...(waiting ? { waiting: status.maintenance?.reason || installWait ? waiting : `${component}: ${waiting}` } : {}),
    ...(remaining ? { estimateSeconds: Math.round(remaining.seconds) } : {}),
  };
}
