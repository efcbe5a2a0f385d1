import type { SyncWorkerStatus } from "../worker/types.js";
import { pauseNote, type Condition } from "./conditions.js";

/**
 * One human line for a status, derived from the conditions of the same status so the two never
 * disagree: the Progressing condition's message (what `oc get clusterversion` shows), except before
 * any update, while a payload loads or failed to load (the step says more), and while Failing (the
 * failure's own message says more than its summary; a pause is noted after it, as in Progressing).
 */
export function describeStatus(status: SyncWorkerStatus, conditions: readonly Condition[]): string {
  const load = status.loadPayloadStatus;
  if (!status.actual.image && !load.update.image) return "Waiting for an update";
  if (load.failure) return `${load.step} failed for ${load.update.version || load.update.image}: ${load.failure.message}`;
  if (load.step && load.step !== "PayloadLoaded") return load.message;
  const condition = (type: string): Condition | undefined => conditions.find((c) => c.type === type);
  const version = status.actual.version || load.update.version || status.actual.image;
  if (status.failure && condition("Failing")?.status === "True")
    return `Unable to apply ${version}: ${status.failure.message}${status.pause ? pauseNote(status.pause) : ""}`;
  return condition("Progressing")?.message ?? `Working towards ${version}`;
}
