/**
 * The one line the CLI shows for a snapshot. It is the status message, except during an install: upstream's
 * Initializing mode reports operators that have not come up yet as a failed pass ("Unable to apply 1.0.0: Cluster
 * operators … are not available", kept as is in the status and its conditions), which a person reads as an error
 * although the install is healthy. The CLI says what it is instead: a wait for the operators to become available.
 */
import type { SyncWorkerStatus } from "@syncworker/client";
import { listText, progressCounts } from "../status/index.js";

/** Readiness reasons that, during an install, mean operators are still coming up. */
const COMING_UP: ReadonlySet<string> = new Set(["ClusterOperatorNotAvailable", "ClusterOperatorsNotAvailable"]);

/** True when the snapshot is an install whose only trouble is operators not available yet. */
export function isInstallWait(status: SyncWorkerStatus): boolean {
  const load = status.loadPayloadStatus;
  return status.initial && status.failure !== undefined && COMING_UP.has(status.failure.reason) && load?.step === "PayloadLoaded" && load.failure === undefined;
}

/** The snapshot in one line, for people: {@link isInstallWait} reads as the wait it is, anything else as the message. */
export function headline(status: SyncWorkerStatus): string {
  if (!isInstallWait(status)) return status.message;
  const names = status.failure?.names ?? [];
  const who = names.length === 1 ? `cluster operator ${names[0]}` : names.length > 1 ? `cluster operators ${listText(names)}` : "cluster operators";
  const version = status.actual?.version || status.actual?.image || "";
  // The service notes a pause after the message (`; paused by …`); the wait it stopped keeps it.
  const note = status.message.indexOf("; paused ");
  const paused = status.pause?.paused && note >= 0 ? status.message.slice(note) : "";
  return `Installing ${version}: ${progressCounts(status.done, status.total)}, waiting for ${who} to become available${paused}`;
}

/**
 * What `cancel` prints, given the status before the call and its answer. A rollback answers with the status of the
 * update it started, which is already moving (and may even be done), so the rollback is named from the history
 * instead, the same line however far it got: a new first entry marked rollback. Anything else is the headline.
 */
export function cancelHeadline(before: SyncWorkerStatus | undefined, after: SyncWorkerStatus): string {
  const [entry, from] = after.history;
  const first = before?.history[0];
  const started = entry?.rollback === true && (entry.image !== first?.image || entry.startedTime?.getTime() !== first?.startedTime?.getTime());
  if (!entry || !started) return headline(after);
  return `Rolling back from ${from?.version || from?.image || "?"} to ${entry.version || entry.image}; the history records it as a rollback`;
}
