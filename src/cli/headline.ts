/**
 * The one line the CLI shows for a snapshot. It is the status message, except during an install: upstream's
 * Initializing mode reports operators that have not come up yet as a failed pass ("Unable to apply 1.0.0: Cluster
 * operators … are not available", kept as is in the status and its conditions), which a person reads as an error
 * although the install is healthy. The CLI says what it is instead: a wait for the operators to become available.
 */
import type { SyncWorkerStatus } from "@syncworker/client";
import { INSTALL_WAIT_REASONS } from "../core/index.js";
import { listText, progressCounts } from "../status/index.js";

/** True when the snapshot is an install whose only trouble is operators not available yet. */
export function isInstallWait(status: SyncWorkerStatus): boolean {
  const load = status.loadPayloadStatus;
  return (
    status.initial &&
    status.failure !== undefined &&
    INSTALL_WAIT_REASONS.has(status.failure.reason) &&
    load?.step === "PayloadLoaded" &&
    load.failure === undefined
  );
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
 * What `cancel` prints: a rollback it started by its releases, the same line however far the rollback got by the
 * answer (while paused it has not begun, and the history does not show it yet); a drop by the headline.
 */
export function cancelHeadline(status: SyncWorkerStatus, rollbackStarted: boolean): string {
  if (!rollbackStarted) return headline(status);
  const target = status.loadPayloadStatus?.update;
  const to = target?.version || target?.image || "?";
  const from = status.history.find((h) => h.image !== target?.image);
  const held = status.pause?.paused ? "; it starts on resume" : "";
  return `Rolling back from ${from?.version || from?.image || "?"} to ${to}; the history records it as a rollback${held}`;
}
