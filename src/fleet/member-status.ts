/** A MemberCluster's status: what its syncworker does, as the fleet last saw it (`kubectl get smc`). */
import type { MemberObservation } from "./planner.js";
import type { Condition } from "./resources.js";

export const MEMBER_CLUSTER_STATES = ["Reconciling", "Updating", "Failing", "Paused", "Unreachable", "Unknown"] as const;
export type MemberClusterState = (typeof MEMBER_CLUSTER_STATES)[number];

export interface MemberClusterStatus {
  readonly observedGeneration: number;
  readonly version: string;
  readonly image: string;
  readonly revision: number;
  readonly state: MemberClusterState;
  readonly lastSeen?: string;
  readonly conditions: readonly Condition[];
}

/**
 * The status for a member's last observation. Its revision and last-seen time move with every snapshot; they are
 * written along when something a reader acts on changes ({@link sameMemberStatus}), not on every snapshot, so a busy
 * fleet does not turn each member's progress into writes to the hub.
 */
export function memberClusterStatus(
  generation: number,
  observation: MemberObservation | undefined,
  before: MemberClusterStatus | undefined,
  now: Date,
): MemberClusterStatus {
  const s = observation?.snapshot;
  const reachable = s !== undefined && !observation?.unreachableSince;
  const state: MemberClusterState = observation?.unreachableSince
    ? "Unreachable"
    : !s
      ? "Unknown"
      : s.paused
        ? "Paused"
        : s.failure?.effect === "Fail" || s.refusal
          ? "Failing"
          : s.complete
            ? "Reconciling"
            : "Updating";
  const old = before?.conditions.find((c) => c.type === "Reachable");
  const status = reachable ? "True" : observation?.unreachableSince ? "False" : "Unknown";
  const reachableCondition: Condition = {
    type: "Reachable",
    status,
    reason: reachable ? "Streaming" : observation?.unreachableSince ? "Unreachable" : "NotSeenYet",
    message: observation?.unreachableSince
      ? `no status stream since ${observation.unreachableSince.toISOString()}`
      : reachable
        ? "its StatusWatch is connected"
        : "",
    lastTransitionTime: old?.status === status ? old.lastTransitionTime : now.toISOString(),
    observedGeneration: generation,
  };
  return {
    observedGeneration: generation,
    version: s?.version ?? before?.version ?? "",
    image: s?.image ?? before?.image ?? "",
    revision: s?.revision ?? before?.revision ?? 0,
    state,
    ...(reachable ? { lastSeen: now.toISOString() } : before?.lastSeen ? { lastSeen: before.lastSeen } : {}),
    conditions: [reachableCondition],
  };
}

/** Whether two statuses differ only in what moves with every snapshot (revision, last seen). */
export function sameMemberStatus(a: MemberClusterStatus | undefined, b: MemberClusterStatus): boolean {
  const key = (s: MemberClusterStatus): string =>
    JSON.stringify([s.observedGeneration, s.version, s.image, s.state, s.conditions.map((c) => [c.type, c.status, c.reason])]);
  return a !== undefined && key(a) === key(b);
}
