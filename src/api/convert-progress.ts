import type { Duration } from "@syncworker/client/gen/google/protobuf/duration";
import * as pb from "@syncworker/client/gen/syncworker/v1/syncworker";
import type { UpdateProgress } from "../status/index.js";
import { componentKey, type ComponentProgress, type ComponentState } from "../worker/index.js";

const COMPONENT_STATES: Record<ComponentState, pb.ComponentState> = {
  Pending: pb.ComponentState.COMPONENT_STATE_PENDING,
  Applying: pb.ComponentState.COMPONENT_STATE_APPLYING,
  Waiting: pb.ComponentState.COMPONENT_STATE_WAITING,
  Done: pb.ComponentState.COMPONENT_STATE_DONE,
  Failed: pb.ComponentState.COMPONENT_STATE_FAILED,
};

/** A google.protobuf.Duration of `ms` milliseconds. */
export function toDuration(ms: number): Duration {
  const whole = Math.max(0, Math.round(ms));
  return { seconds: Math.floor(whole / 1000), nanos: (whole % 1000) * 1_000_000 };
}

const NONE = { currentObject: "", waitReason: "", waitingSince: undefined, attempts: 0, startedAt: undefined, finishedAt: undefined, slow: false };

/**
 * Components applying that carry their details in one snapshot at most: an install applies every component at
 * once, and the details of dozens of them would make each snapshot to every watcher several times its size.
 * Waiting and failed ones always carry theirs: they are what a person looks for.
 */
export const MAX_DETAILED_APPLYING = 8;

function detailed(components: readonly ComponentProgress[]): ReadonlySet<ComponentProgress> {
  const applying = components.filter((c) => c.state === "Applying").slice(0, MAX_DETAILED_APPLYING);
  return new Set([...components.filter((c) => c.state === "Waiting" || c.state === "Failed"), ...applying]);
}

/**
 * The components of a snapshot, each marked slow when the service found it so. Compact where nothing is going
 * on, since every watcher gets every component in every snapshot: a pending one carries only its size, a done one
 * its count and when it finished, one applying its details only among the first {@link MAX_DETAILED_APPLYING}.
 */
export function toProtoComponents(components: readonly ComponentProgress[], progress: UpdateProgress | undefined): pb.ComponentProgress[] {
  const slow = new Set(progress?.slow ?? []);
  const details = detailed(components);
  return components.map((c) => {
    const common = {
      runLevel: c.runLevel,
      component: c.component,
      state: COMPONENT_STATES[c.state],
      done: c.done,
      total: c.total,
      slow: slow.has(componentKey(c)),
    };
    if (c.state === "Done") return { ...NONE, ...common, finishedAt: c.finishedAt };
    if (!details.has(c)) return { ...NONE, ...common };
    return {
      ...common,
      currentObject: c.currentObject,
      waitReason: c.waitReason,
      waitingSince: c.waitingSince,
      attempts: c.attempts,
      startedAt: c.startedAt,
      finishedAt: c.finishedAt,
    };
  });
}

/** The update's timing; absent before any update. */
export function toProtoTiming(progress: UpdateProgress | undefined): pb.UpdateTiming | undefined {
  const timing = progress?.timing;
  if (!timing) return undefined;
  return {
    startedAt: timing.startedAt,
    elapsed: toDuration(timing.elapsedMs),
    estimatedRemaining: timing.estimate ? toDuration(timing.estimate.remainingMs) : undefined,
    estimateBasis: timing.estimate?.basis ?? "",
  };
}
