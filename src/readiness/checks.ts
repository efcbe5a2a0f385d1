import type { KubeObject } from "../payload/manifest.js";
import { UpdateError } from "../core/index.js";
import type { PayloadState } from "../worker/types.js";

/** A failed readiness check: an UpdateError (not retried) or a plain error (retried). */
export type ReadinessResult = Error | undefined;

interface Condition {
  type?: string;
  status?: string;
  reason?: string;
  message?: string;
}

function conditionsOf(obj: KubeObject): Condition[] {
  const status = obj["status"] as { conditions?: Condition[] } | undefined;
  return Array.isArray(status?.conditions) ? status.conditions : [];
}

function condition(obj: KubeObject, type: string): Condition | undefined {
  return conditionsOf(obj).find((c) => c.type === type);
}

function identity(obj: KubeObject): string {
  return `${obj.metadata?.namespace ?? ""}/${obj.metadata?.name ?? ""}`;
}

/** Deployment health after apply (CVO `checkDeploymentHealth`); it does not wait for the rollout. */
export function checkDeployment(obj: KubeObject, mode: PayloadState): ReadinessResult {
  if (mode === "Initializing") return undefined;
  const iden = identity(obj);
  if (obj.metadata?.["deletionTimestamp"]) return new Error(`deployment ${iden} is being deleted`);
  const replicaFailure = condition(obj, "ReplicaFailure");
  if (replicaFailure?.status === "True") {
    return new UpdateError({
      reason: "WorkloadNotProgressing",
      name: iden,
      message: `deployment ${iden} has a replica failure ${replicaFailure.reason ?? ""}: ${replicaFailure.message ?? ""}`,
    });
  }
  const available = condition(obj, "Available");
  const progressing = condition(obj, "Progressing");
  if (available?.status === "False" && progressing?.status === "False") {
    return new UpdateError({
      reason: "WorkloadNotAvailable",
      name: iden,
      message: `deployment ${iden} is not available ${available.reason ?? ""} (${available.message ?? ""}) or progressing ${progressing.reason ?? ""} (${progressing.message ?? ""})`,
    });
  }
  if (progressing?.status === "False" && progressing.reason === "ProgressDeadlineExceeded") {
    return new UpdateError({
      reason: "WorkloadNotProgressing",
      name: iden,
      message: `deployment ${iden} is Progressing=False: ProgressDeadlineExceeded: ${progressing.message ?? ""}`,
    });
  }
  return undefined;
}

export function checkDaemonSet(obj: KubeObject, mode: PayloadState): ReadinessResult {
  if (mode === "Initializing") return undefined;
  if (obj.metadata?.["deletionTimestamp"]) return new Error(`daemonset ${identity(obj)} is being deleted`);
  return undefined;
}

/** Job health: a failed Job is an error; a running one is fine (upstream does not wait). */
export function checkJob(obj: KubeObject, mode: PayloadState): ReadinessResult {
  if (mode === "Initializing") return undefined;
  const status = (obj["status"] ?? {}) as { succeeded?: number; active?: number; failed?: number };
  if ((status.succeeded ?? 0) > 0 || (status.active ?? 0) > 0) return undefined;
  const failedCondition = conditionsOf(obj).find((c) => c.type === "Failed" && c.status === "True");
  if ((status.failed ?? 0) > 0 || failedCondition?.reason === "DeadlineExceeded") {
    const reason = failedCondition?.reason ?? "DeadlineExceeded";
    const message = failedCondition?.message ?? "Job was active longer than specified deadline";
    return new Error(`deadline exceeded, reason: "${reason}", message: "${message}"`);
  }
  return undefined;
}

export function checkCustomResourceDefinition(obj: KubeObject, mode: PayloadState): ReadinessResult {
  if (mode === "Initializing") return undefined;
  const name = obj.metadata?.name ?? "";
  const established = condition(obj, "Established");
  if (!established) {
    return new Error(`CustomResourceDefinition ${name} does not declare an Established status condition: ${JSON.stringify(conditionsOf(obj))}`);
  }
  if (established.status !== "True") {
    return new Error(`CustomResourceDefinition ${name} Established=${established.status ?? ""}, ${established.reason ?? ""}: ${established.message ?? ""}`);
  }
  return undefined;
}

interface OperandVersion {
  name?: string;
  version?: string;
}

function versionsOf(obj: KubeObject | undefined): OperandVersion[] {
  const status = obj?.["status"] as { versions?: OperandVersion[] } | undefined;
  return Array.isArray(status?.versions) ? status.versions : [];
}

/**
 * ClusterOperator health against the live object (CVO ClusterOperator builder): expected versions
 * reached, Available, not Degraded. Returns UpdateErrors with plural forms so the worker can
 * condense several operators into one message.
 */
export function checkClusterOperator(expected: KubeObject, live: KubeObject, mode: PayloadState): ReadinessResult {
  const name = expected.metadata?.name ?? "";
  const expectedVersions = versionsOf(expected);
  if (expectedVersions.length === 0) {
    return new UpdateError({
      effect: "Fail",
      reason: "ClusterOperatorNoVersions",
      pluralReason: "ClusterOperatorsNoVersions",
      message: `Cluster operator ${name} does not declare expected versions`,
      pluralMessageFormat: "Cluster operators %s do not declare expected versions",
      name,
    });
  }
  const liveVersions = versionsOf(live);
  const undone = expectedVersions
    .flatMap((want) => {
      const current = liveVersions.find((v) => v.name === want.name)?.version ?? "";
      if (current === want.version) return [];
      return [current ? `${want.name ?? ""} from ${current} to ${want.version ?? ""}` : `${want.name ?? ""} to ${want.version ?? ""}`];
    })
    .sort();
  const available = condition(live, "Available");
  const degradedCondition = condition(live, "Degraded");
  const degraded = degradedCondition?.status !== "False";
  const progressing = condition(live, "Progressing")?.status !== "False";
  const summary = `cluster operator ${name}: available=${available?.status === "True"}, progressing=${progressing}, degraded=${degraded}, undone=${undone.join(", ")}`;

  if (available?.status !== "True") {
    const nested = available?.message
      ? `cluster operator ${name} is Available=${available.status ?? ""}: ${available.reason ?? ""}: ${available.message}`
      : summary;
    return new UpdateError({
      effect: "Fail",
      reason: "ClusterOperatorNotAvailable",
      pluralReason: "ClusterOperatorsNotAvailable",
      message: `Cluster operator ${name} is not available`,
      pluralMessageFormat: "Cluster operators %s are not available",
      name,
      cause: new Error(nested),
    });
  }
  if (degraded) {
    const nested = degradedCondition?.message
      ? `cluster operator ${name} is Degraded=${degradedCondition.status ?? ""}: ${degradedCondition.reason ?? ""}, ${degradedCondition.message}`
      : summary;
    return new UpdateError({
      effect: mode === "Initializing" ? "Report" : "FailAfterInterval",
      reason: "ClusterOperatorDegraded",
      pluralReason: "ClusterOperatorsDegraded",
      message: `Cluster operator ${name} is degraded`,
      pluralMessageFormat: "Cluster operators %s are degraded",
      name,
      cause: new Error(nested),
    });
  }
  if (undone.length > 0 && mode !== "Initializing") {
    return new UpdateError({
      effect: "None",
      reason: "ClusterOperatorUpdating",
      pluralReason: "ClusterOperatorsUpdating",
      message: `Cluster operator ${name} is updating versions`,
      pluralMessageFormat: "Cluster operators %s are updating versions",
      name,
      cause: new Error(`cluster operator ${name} is available and not degraded but has not finished updating to target version`),
    });
  }
  return undefined;
}

/** The check for a kind after apply, if it has one. */
export function readinessCheckFor(group: string, kind: string): ((obj: KubeObject, mode: PayloadState) => ReadinessResult) | undefined {
  switch (`${group}/${kind}`) {
    case "apps/Deployment":
      return checkDeployment;
    case "apps/DaemonSet":
      return checkDaemonSet;
    case "batch/Job":
      return checkJob;
    case "apiextensions.k8s.io/CustomResourceDefinition":
      return checkCustomResourceDefinition;
    default:
      return undefined;
  }
}
