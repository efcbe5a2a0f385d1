/** The fleet: staged rollouts of one release across many members, planned purely and driven through ports. */
export {
  FleetController,
  NO_FLEET_METRICS,
  type FleetMetrics,
  MemberCallError,
  stableJson,
  type ControllerOptions,
  type HubPort,
  type MemberObject,
  type MemberPort,
  type MemberUpdate,
  type PreviewOutcome,
  type RolloutObject,
} from "./controller.js";
export { assignStages, matchesSelector, type Candidate } from "./membership.js";
export {
  planRollout,
  MAX_PREVIEWS,
  type Action,
  type MemberObservation,
  type MemberSnapshot,
  type Outcome,
  type PlanInput,
  type PlanOutput,
} from "./planner.js";
export { WorkQueue, DEFAULT_BACKOFF, type Backoff } from "./queue.js";
export * from "./resources.js";
export { MEMBER_CLUSTER_STATES, memberClusterStatus, sameMemberStatus, type MemberClusterState, type MemberClusterStatus } from "./member-status.js";
