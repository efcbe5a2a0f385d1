/**
 * The rollout's plan: from the rollout, the members' latest snapshots and what the last calls to them answered, the
 * status to write and the calls to make. Pure (time is an input), so a restarted or new leader plans the same from the
 * same status, and the tests drive it exactly.
 *
 * The status is written before any call it asks for. A member's generation is chosen once, when it is first dispatched
 * (the member's own generation plus one), and kept in the status, so whoever leads later resends the same Update
 * rather than a different one.
 */
import type { UpdateEffect } from "../core/index.js";
import { assignStages, matchesSelector, type Candidate } from "./membership.js";
import {
  FINAL_STATES,
  durationMs,
  resolveIntOrPercent,
  type Condition,
  type MemberRecord,
  type MemberState,
  type RolloutPhase,
  type RolloutSpec,
  type RolloutStatus,
  type StageStatus,
  type StateCounts,
} from "./resources.js";

/** What a member's own StatusWatch last said, as the fleet needs it. */
export interface MemberSnapshot {
  readonly revision: number;
  readonly generation: number;
  /** The release the member applies or has applied (its status' `actual`). */
  readonly image: string;
  readonly version: string;
  readonly done: number;
  readonly total: number;
  /** Its release fully applied, without failure. */
  readonly complete: boolean;
  readonly failure?: { readonly reason: string; readonly message: string; readonly effect: UpdateEffect };
  /** The member refused to load the release it was sent (a failed precondition, signature, ...). */
  readonly refusal?: { readonly reason: string; readonly message: string };
  /** Who paused it and why, when paused. */
  readonly paused?: string;
  /** What it waits for now: a maintenance hold, or the first component's wait. */
  readonly waiting?: string;
  readonly estimateSeconds?: number;
}

/** A member as the fleet sees it: its last snapshot, and since when it has been unreachable if it is. */
export interface MemberObservation {
  readonly snapshot?: MemberSnapshot;
  readonly unreachableSince?: Date;
}

/** What a call to a member ended with; kept by the leader until a later call replaces it. */
export type Outcome =
  | { readonly kind: "pinned"; readonly image: string }
  | { readonly kind: "accepted"; readonly generation: number; readonly planDigest: string; readonly previews: number }
  | { readonly kind: "refused"; readonly reason: string; readonly message: string }
  | { readonly kind: "blocked"; readonly reason: string; readonly message: string }
  | { readonly kind: "paused" | "resumed" | "cancelled" }
  | { readonly kind: "cancelRefused"; readonly message: string };

export type Action =
  /** Preview the release on this member to pin its image to a digest. */
  | { readonly kind: "pin"; readonly member: string; readonly image: string }
  /** Preview, then Update bound to the previewed plan, at this generation. */
  | { readonly kind: "start"; readonly member: string; readonly generation: number; readonly image: string }
  | { readonly kind: "pause" | "resume" | "cancel"; readonly member: string };

export interface PlanInput {
  /** The rollout's metadata.generation. */
  readonly generation: number;
  readonly spec: RolloutSpec;
  readonly status: RolloutStatus | undefined;
  /** The MemberClusters of the rollout's namespace. */
  readonly candidates: readonly Candidate[];
  readonly observed: ReadonlyMap<string, MemberObservation>;
  readonly outcomes: ReadonlyMap<string, Outcome>;
  /** Members with a call still under way: nothing new is asked of them. */
  readonly inFlight: ReadonlySet<string>;
  readonly now: Date;
}

export interface PlanOutput {
  readonly status: RolloutStatus;
  readonly actions: readonly Action[];
  /** Plan again after this long even if nothing changes (a soak or a grace period ends). */
  readonly requeueAfterMs?: number;
}

const BUSY: ReadonlySet<MemberState> = new Set(["Starting", "Updating", "Paused", "Unavailable"]);
/** A plan that changed between preview and Update is previewed again this many times before the member is Blocked. */
export const MAX_PREVIEWS = 3;

export function planRollout(input: PlanInput): PlanOutput {
  const { spec, now } = input;
  const graceMs = durationMs(spec.strategy.unavailableGracePeriod);
  const wakeups: number[] = [];
  const actions: Action[] = [];
  let pinnedImage = input.status?.pinnedImage;
  const pinned = [...input.outcomes.values()].find((o) => o.kind === "pinned");
  if (!pinnedImage && pinned?.kind === "pinned") pinnedImage = pinned.image;

  // Frozen at the first plan that selects anyone, so members labelled later do not join a rollout under way.
  let records: MemberRecord[] = [...(input.status?.members ?? [])];
  if (records.length === 0) {
    const selected = input.candidates.filter((c) => matchesSelector(c.labels, spec.memberSelector));
    const stages = assignStages(spec.strategy.stages, selected);
    records = [...stages].map(([name, stage]) => ({ name, stage, state: "Pending" }));
  }

  const unreachableTooLong = (since: Date): boolean => {
    const left = since.getTime() + graceMs - now.getTime();
    if (left > 0) wakeups.push(left);
    return left <= 0;
  };

  records = records.map((record) => observe(record, input, pinnedImage, unreachableTooLong));
  // A member dispatched but not seen taking its Update (the call failed, or the leader changed) gets the same one again.
  for (const r of records) {
    const accepted = input.outcomes.get(r.name)?.kind === "accepted";
    if (r.state === "Starting" && r.generation !== undefined && pinnedImage && !spec.cancel && !accepted && !input.inFlight.has(r.name))
      actions.push({ kind: "start", member: r.name, generation: r.generation, image: pinnedImage });
  }

  // Cancel: nothing starts; members not started keep their release; those under way are asked to drop theirs.
  if (spec.cancel) {
    records = records.map((r) => (r.state === "Pending" ? { ...r, state: "Cancelled" as const, blocker: "rollout cancelled" } : r));
    for (const r of records)
      if (
        (r.state === "Starting" || r.state === "Updating" || r.state === "Paused") &&
        !input.inFlight.has(r.name) &&
        !answeredCancel(input.outcomes.get(r.name))
      )
        actions.push({ kind: "cancel", member: r.name });
  }

  // Pause: hold every member under way at its next task boundary; a resume releases only those the rollout paused.
  // A call answered is not made again while the member's stream has yet to show its effect.
  records = records.map((r) => {
    const snapshot = input.observed.get(r.name)?.snapshot;
    const answered = input.outcomes.get(r.name)?.kind;
    const idle = !input.inFlight.has(r.name);
    if (spec.paused && !spec.cancel && r.state === "Updating" && !snapshot?.paused) {
      if (idle && answered !== "paused") actions.push({ kind: "pause", member: r.name });
      return { ...r, pausedByFleet: true };
    }
    if (!spec.paused && r.pausedByFleet) {
      if (snapshot?.paused && idle && answered !== "resumed") actions.push({ kind: "resume", member: r.name });
      return snapshot?.paused ? r : { ...r, pausedByFleet: false };
    }
    return r;
  });

  const previous = new Map((input.status?.stages ?? []).map((s) => [s.name, s]));
  const maxFailures = resolveIntOrPercent(spec.strategy.maxFailures, records.length, 0);
  const failures = records.filter((r) => r.state === "Failed" || r.state === "Blocked").length;
  const halted = failures > maxFailures;
  let waitingApproval = false;
  let soaking = false;
  let currentStage: string | undefined;

  const stages: StageStatus[] = [];
  let gateOpen = true;
  for (const stage of spec.strategy.stages) {
    const before = previous.get(stage.name);
    const members = records.filter((r) => r.stage === stage.name);
    let startedAt = before?.startedAt ?? (members.some((r) => r.state !== "Pending" && r.state !== "Cancelled") ? now.toISOString() : undefined);
    const mayStart = gateOpen && !spec.cancel && !spec.paused && (!halted || startedAt !== undefined);
    const approved = !stage.pauseBefore || startedAt !== undefined || spec.approvedStages.includes(stage.name);
    if (gateOpen && !approved && !spec.cancel) waitingApproval = true;
    if (mayStart && approved && members.some((r) => r.state === "Pending")) {
      const limit = resolveIntOrPercent(
        stage.maxConcurrent ?? spec.strategy.maxConcurrent,
        stage.maxConcurrent === undefined ? records.length : members.length,
        1,
      );
      let busy = records.filter((r) => BUSY.has(r.state)).length;
      // The stage's members that cannot be called say why, whether or not a slot is free; gone past the grace
      // period, they fail.
      const callable = (r: MemberRecord): MemberSnapshot | undefined => {
        const observation = input.observed.get(r.name);
        return observation?.unreachableSince ? undefined : observation?.snapshot;
      };
      for (const [i, r] of records.entries()) {
        if (r.stage !== stage.name || r.state !== "Pending" || callable(r)) continue;
        const since = input.observed.get(r.name)?.unreachableSince;
        records[i] =
          since && unreachableTooLong(since)
            ? { ...r, state: "Failed", blocker: `unreachable since ${since.toISOString()}, past the grace period` }
            : { ...r, blocker: since ? `unreachable since ${since.toISOString()}` : "not seen yet" };
      }
      if (!pinnedImage) {
        const first = records.find((r) => r.stage === stage.name && r.state === "Pending" && callable(r));
        if (first && input.inFlight.size === 0) actions.push({ kind: "pin", member: first.name, image: spec.release.image });
      } else {
        for (const [i, r] of records.entries()) {
          if (busy >= limit) break;
          if (r.stage !== stage.name || r.state !== "Pending" || input.inFlight.has(r.name)) continue;
          const snapshot = callable(r);
          if (!snapshot) continue;
          const generation = snapshot.generation + 1;
          records[i] = { ...r, state: "Starting", generation, dispatchedAt: now.toISOString(), blocker: "" };
          actions.push({ kind: "start", member: r.name, generation, image: pinnedImage });
          startedAt ??= now.toISOString();
          busy++;
        }
      }
    }
    const staged = records.filter((r) => r.stage === stage.name);
    const done = staged.every((r) => FINAL_STATES.has(r.state));
    const completedAt = done ? (before?.completedAt ?? now.toISOString()) : undefined;
    const soakUntil = completedAt ? new Date(Date.parse(completedAt) + durationMs(stage.soak)).toISOString() : undefined;
    stages.push({ name: stage.name, ...countsOf(staged), ...(startedAt ? { startedAt } : {}), ...(completedAt ? { completedAt, soakUntil } : {}) });
    if (!done && currentStage === undefined) currentStage = stage.name;
    if (gateOpen && (!done || !approved)) gateOpen = false;
    else if (gateOpen && soakUntil && Date.parse(soakUntil) > now.getTime()) {
      const left = Date.parse(soakUntil) - now.getTime();
      wakeups.push(left);
      gateOpen = false;
      if (stage !== spec.strategy.stages.at(-1)) {
        soaking = true;
        currentStage ??= stage.name;
      }
    }
  }

  const counts = countsOf(records);
  const allFinal = records.length > 0 && records.every((r) => FINAL_STATES.has(r.state));
  const phase: RolloutPhase = spec.cancel
    ? "Cancelled"
    : records.length === 0
      ? "Pending"
      : halted
        ? "Halted"
        : allFinal && !soaking
          ? "Completed"
          : spec.paused
            ? "Paused"
            : waitingApproval
              ? "WaitingApproval"
              : soaking
                ? "Soaking"
                : "Progressing";

  const status: RolloutStatus = {
    observedGeneration: input.generation,
    phase,
    ...(pinnedImage ? { pinnedImage } : {}),
    ...(currentStage ? { currentStage } : {}),
    stageSummary: stages.map((s) => `${s.name} ${s.succeeded}/${s.total}`).join(" · "),
    counts,
    stages,
    members: records,
    conditions: conditionsOf(phase, counts, maxFailures, records.length, input),
  };
  return { status, actions, ...(wakeups.length > 0 ? { requeueAfterMs: Math.min(...wakeups) } : {}) };
}

/** A dispatched member's record brought up to date with its last snapshot and the last call's outcome. */
function observe(record: MemberRecord, input: PlanInput, pinnedImage: string | undefined, unreachableTooLong: (since: Date) => boolean): MemberRecord {
  if (FINAL_STATES.has(record.state)) return record;
  const outcome = input.outcomes.get(record.name);
  // A refused preview to pin the release fails its member before any generation was chosen.
  if (outcome?.kind === "refused" || outcome?.kind === "blocked")
    return { ...record, state: outcome.kind === "refused" ? "Failed" : "Blocked", blocker: `${outcome.reason}: ${outcome.message}` };
  if (record.generation === undefined) return record;
  if (outcome?.kind === "cancelled") return { ...record, state: "Cancelled", blocker: "rollout cancelled before it applied" };
  const accepted = outcome?.kind === "accepted" && outcome.generation === record.generation ? outcome : undefined;
  const withPlan = accepted ? { ...record, planDigest: accepted.planDigest, previews: accepted.previews } : record;

  const observation = input.observed.get(record.name);
  // Not heard of yet (a new leader whose watch is still connecting): nothing is known, so nothing changes.
  if (!observation) return withPlan;
  const since = observation.unreachableSince;
  if (since) {
    if (unreachableTooLong(since)) return { ...withPlan, state: "Failed", blocker: `unreachable since ${since.toISOString()}, past the grace period` };
    return { ...withPlan, state: "Unavailable", unreachableSince: since.toISOString(), blocker: `unreachable since ${since.toISOString()}` };
  }
  const s = observation.snapshot;
  if (!s) return withPlan;
  const { unreachableSince: _, ...reachable } = withPlan;
  const progress = { done: s.done, total: s.total, version: s.version, ...(s.estimateSeconds !== undefined ? { estimateSeconds: s.estimateSeconds } : {}) };
  if (s.generation > record.generation) {
    const succeeded = s.complete && s.image === pinnedImage;
    return {
      ...reachable,
      ...progress,
      state: succeeded ? "Succeeded" : "Failed",
      blocker: succeeded ? "" : `superseded by generation ${s.generation} from elsewhere`,
    };
  }
  if (s.generation < record.generation) return { ...reachable, state: accepted ? "Updating" : "Starting" };
  if (s.refusal) return { ...reachable, ...progress, state: "Failed", blocker: `${s.refusal.reason}: ${s.refusal.message}` };
  if (s.complete && s.image === pinnedImage) return { ...reachable, ...progress, state: "Succeeded", blocker: "" };
  if (s.failure?.effect === "Fail") return { ...reachable, ...progress, state: "Failed", blocker: `${s.failure.reason}: ${s.failure.message}` };
  if (s.paused) return { ...reachable, ...progress, state: "Paused", blocker: s.paused };
  const blocker = s.failure ? `${s.failure.reason}: ${s.failure.message}` : (s.waiting ?? "");
  return { ...reachable, ...progress, state: "Updating", blocker };
}

const answeredCancel = (outcome: Outcome | undefined): boolean => outcome?.kind === "cancelled" || outcome?.kind === "cancelRefused";

function countsOf(records: readonly MemberRecord[]): StateCounts {
  const count = (...states: MemberState[]): number => records.filter((r) => states.includes(r.state)).length;
  return {
    total: records.length,
    pending: count("Pending"),
    updating: count("Starting", "Updating", "Paused"),
    succeeded: count("Succeeded"),
    failed: count("Failed"),
    unavailable: count("Unavailable"),
    blocked: count("Blocked"),
  };
}

function conditionsOf(phase: RolloutPhase, counts: StateCounts, maxFailures: number, members: number, input: PlanInput): Condition[] {
  const before = new Map((input.status?.conditions ?? []).map((c) => [c.type, c]));
  const condition = (type: string, holds: boolean, reason: string, message: string): Condition => {
    const status = holds ? "True" : "False";
    const old = before.get(type);
    const lastTransitionTime = old?.status === status ? old.lastTransitionTime : input.now.toISOString();
    return { type, status, reason, message, lastTransitionTime, observedGeneration: input.generation };
  };
  const failures = counts.failed + counts.blocked;
  return [
    condition(
      "Progressing",
      phase === "Progressing" || phase === "Soaking",
      members === 0 ? "NoMembers" : phase,
      members === 0 ? "no MemberCluster matches spec.memberSelector" : `${counts.succeeded} of ${counts.total} members at the release`,
    ),
    condition("Completed", phase === "Completed", phase === "Completed" ? "AllMembersDone" : phase, `${counts.succeeded} succeeded, ${failures} failed`),
    condition(
      "Halted",
      phase === "Halted",
      phase === "Halted" ? "FailureBudgetExceeded" : "WithinBudget",
      `${failures} failed or blocked; the budget allows ${maxFailures}`,
    ),
    condition("Paused", phase === "Paused", phase === "Paused" ? "PausedBySpec" : "NotPaused", phase === "Paused" ? "spec.paused is true" : ""),
  ];
}
