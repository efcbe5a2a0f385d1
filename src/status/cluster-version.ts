import type { SyncWorkerStatus } from "../worker/types.js";
import { deriveConditions, failingConditions } from "./conditions.js";
import { describeStatus } from "./describe.js";
import { mergeHistory } from "./history.js";
import type { ClusterVersionStatus, UpdateProgress } from "./shapes.js";

export type { ClusterVersionStatus };

export const EMPTY_CLUSTER_VERSION: ClusterVersionStatus = { conditions: [], history: [], message: "Waiting for an update" };

/** Everything a snapshot of the service carries. */
export interface ServiceStatus {
  readonly worker: SyncWorkerStatus;
  readonly clusterVersion: ClusterVersionStatus;
  /** Timing and slow components; absent before the first status and where a mirrored state has none saved. */
  readonly progress?: UpdateProgress;
}

/**
 * Keeps the update history and conditions across worker reports, as the CVO's ClusterVersion
 * controller does for each status it reads from the worker.
 */
export class ClusterVersionTracker {
  #status: ClusterVersionStatus;

  /**
   * @param now wall clock
   * @param operatorStartedAt when the worker first waited on a ClusterOperator in this attempt sequence
   * @param initial the status a previous process left (history and condition transition times carry on)
   */
  constructor(
    private readonly now: () => Date,
    private readonly operatorStartedAt: (name: string) => Date | undefined,
    initial: ClusterVersionStatus = EMPTY_CLUSTER_VERSION,
  ) {
    this.#status = initial;
  }

  get status(): ClusterVersionStatus {
    return this.#status;
  }

  /** The release an update starts rolling back to: its history entry, once the worker shows it, says so. */
  #rollbackTo: string | undefined;

  /** The next history entry started for `image` records a rollback (CancelUpdate with rollback). */
  markRollback(image: string): void {
    this.#rollbackTo = image;
  }

  /**
   * A cancelled update's release leaves the history when its entry is the newest and still Partial (a pass that
   * started and was held before writing anything): it was never applied.
   */
  forgetPending(image: string): void {
    const [newest, ...rest] = this.#status.history;
    if (newest?.image === image && newest.state === "Partial") this.#status = { ...this.#status, history: rest };
  }

  /** Folds one worker status into the history, the conditions and the message. */
  observe(ws: SyncWorkerStatus): ClusterVersionStatus {
    const now = this.now();
    // Risks belong to the load of the release shown (CVO `syncStatus`), not to one still loading or refused.
    const load = ws.loadPayloadStatus;
    const risks = load.update.image === ws.actual.image ? (load.acceptedRisks ?? "") : "";
    const history = mergeHistory(this.#status.history, ws.actual, ws.verified, now, ws.completed > 0, risks);
    const [newest] = history;
    if (newest && this.#rollbackTo === newest.image && newest.state === "Partial") {
      history[0] = { ...newest, rollback: true };
      this.#rollbackTo = undefined;
    }
    const conditions = deriveConditions(this.#status.conditions, ws, history, now, this.operatorStartedAt);
    this.#status = { history, conditions, message: describeStatus(ws, conditions) };
    return this.#status;
  }

  /**
   * Records an error that kept a sync from starting (CVO `syncFailingStatus`): the conditions say so,
   * and the release `ws` names stays in the history, not completed. The message is the failure.
   */
  observeFailure(ws: SyncWorkerStatus, err: Error): ClusterVersionStatus {
    const now = this.now();
    const history = mergeHistory(this.#status.history, ws.actual, false, now, false);
    const conditions = failingConditions(this.#status.conditions, err, now);
    this.#status = { history, conditions, message: `Error ensuring the cluster version is up to date: ${err.message}` };
    return this.#status;
  }
}
