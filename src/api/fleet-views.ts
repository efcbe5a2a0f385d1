/**
 * What one rollout looks like to a watcher, and how it changes: the rollout's view from the hub, each member's view
 * merged from the rollout's status and the member's own last snapshot. Shared by FleetWatch (gRPC) and the fleet page
 * (Server-Sent Events), so both say the same.
 */
import * as fleetpb from "@syncworker/client/gen/syncworker/v1/fleet";
import type { SyncWorkerStatus } from "@syncworker/client";
import { toDuration } from "./convert-progress.js";
import { MEMBER_STATES, stableJson, type MemberRecord, type MemberSnapshot, type RolloutObject } from "../fleet/index.js";

/** What the stream is made of: the hub's rollouts and the members' latest snapshots, and word when either changes. */
export interface FleetSource {
  /** The rollouts of a namespace, for a list to pick from. */
  rollouts(namespace: string): readonly RolloutObject[];
  rollout(namespace: string, name: string): RolloutObject | undefined;
  member(name: string): { readonly snapshot?: MemberSnapshot; readonly status?: SyncWorkerStatus; readonly lastSeen?: Date } | undefined;
  /** Calls `changed` whenever a rollout or a member changes, until the returned function is called. */
  subscribe(changed: () => void): () => void;
}

/** Where a follower writes: `blocked` while the reader has not taken what was written (the rest waits for `drained`). */
export interface ViewSink {
  write(event: fleetpb.FleetWatchResponse): void;
  blocked(): boolean;
}

export interface FollowOptions {
  readonly namespace: string;
  readonly name: string;
  /** Per member, the revision the reader already has (a resume): not sent again unless its view changed meanwhile. */
  readonly cursors: ReadonlyMap<string, number>;
  /** Also carry each member's full SyncWorkerStatus. */
  readonly fullStatus: boolean;
}

/**
 * Follows one rollout for one reader: the rollout's view, each member whose view the reader does not have, `synced`;
 * then on every change the views that changed. What was last sent is remembered per member, so a change is sent once
 * and a slow reader gets the latest views once it drains, never a backlog. `gone` is called when the rollout is deleted.
 */
export function followRollout(source: FleetSource, o: FollowOptions, sink: ViewSink, gone: () => void): { stop(): void; drained(): void } {
  const sent = new Map<string, string>();
  let sentRollout = "";
  let writing = false;
  let again = false;
  let first = true;
  let stopped = false;
  const flush = (): void => {
    if (writing) {
      again = true;
      return;
    }
    writing = true;
    try {
      do {
        again = false;
        const rollout = source.rollout(o.namespace, o.name);
        if (!rollout) {
          stopped = true;
          unsubscribe();
          return gone();
        }
        const view = rolloutView(rollout);
        const viewJson = stableJson(view);
        const sendRollout = (): void => {
          if (viewJson === sentRollout) return;
          sentRollout = viewJson;
          sink.write({ rollout: view });
        };
        // The first burst leads with the rollout; later, members come first, so a reader that stops once the
        // rollout is done has seen every member's last view.
        if (first) sendRollout();
        for (const record of rollout.status?.members ?? []) {
          const member = memberView(record, source.member(record.name), o.fullStatus);
          const json = stableJson({ ...member, lastSeen: undefined });
          if (sent.get(record.name) === json) continue;
          // Resuming: a member the reader has at this revision is not sent again, unless the hub's own observation
          // changed its view since (unavailable: the member cannot say so itself).
          const known = first && o.cursors.get(record.name) === member.revision && member.revision > 0 && !o.fullStatus && record.state !== "Unavailable";
          sent.set(record.name, json);
          if (!known) sink.write({ member });
        }
        if (first) {
          first = false;
          sink.write({ synced: {} });
        } else sendRollout();
      } while (again && !stopped);
    } finally {
      writing = false;
    }
  };
  const unsubscribe = source.subscribe(() => {
    // A reader that does not keep up gets the latest views once it drains, not every one in between.
    if (sink.blocked()) again = true;
    else flush();
  });
  flush();
  return {
    stop: () => {
      stopped = true;
      unsubscribe();
    },
    drained: () => {
      if (again && !stopped) flush();
    },
  };
}

const STATE_OF = new Map<string, fleetpb.MemberState>(
  MEMBER_STATES.map((s) => [s, fleetpb.MemberState[`MEMBER_STATE_${s.toUpperCase()}` as keyof typeof fleetpb.MemberState]]),
);

const at = (text: string | undefined): Date | undefined => (text ? new Date(text) : undefined);

export function rolloutView(rollout: RolloutObject): fleetpb.RolloutView {
  const s = rollout.status;
  const spec = rollout.spec as { release?: { version?: string } } | undefined;
  return {
    name: rollout.name,
    observedGeneration: s?.observedGeneration ?? 0,
    phase: s?.phase ?? "",
    currentStage: s?.currentStage ?? "",
    stages: (s?.stages ?? []).map(({ name, startedAt, completedAt, soakUntil, ...counts }) => ({
      name,
      counts,
      startedAt: at(startedAt),
      completedAt: at(completedAt),
      soakUntil: at(soakUntil),
    })),
    counts: s?.counts,
    conditions: (s?.conditions ?? []).map((c) => ({
      type: c.type,
      status: c.status,
      reason: c.reason,
      message: c.message,
      lastTransitionTime: at(c.lastTransitionTime),
    })),
    pinnedImage: s?.pinnedImage ?? "",
    releaseVersion: spec?.release?.version ?? "",
    stageSummary: s?.stageSummary ?? "",
  };
}

export function memberView(
  record: MemberRecord,
  member: { readonly snapshot?: MemberSnapshot; readonly status?: SyncWorkerStatus; readonly lastSeen?: Date } | undefined,
  fullStatus: boolean,
): fleetpb.MemberView {
  const snapshot = member?.snapshot;
  const estimate = record.estimateSeconds ?? snapshot?.estimateSeconds;
  return {
    member: record.name,
    stage: record.stage,
    state: STATE_OF.get(record.state) ?? fleetpb.MemberState.MEMBER_STATE_UNSPECIFIED,
    revision: snapshot?.revision ?? 0,
    generation: record.generation ?? 0,
    done: snapshot?.done ?? record.done ?? 0,
    total: snapshot?.total ?? record.total ?? 0,
    version: snapshot?.version ?? record.version ?? "",
    blocker: record.blocker ?? "",
    estimatedRemaining: estimate !== undefined ? toDuration(estimate * 1000) : undefined,
    lastSeen: member?.lastSeen,
    status: fullStatus ? member?.status : undefined,
  };
}
