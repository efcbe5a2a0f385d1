import { UpdateError } from "../core/index.js";
import { AggregateUpdateErrors, newMultipleError } from "../worker/summarize.js";
import { describePause, type PauseStatus } from "../worker/pause.js";
import type { SyncWorkerStatus } from "../worker/types.js";
import type { HistoryEntry } from "./history.js";
import { progressCounts } from "./progress.js";
import { listText } from "./text.js";

import type { Condition, ConditionStatus } from "./shapes.js";

export type { Condition, ConditionStatus } from "./shapes.js";

const UPDATE_PAYLOAD_SUMMARIES: Record<string, string> = {
  UpdatePayloadResourceNotFound: "some resources could not be updated",
  UpdatePayloadResourceConflict: "some resources could not be updated",
  UpdatePayloadClusterDown: "the control plane is down or not responding",
  UpdatePayloadClusterError: "the control plane is reporting an internal error",
  UpdatePayloadClusterOverloaded: "the control plane is overloaded and is not accepting updates",
  UpdatePayloadClusterUnauthorized: "could not authenticate to the server",
  UpdatePayloadRetrievalFailed: "could not download the update",
  UpdatePayloadResourceForbidden: "the server is rejecting updates",
  UpdatePayloadResourceTypeMissing: "a required extension is not available to update",
  UpdatePayloadResourceInvalid: "some cluster configuration is invalid",
  UpdatePayloadIntegrity: "the contents of the update are invalid",
  ImageVerificationFailed: "the image may not be safe to use",
  UpgradePreconditionCheckFailed: "it may not be safe to apply this update",
  ClusterOperatorsNotAvailable: "some cluster operators are not available",
};

const NAMED_SUMMARIES: Record<string, readonly [string, string]> = {
  ClusterOperatorDegraded: ["the cluster operator %s is degraded", "a cluster operator is degraded"],
  ClusterOperatorNotAvailable: ["the cluster operator %s is not available", "a cluster operator is not available"],
  ClusterOperatorNoVersions: ["the cluster operator %s does not declare expected versions", "a cluster operator does not declare expected versions"],
  WorkloadNotAvailable: ["the workload %s has not yet successfully rolled out", "a workload has not yet rolled out"],
  WorkloadNotProgressing: ["the workload %s cannot roll out", "a workload cannot roll out"],
};

/** A short human reason for a failure, used when nothing better is known (CVO `SummaryForReason`). */
export function summaryForReason(reason: string, name: string): string {
  const fixed = UPDATE_PAYLOAD_SUMMARIES[reason];
  if (fixed) return fixed;
  const named = NAMED_SUMMARIES[reason];
  if (named) return name ? named[0].replace("%s", name) : named[1];
  if (reason.startsWith("UpdatePayload")) return "the update could not be applied";
  return name ? `${name} has an unknown error: ${reason}` : `an unknown error has occurred: ${reason}`;
}

/** How long a degraded operator may take before it counts as failing. */
export const OPERATOR_GRACE_MS = 40 * 60 * 1000;
/** How long an operator may take to reach its versions before the wait is called slow (CVO `convertErrorToProgressingForUpdateEffectNone`). */
export const SLOW_OPERATOR_MS = 30 * 60 * 1000;
/** The machine-config operator updates every node, so its wait is three times as long. */
export const SLOW_MACHINE_CONFIG_MS = 3 * SLOW_OPERATOR_MS;

interface Progress {
  readonly reason: string;
  readonly message: string;
  /** The failure is shown as progress, not as Failing=True. */
  readonly skip: boolean;
  /** An operator takes longer than expected: Failing=Unknown, reason SlowClusterOperator. */
  readonly slow: boolean;
}

const namesOf = (failure: UpdateError): readonly string[] => (failure.names.length > 0 ? failure.names : [failure.objectName]);

/**
 * The CVO's one rule for a slow operator, used by the Failing condition and by the components' `slow`:
 * the worker first waited on it (`startedAt`) more than 30 minutes ago, 90 for machine-config.
 */
export function isSlowOperator(name: string, startedAt: Date | undefined, now: Date): boolean {
  const limit = name === "machine-config" ? SLOW_MACHINE_CONFIG_MS : SLOW_OPERATOR_MS;
  return startedAt !== undefined && startedAt.getTime() < now.getTime() - limit;
}

/** A wait on operators that are still updating, and whether any of them is slow. */
function updatingProgress(failure: UpdateError, now: Date, startedAt: (operator: string) => Date | undefined): Progress {
  const names = namesOf(failure);
  const exceeded = names.filter((n) => isSlowOperator(n, startedAt(n), now));
  const machineConfig = exceeded.includes("machine-config");
  const others = exceeded.filter((n) => n !== "machine-config");
  if (exceeded.length === 0) return { reason: failure.reason, message: `waiting on ${listText(names)}`, skip: true, slow: false };
  const message =
    others.length === 0
      ? "waiting on machine-config over 90 minutes which is longer than expected"
      : `waiting on ${listText(others)} over 30 minutes${machineConfig ? " and machine-config over 90 minutes" : ""} which is longer than expected`;
  return { reason: failure.reason, message, skip: true, slow: true };
}

/**
 * Whether a failure is shown as progress (a wait) rather than a failure, and with which words
 * (CVO `convertErrorToProgressing`). `startedAt` tells when the worker first waited on an operator.
 */
function errorToProgressing(failure: Error | undefined, now: Date, startedAt: (operator: string) => Date | undefined): Progress {
  const none = { reason: "", message: "", skip: false, slow: false };
  if (!(failure instanceof UpdateError)) return none;
  switch (failure.effect) {
    case "Report":
      return { reason: failure.reason, message: failure.message, skip: false, slow: false };
    case "None":
      return updatingProgress(failure, now, startedAt);
    case "FailAfterInterval": {
      const exceeded = namesOf(failure).filter((n) => {
        const started = startedAt(n);
        return !started || started.getTime() < now.getTime() - OPERATOR_GRACE_MS;
      });
      if (exceeded.length > 0) {
        return { reason: failure.reason, message: `wait has exceeded 40 minutes for these operators: ${listText(exceeded)}`, skip: false, slow: false };
      }
      return { reason: failure.reason, message: `waiting up to 40 minutes on ${failure.objectName}`, skip: true, slow: false };
    }
    default:
      return none;
  }
}

/**
 * The failure Failing reports (CVO `filterErrorForFailingCondition`): a MultipleErrors summary without
 * its errors of effect None (operators still updating are progress, not failure), rebuilt from the
 * rest; undefined when none is left.
 */
function failingError(failure: Error | undefined): Error | undefined {
  if (!(failure instanceof UpdateError) || failure.reason !== "MultipleErrors" || !(failure.cause instanceof AggregateUpdateErrors)) return failure;
  return newMultipleError(failure.cause.errors.filter((e) => !(e instanceof UpdateError && e.effect === "None")));
}

/** Sets a condition; the transition time changes only when the status does. */
function setCondition(conditions: Condition[], next: Omit<Condition, "lastTransitionTime">, now: Date): void {
  const i = conditions.findIndex((c) => c.type === next.type);
  const existing = conditions[i];
  if (!existing) {
    conditions.push({ ...next, lastTransitionTime: now });
    return;
  }
  conditions[i] = { ...next, lastTransitionTime: existing.status === next.status ? existing.lastTransitionTime : now };
}

/**
 * Derives the ClusterVersion conditions from the worker's status (CVO `syncStatus` §8.2 steps 8–14):
 * ImplicitlyEnabledCapabilities, ReleaseAccepted, Available, Failing, Progressing, RetrievedUpdates.
 */
export function deriveConditions(
  previous: readonly Condition[],
  ws: SyncWorkerStatus,
  history: readonly HistoryEntry[],
  now: Date,
  startedAt: (operator: string) => Date | undefined,
): Condition[] {
  // A condition of type ImplicitlyEnabled, written by a CVO bug (OCPBUGS-56114), is cleaned up as upstream does.
  const conditions = previous.filter((c) => c.type !== "ImplicitlyEnabled");
  const version = ws.actual.version || ws.actual.image || "<unknown>";
  const implicit = [...ws.capabilitiesStatus.implicitlyEnabled].sort();
  setCondition(
    conditions,
    implicit.length > 0
      ? {
          type: "ImplicitlyEnabledCapabilities",
          status: "True",
          reason: "CapabilitiesImplicitlyEnabled",
          message: `The following capabilities could not be disabled: ${listText(implicit)}`,
        }
      : { type: "ImplicitlyEnabledCapabilities", status: "False", reason: "AsExpected", message: "Capabilities match configured spec" },
    now,
  );

  const load = ws.loadPayloadStatus;
  if (load.step) {
    const status: ConditionStatus = load.step === "PayloadLoaded" ? "True" : load.failure ? "False" : "Unknown";
    setCondition(conditions, { type: "ReleaseAccepted", status, reason: load.step, message: load.message }, now);
  }

  if (ws.completed > 0) {
    setCondition(conditions, { type: "Available", status: "True", reason: "", message: `Done applying ${version}` }, now);
  } else if (!conditions.some((c) => c.type === "Available")) {
    setCondition(conditions, { type: "Available", status: "False", reason: "", message: "" }, now);
  }

  const failure = ws.failure;
  const adjusting = history.length > 0 && !ws.reconciling;
  const progressing = adjusting ? errorToProgressing(failure, now, startedAt) : { reason: "", message: "", skip: false, slow: false };
  const failing = adjusting ? failingError(failure) : failure;
  if (failure && progressing.slow) {
    setCondition(conditions, { type: "Failing", status: "Unknown", reason: "SlowClusterOperator", message: progressing.message }, now);
  } else if (failing && !progressing.skip) {
    setCondition(conditions, { type: "Failing", status: "True", reason: failing instanceof UpdateError ? failing.reason : "", message: failing.message }, now);
  } else {
    setCondition(conditions, { type: "Failing", status: "False", reason: "", message: "" }, now);
  }
  if (failure && !progressing.skip) {
    const reason = failure instanceof UpdateError ? failure.reason : "";
    const summary = progressing.message || (failure instanceof UpdateError ? summaryForReason(reason, failure.objectName) : "an error occurred");
    setCondition(
      conditions,
      ws.reconciling
        ? { type: "Progressing", status: "False", reason, message: `Error while reconciling ${version}: ${summary}` }
        : { type: "Progressing", status: "True", reason, message: `Unable to apply ${version}: ${summary}` },
      now,
    );
  } else if (ws.reconciling) {
    setCondition(conditions, { type: "Progressing", status: "False", reason: "", message: `Cluster version is ${version}` }, now);
  } else {
    const fraction = ws.total > 0 ? ws.done / ws.total : 0;
    const counts = progressCounts(ws.done, ws.total);
    const [reason, message] =
      fraction > 0 && progressing.skip
        ? [progressing.reason, `Working towards ${version}: ${counts}, ${progressing.message}`]
        : fraction > 0
          ? ["", `Working towards ${version}: ${counts}`]
          : progressing.skip
            ? [progressing.reason, `Working towards ${version}: ${progressing.message}`]
            : ["", `Working towards ${version}`];
    setCondition(conditions, { type: "Progressing", status: "True", reason, message }, now);
  }
  if (ws.pause) notePause(conditions, ws.pause, now);
  if (!conditions.some((c) => c.type === "RetrievedUpdates")) {
    setCondition(
      conditions,
      { type: "RetrievedUpdates", status: "False", reason: "NoUpstream", message: "No upstream server has been set to retrieve updates." },
      now,
    );
  }
  return conditions;
}

/** A paused update says so in Progressing, after what it was doing when paused. */
function notePause(conditions: Condition[], pause: PauseStatus, now: Date): void {
  const progressing = conditions.find((c) => c.type === "Progressing");
  if (!progressing) return;
  setCondition(conditions, { ...progressing, message: `${progressing.message}${pauseNote(pause)}` }, now);
}

/** `; paused by … since …: reason`, what a paused status adds to its messages. */
export function pauseNote(pause: PauseStatus): string {
  const pending = pause.updatePending ? "; an Update accepted while paused starts on resume" : "";
  return `; paused ${describePause(pause)}${pending}`;
}

/**
 * The conditions when a sync cannot even start (CVO `syncFailingStatus`): Available=False, Failing=True
 * with the error, and Progressing keeping its status with the error in its message; the rest stay.
 */
export function failingConditions(previous: readonly Condition[], err: Error, now: Date): Condition[] {
  const conditions = [...previous];
  const progressing = conditions.find((c) => c.type === "Progressing")?.status === "True" ? "True" : "False";
  setCondition(conditions, { type: "Available", status: "False", reason: "", message: "" }, now);
  setCondition(conditions, { type: "Failing", status: "True", reason: "", message: err.message }, now);
  setCondition(
    conditions,
    { type: "Progressing", status: progressing, reason: "", message: `Error ensuring the cluster version is up to date: ${err.message}` },
    now,
  );
  return conditions;
}
