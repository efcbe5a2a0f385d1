import type { HistoryEntry } from "../status/index.js";
import type { PayloadState } from "../worker/index.js";

/**
 * The state for a desired image when the client leaves it to the service (CVO §8.1 step 5): a cluster
 * that never completed a release is Initializing; the release it completed last is Reconciling; any
 * other is Updating.
 */
export function chooseState(history: readonly HistoryEntry[], desiredImage: string): PayloadState {
  if (!history.some((h) => h.state === "Completed")) return "Initializing";
  const newest = history[0];
  return newest?.state === "Completed" && newest.image === desiredImage ? "Reconciling" : "Updating";
}
