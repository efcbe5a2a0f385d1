import { parseRunLevel, type Task } from "../graph/index.js";
import { UpdateError } from "../core/index.js";

import type { ComponentProgress, ComponentState } from "./shapes.js";

export { COMPONENT_STATES, type ComponentProgress, type ComponentState } from "./shapes.js";

/**
 * Readiness verdicts that mean "not ready yet" (src/readiness): the component waits on an operator or a
 * workload. Every other error of a task is a failure.
 */
const WAIT_REASONS: ReadonlySet<string> = new Set([
  "ClusterOperatorNotAvailable",
  "ClusterOperatorDegraded",
  "ClusterOperatorUpdating",
  "WorkloadNotAvailable",
  "HealthRuleInProgress",
]);

const RANK: Readonly<Record<ComponentState, number>> = { Pending: 0, Applying: 1, Waiting: 2, Failed: 2, Done: 3 };

/** Manifests without a `0000_<level>_<component>_` file name are grouped under this name. */
export const UNLABELED_COMPONENT = "unlabeled";

/** `runLevel/component`: a component's identity across passes and updates. */
export function componentKey(c: { readonly runLevel: number; readonly component: string }): string {
  return `${c.runLevel}/${c.component}`;
}

function componentOf(task: Task): { runLevel: number; component: string } {
  const level = parseRunLevel(task.manifest.originalFilename);
  return level ? { runLevel: Number.parseInt(level.number, 10), component: level.component } : { runLevel: 0, component: UNLABELED_COMPONENT };
}

/** `kind/name` or `kind/namespace/name`, lower-case kind as `oc` prints it. */
export function objectName(task: Task): string {
  const meta = task.manifest.obj.metadata;
  const name = meta?.name || task.manifest.originalFilename;
  return `${task.manifest.gvk.kind.toLowerCase()}/${meta?.namespace ? `${meta.namespace}/` : ""}${name}`;
}

interface Entry {
  progress: ComponentProgress;
  /** Manifests done or skipped; the component is Done when this reaches its total. */
  processed: number;
}

/**
 * Follows every component through one pass (pure: time comes from `now`). Built from the pass's tasks
 * in payload order, so components come in graph order; `previous` is the status the pass started from,
 * whose waits carry on when a component stops on the same object again; `alreadyApplied` tasks (a pass
 * resumed after a pause) count as done from the start.
 */
export class ComponentTracker {
  readonly #entries = new Map<string, Entry>();
  readonly #previous: ReadonlyMap<string, ComponentProgress>;
  #view: readonly ComponentProgress[] | undefined;

  constructor(
    tasks: readonly Task[],
    previous: readonly ComponentProgress[],
    private readonly now: () => Date,
    alreadyApplied: (task: Task) => boolean = () => false,
  ) {
    this.#previous = new Map(previous.map((c) => [componentKey(c), c]));
    for (const task of tasks) {
      const id = componentOf(task);
      const key = componentKey(id);
      const entry = this.#entries.get(key);
      if (entry) entry.progress = { ...entry.progress, total: entry.progress.total + 1 };
      else this.#entries.set(key, { processed: 0, progress: { ...id, state: "Pending", done: 0, total: 1, currentObject: "", waitReason: "", attempts: 0 } });
    }
    for (const task of tasks) if (alreadyApplied(task)) this.applied(task);
  }

  /** The components now, in graph order; the same array until something changes. */
  components(): readonly ComponentProgress[] {
    this.#view ??= [...this.#entries.values()].map((e) => e.progress);
    return this.#view;
  }

  /** A task of the component starts its first attempt. */
  started(task: Task): void {
    this.#change(task, (p, entry) => {
      const object = objectName(task);
      // An object the component stopped on in the pass before keeps its count and its wait.
      const before = this.#previous.get(componentKey(p));
      const carried = before && before.state !== "Done" && before.currentObject === object ? before : undefined;
      const attempts = object === p.currentObject ? p.attempts : (carried?.attempts ?? 0);
      entry.progress = {
        ...withoutWait(p),
        state: "Applying",
        currentObject: object,
        attempts: attempts + 1,
        startedAt: p.startedAt ?? this.now(),
        ...(carried?.waitingSince ? { waitingSince: carried.waitingSince } : {}),
      };
    });
  }

  /** A task is retried after a backoff. */
  retried(task: Task): void {
    this.#change(task, (p, entry) => (entry.progress = { ...p, attempts: p.attempts + 1 }));
  }

  /** A task is skipped (unmanaged or excluded): it counts towards finishing, not towards `done`. */
  skipped(task: Task): void {
    this.#change(task, (p, entry) => this.#processed(entry, p));
  }

  /** A task is applied (or failed with an error only reported): it counts towards `done`. */
  applied(task: Task): void {
    this.#change(task, (p, entry) => this.#processed(entry, { ...p, done: p.done + 1 }));
  }

  /** A task failed and ended its node: the component waits when readiness said "not yet", else it failed. */
  failed(task: Task, err: unknown): void {
    this.#change(task, (p, entry) => {
      const reason = err instanceof UpdateError && WAIT_REASONS.has(err.reason) ? err.reason : "";
      const waiting = reason ? { waitReason: reason, waitingSince: p.waitingSince ?? this.now() } : {};
      entry.progress = { ...withoutWait(p), state: reason ? "Waiting" : "Failed", currentObject: objectName(task), ...waiting };
    });
  }

  #processed(entry: Entry, p: ComponentProgress): void {
    entry.processed++;
    const finished = entry.processed >= p.total;
    entry.progress = finished ? { ...withoutWait(p), state: "Done", currentObject: "", startedAt: p.startedAt ?? this.now(), finishedAt: this.now() } : p;
  }

  /** Applies `fn` unless the component already moved past it in this pass (states only move forward). */
  #change(task: Task, fn: (p: ComponentProgress, entry: Entry) => void): void {
    const entry = this.#entries.get(componentKey(componentOf(task)));
    if (!entry) return;
    const before = entry.progress;
    fn(before, entry);
    if (RANK[entry.progress.state] < RANK[before.state]) entry.progress = before;
    if (entry.progress !== before) this.#view = undefined;
  }
}

function withoutWait(p: ComponentProgress): ComponentProgress {
  const { waitingSince: _since, ...rest } = p;
  return { ...rest, waitReason: "" };
}
