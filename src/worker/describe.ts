import type { SyncWorkerStatus } from "./types.js";

/** One human line for a status, as a console or `syncworker status` shows it. */
export function describeStatus(status: SyncWorkerStatus): string {
  const load = status.loadPayloadStatus;
  const version = status.actual.version || load.update.version || status.actual.image;
  if (!status.actual.image && !load.update.image) return "Waiting for an update";
  if (load.failure) {
    const target = load.update.version || load.update.image;
    return `${load.step} failed for ${target}: ${load.failure.message}`;
  }
  if (status.failure) return `Unable to apply ${version}: ${status.failure.message}`;
  if (status.reconciling && status.completed > 0) return `Cluster version is ${version}`;
  if (load.step && load.step !== "PayloadLoaded") return load.message;
  const percent = status.total > 0 ? Math.floor((100 * status.done) / status.total) : 0;
  return `Working towards ${version}: ${status.done} of ${status.total} done (${percent}% complete)`;
}
