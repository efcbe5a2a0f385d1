import type { PayloadState, SyncWorkerStatus } from "../worker/types.js";
import { deriveConditions, type Condition } from "./conditions.js";
import { mergeHistory, type HistoryEntry } from "./history.js";

/** What the CVO derives from the worker's status for people and tools (ClusterVersion status). */
export interface ClusterVersionStatus {
  readonly conditions: readonly Condition[];
  /** Newest first. */
  readonly history: readonly HistoryEntry[];
}

export const EMPTY_CLUSTER_VERSION: ClusterVersionStatus = { conditions: [], history: [] };

/** Everything a snapshot of the service carries. */
export interface ServiceStatus {
  readonly worker: SyncWorkerStatus;
  readonly clusterVersion: ClusterVersionStatus;
}

/**
 * Keeps the update history and conditions across worker reports, as the CVO's ClusterVersion
 * controller does for each status it reads from the worker.
 */
export class ClusterVersionTracker {
  #status: ClusterVersionStatus = EMPTY_CLUSTER_VERSION;

  /**
   * @param now wall clock
   * @param operatorStartedAt when the worker first waited on a ClusterOperator in this attempt sequence
   */
  constructor(
    private readonly now: () => Date,
    private readonly operatorStartedAt: (name: string) => Date | undefined,
  ) {}

  get status(): ClusterVersionStatus {
    return this.#status;
  }

  /** Folds one worker status into the history and conditions. */
  observe(ws: SyncWorkerStatus): ClusterVersionStatus {
    const now = this.now();
    const history = mergeHistory(this.#status.history, ws.actual, ws.verified, now, ws.completed > 0);
    const conditions = deriveConditions(this.#status.conditions, ws, history, now, this.operatorStartedAt);
    this.#status = { history, conditions };
    return this.#status;
  }

  /**
   * The state for a new desired image when the client leaves it to the service (CVO §8.1 step 5):
   * never completed → Initializing; already completed at this image → Reconciling; else Updating.
   */
  chooseState(desiredImage: string): PayloadState {
    const history = this.#status.history;
    if (!history.some((h) => h.state === "Completed")) return "Initializing";
    const newest = history[0];
    return newest?.state === "Completed" && newest.image === desiredImage ? "Reconciling" : "Updating";
  }
}
