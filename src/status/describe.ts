import { UpdateError } from "../payload/update-error.js";
import type { SyncWorkerStatus } from "../worker/types.js";
import { progressCounts } from "./progress.js";

/**
 * One human line for a status, worded like the CVO's Progressing condition: failures whose effect is
 * `None` (an operator still rolling out) are waits, not failures.
 */
export function describeStatus(status: SyncWorkerStatus): string {
  const load = status.loadPayloadStatus;
  const version = status.actual.version || load.update.version || status.actual.image;
  if (!status.actual.image && !load.update.image) return "Waiting for an update";
  if (load.failure) return `${load.step} failed for ${load.update.version || load.update.image}: ${load.failure.message}`;
  const failure = status.failure;
  if (failure && !(failure instanceof UpdateError && failure.effect === "None")) return `Unable to apply ${version}: ${failure.message}`;
  if (status.reconciling && status.completed > 0 && !failure) return `Cluster version is ${version}`;
  if (load.step && load.step !== "PayloadLoaded") return load.message;
  const waiting = failure instanceof UpdateError ? `, waiting on ${failure.objectName || failure.names.join(", ")}` : "";
  return `Working towards ${version}: ${progressCounts(status.done, status.total)}${waiting}`;
}
