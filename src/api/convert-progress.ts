import type { Duration } from "../gen/google/protobuf/duration.js";
import * as pb from "../gen/syncworker/v1/syncworker.js";
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
 * The components of a snapshot, each marked slow when the service found it so. Compact where nothing
 * is going on, since every watcher gets every component in every snapshot: a pending one carries only
 * its size, a done one its count and when it finished; the details are for components in progress.
 */
export function toProtoComponents(components: readonly ComponentProgress[], progress: UpdateProgress | undefined): pb.ComponentProgress[] {
  const slow = new Set(progress?.slow ?? []);
  return components.map((c) => {
    const common = { runLevel: c.runLevel, component: c.component, state: COMPONENT_STATES[c.state], done: c.done, total: c.total };
    if (c.state === "Pending") return { ...NONE, ...common };
    if (c.state === "Done") return { ...NONE, ...common, finishedAt: c.finishedAt };
    return {
      ...common,
      currentObject: c.currentObject,
      waitReason: c.waitReason,
      waitingSince: c.waitingSince,
      attempts: c.attempts,
      startedAt: c.startedAt,
      finishedAt: c.finishedAt,
      slow: slow.has(componentKey(c)),
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
