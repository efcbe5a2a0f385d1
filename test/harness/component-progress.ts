/** Invariants of the per-component progress over a sequence of snapshots, shared by the embedded and real-cluster tests. */
import assert from "node:assert/strict";
import { ComponentState, type ComponentProgress, type SyncWorkerStatus } from "@syncworker/client";

const RANK: Readonly<Record<number, number>> = {
  [ComponentState.COMPONENT_STATE_PENDING]: 0,
  [ComponentState.COMPONENT_STATE_APPLYING]: 1,
  [ComponentState.COMPONENT_STATE_WAITING]: 2,
  [ComponentState.COMPONENT_STATE_FAILED]: 2,
  [ComponentState.COMPONENT_STATE_DONE]: 3,
};

const key = (c: ComponentProgress): string => `${c.runLevel}/${c.component}`;

/** One component seen waiting, in one snapshot. */
export interface SeenWait {
  readonly component: string;
  readonly object: string;
  readonly reason: string;
  readonly since: number;
  /** How long it had waited when the snapshot was published. */
  readonly waitedMs: number;
}

/**
 * Checks every snapshot of one release that lists components: each component once, their done summing to the
 * snapshot's done, and no component's state moving back unless a new pass began (the snapshot before ended a pass:
 * it carried a failure or completed). Returns every wait seen, in order.
 */
export function checkComponentProgress(statuses: readonly SyncWorkerStatus[]): SeenWait[] {
  const waits: SeenWait[] = [];
  let previous: SyncWorkerStatus | undefined;
  for (const s of statuses.filter((st) => st.components.length > 0)) {
    const keys = s.components.map(key);
    assert.equal(new Set(keys).size, keys.length, `each component once (revision ${s.revision}): ${keys.join(", ")}`);
    assert.equal(
      s.components.reduce((sum, c) => sum + c.done, 0),
      s.done,
      `done sums to the snapshot's done (revision ${s.revision})`,
    );
    const passEnded =
      previous !== undefined && (previous.failure !== undefined || previous.completed !== s.completed || previous.actual?.image !== s.actual?.image);
    if (previous && !passEnded) {
      const before = new Map(previous.components.map((c) => [key(c), c]));
      for (const c of s.components) {
        const was = before.get(key(c));
        if (was)
          assert.ok(
            RANK[c.state]! >= RANK[was.state]!,
            `${key(c)} went from ${ComponentState[was.state]} back to ${ComponentState[c.state]} within a pass (revision ${s.revision})`,
          );
      }
    }
    for (const c of s.components.filter((cc) => cc.state === ComponentState.COMPONENT_STATE_WAITING)) {
      assert.ok(c.waitReason && c.currentObject && c.waitingSince, `a waiting component says on what, why and since when: ${JSON.stringify(c)}`);
      waits.push({
        component: key(c),
        object: c.currentObject,
        reason: c.waitReason,
        since: c.waitingSince.getTime(),
        waitedMs: s.publishedAt!.getTime() - c.waitingSince.getTime(),
      });
    }
    previous = s;
  }
  return waits;
}

/** The waits on `object` (e.g. `clusteroperator/ingress`) seen in at least two snapshots, one wait growing longer. */
export function assertGrowingWait(waits: readonly SeenWait[], object: string, reason: RegExp): void {
  const on = waits.filter((w) => w.object === object);
  assert.ok(on.length >= 2, `${object} was seen waiting in two snapshots at least: ${JSON.stringify(waits)}`);
  assert.match(on[0]!.reason, reason);
  const first = on[0]!;
  const later = on.find((w) => w.since === first.since && w.waitedMs > first.waitedMs);
  assert.ok(later, `one wait on ${object} (same start) grows longer across snapshots: ${JSON.stringify(on)}`);
}
