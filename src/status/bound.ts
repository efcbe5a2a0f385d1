import type { LoadPayloadStatus, SyncWorkerStatus } from "../worker/types.js";
import type { ClusterVersionStatus, ServiceStatus } from "./cluster-version.js";
import { statusText } from "./text.js";

/**
 * `err` with its message (and stack) made a status text; the same error when nothing changes. The copy keeps the
 * error's class and fields (an UpdateError's reason and effect, its cause), which conditions and the API read.
 */
function boundedError<E extends Error | undefined>(err: E): E {
  if (!err) return err;
  const message = statusText(err.message);
  if (message === err.message) return err;
  const copy = Object.create(Object.getPrototypeOf(err) as object, Object.getOwnPropertyDescriptors(err)) as Error;
  copy.message = message;
  copy.stack = statusText(err.stack ?? "");
  return copy as E;
}

function boundedLoad(load: LoadPayloadStatus): LoadPayloadStatus {
  const failure = boundedError(load.failure);
  return {
    ...load,
    message: statusText(load.message),
    ...(failure ? { failure } : {}),
    ...(load.acceptedRisks !== undefined ? { acceptedRisks: statusText(load.acceptedRisks) } : {}),
    ...(load.preconditionResults ? { preconditionResults: load.preconditionResults.map((r) => ({ ...r, message: statusText(r.message) })) } : {}),
  };
}

function boundedWorker(worker: SyncWorkerStatus): SyncWorkerStatus {
  const failure = boundedError(worker.failure);
  return { ...worker, ...(failure ? { failure } : {}), loadPayloadStatus: boundedLoad(worker.loadPayloadStatus) };
}

function boundedClusterVersion(cv: ClusterVersionStatus): ClusterVersionStatus {
  return {
    message: statusText(cv.message),
    conditions: cv.conditions.map((c) => ({ ...c, message: statusText(c.message) })),
    history: cv.history.map((h) => (h.acceptedRisks === undefined ? h : { ...h, acceptedRisks: statusText(h.acceptedRisks) })),
  };
}

/**
 * What a snapshot may carry: every free text (failures, messages, accepted risks) with credentials redacted and cut
 * to MAX_STATUS_TEXT characters. A status goes to every watcher, into state.json and the log, and its texts
 * quote what registries, images and payloads sent.
 */
export function boundStatus(status: ServiceStatus): ServiceStatus {
  return { ...status, worker: boundedWorker(status.worker), clusterVersion: boundedClusterVersion(status.clusterVersion) };
}
