import { componentKey, type ComponentProgress, type SyncWorkerStatus } from "../worker/index.js";
import { isSlowOperator } from "./conditions.js";
import type { HistoryEntry } from "./history.js";

import type { ComponentDurations, Estimate, UpdateProgress } from "./shapes.js";

export type { ComponentDurations, Estimate, UpdateProgress, UpdateTiming } from "./shapes.js";

export const NO_DURATIONS: ComponentDurations = { updates: 0, byComponent: {} };

/** Durations kept per component: recent updates say more about the next one than old ones. */
export const KEEP_DURATIONS = 5;

/** Adds one completed update's durations (per component key, in ms). */
export function learnDurations(known: ComponentDurations, observed: ReadonlyMap<string, number>): ComponentDurations {
  const byComponent: Record<string, readonly number[]> = { ...known.byComponent };
  for (const [key, ms] of observed) byComponent[key] = [...(byComponent[key] ?? []), ms].slice(-KEEP_DURATIONS);
  return { updates: known.updates + 1, byComponent };
}

/** Where a component of the running update stands, as far as the estimate cares. */
export interface ComponentTimes {
  readonly key: string;
  readonly runLevel: number;
  /** When it first started in this update, if it has. */
  readonly startedAt?: Date;
  /** It was done once in this update: a later pass re-applying it is quick. */
  readonly finished: boolean;
}

const mean = (values: readonly number[]): number => values.reduce((a, b) => a + b, 0) / values.length;

/**
 * The time left. An update applies consecutive components of one run level side by side and such
 * stages one after another (the update graph), so it is the sum over stages of the longest expected
 * rest of a component, where a component's expected duration is its mean over the previous updates
 * minus the time it already ran. `components` come in graph order. Undefined without a basis: no
 * unfinished component was ever timed.
 */
export function estimateRemaining(components: readonly ComponentTimes[], known: ComponentDurations, now: Date): Estimate | undefined {
  let remainingMs = 0;
  let stage: { runLevel: number; longest: number } | undefined;
  let timed = 0;
  for (const c of components) {
    if (stage?.runLevel !== c.runLevel) {
      remainingMs += stage?.longest ?? 0;
      stage = { runLevel: c.runLevel, longest: 0 };
    }
    const history = known.byComponent[c.key];
    if (c.finished || !history || history.length === 0) continue;
    timed++;
    const ran = c.startedAt ? now.getTime() - c.startedAt.getTime() : 0;
    stage.longest = Math.max(stage.longest, mean(history) - ran);
  }
  if (timed === 0) return undefined;
  remainingMs += stage?.longest ?? 0;
  return { remainingMs, basis: `from ${known.updates} previous update${known.updates === 1 ? "" : "s"}` };
}

/**
 * Components waiting on a ClusterOperator still updating its versions past the CVO's slow threshold,
 * by the same rule that makes Failing Unknown with SlowClusterOperator.
 */
export function slowComponents(components: readonly ComponentProgress[], now: Date, operatorStartedAt: (name: string) => Date | undefined): string[] {
  return components
    .filter((c) => c.state === "Waiting" && c.waitReason === "ClusterOperatorUpdating" && c.currentObject.startsWith("clusteroperator/"))
    .filter((c) => {
      const name = c.currentObject.slice("clusteroperator/".length);
      return isSlowOperator(name, operatorStartedAt(name), now);
    })
    .map(componentKey);
}

/**
 * Follows the update the history's newest entry stands for: when each component first started and
 * first finished in it, and, once it completed, learns their durations. Pure; time comes from `now`.
 */
export class UpdateTimingTracker {
  #update = "";
  readonly #started = new Map<string, Date>();
  readonly #finished = new Map<string, Date>();
  #learned = false;

  constructor(
    private durations: ComponentDurations,
    private readonly now: () => Date,
    private readonly operatorStartedAt: (name: string) => Date | undefined,
  ) {}

  /** What has been learned so far, to be saved. */
  get learned(): ComponentDurations {
    return this.durations;
  }

  /** Timing and slow components for a worker status; `history` is the one derived from it (newest first). */
  observe(ws: SyncWorkerStatus, history: readonly HistoryEntry[]): UpdateProgress {
    const now = this.now();
    const slow = slowComponents(ws.components, now, this.operatorStartedAt);
    const entry = history[0];
    if (!entry || entry.image !== ws.actual.image) return { slow };
    const update = `${entry.image}@${entry.startedTime.toISOString()}`;
    if (update !== this.#update) {
      this.#update = update;
      this.#started.clear();
      this.#finished.clear();
      // An update this process only sees completed (a restart) has nothing to teach.
      this.#learned = entry.completionTime !== undefined;
    }
    for (const c of ws.components) {
      const key = componentKey(c);
      if (c.startedAt && !this.#started.has(key)) this.#started.set(key, c.startedAt);
      if (c.state === "Done" && c.finishedAt && !this.#finished.has(key)) this.#finished.set(key, c.finishedAt);
    }
    const startedAt = entry.startedTime;
    if (entry.completionTime) {
      if (!this.#learned) this.#learn();
      return { slow, timing: { startedAt, elapsedMs: entry.completionTime.getTime() - startedAt.getTime() } };
    }
    const times = ws.components.map((c): ComponentTimes => {
      const key = componentKey(c);
      const first = this.#started.get(key);
      return { key, runLevel: c.runLevel, finished: this.#finished.has(key), ...(first ? { startedAt: first } : {}) };
    });
    const estimate = estimateRemaining(times, this.durations, now);
    return { slow, timing: { startedAt, elapsedMs: now.getTime() - startedAt.getTime(), ...(estimate ? { estimate } : {}) } };
  }

  #learn(): void {
    this.#learned = true;
    const observed = new Map<string, number>();
    for (const [key, finished] of this.#finished) {
      const started = this.#started.get(key);
      if (started) observed.set(key, Math.max(0, finished.getTime() - started.getTime()));
    }
    if (observed.size > 0) this.durations = learnDurations(this.durations, observed);
  }
}
