/**
 * The API's `FleetWatchResponse` in its JSON form, as the fleet page's stream carries it (proto3 JSON: camelCase
 * names, enums as their names, timestamps as RFC 3339, durations as "1.5s"; a field at its default is left out,
 * hence the optional fields), and the list of rollouts to pick from. Only what the page shows; the whole contract
 * is proto/syncworker/v1/fleet.proto.
 */
export interface StateCountsJson {
  readonly total?: number;
  readonly pending?: number;
  readonly updating?: number;
  readonly succeeded?: number;
  readonly failed?: number;
  readonly unavailable?: number;
  readonly blocked?: number;
}

export interface StageJson {
  readonly name?: string;
  readonly counts?: StateCountsJson;
  readonly startedAt?: string;
  readonly completedAt?: string;
  readonly soakUntil?: string;
}

export interface ConditionJson {
  readonly type?: string;
  readonly status?: string;
  readonly reason?: string;
  readonly message?: string;
  readonly lastTransitionTime?: string;
}

export interface RolloutJson {
  readonly name?: string;
  readonly phase?: string;
  readonly currentStage?: string;
  readonly stages?: readonly StageJson[];
  readonly counts?: StateCountsJson;
  readonly conditions?: readonly ConditionJson[];
  readonly pinnedImage?: string;
  readonly releaseVersion?: string;
  readonly stageSummary?: string;
}

export interface MemberJson {
  readonly member?: string;
  readonly stage?: string;
  /** `MEMBER_STATE_UPDATING`, …; left out while not known. */
  readonly state?: string;
  readonly revision?: number;
  readonly done?: number;
  readonly total?: number;
  readonly version?: string;
  readonly blocker?: string;
  readonly estimatedRemaining?: string;
  readonly lastSeen?: string;
}

/** One `fleet` event: one of the three. */
export interface FleetEventJson {
  readonly rollout?: RolloutJson;
  readonly member?: MemberJson;
  readonly synced?: object;
}

/** One line of `GET /api/v1/fleet/rollouts` (src/api/fleet-page.ts). */
export interface RolloutItem {
  readonly name: string;
  readonly phase: string;
  readonly release: string;
  readonly stageSummary: string;
}

/** Where a member stands, as the page names it: `MEMBER_STATE_UPDATING` → `updating`. */
export const memberState = (state: string | undefined): string => (state ?? "MEMBER_STATE_UNSPECIFIED").replace(/^MEMBER_STATE_/, "").toLowerCase();

/** Every state, in the order the page counts them. */
export const MEMBER_STATES = [
  "pending",
  "starting",
  "updating",
  "paused",
  "succeeded",
  "failed",
  "unavailable",
  "blocked",
  "cancelled",
  "unspecified",
] as const;

/** States shown member by member: under way or held up (as `watch --fleet` lists them). The others are counted. */
export const LISTED_STATES: ReadonlySet<string> = new Set(["starting", "updating", "paused", "failed", "unavailable", "blocked"]);
