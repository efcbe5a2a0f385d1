import {
  byNumberAndComponent,
  createRng,
  flattenByNumberAndComponent,
  parseRunLevel,
  permuteOrder,
  runGraph,
  shiftOrder,
  splitOnJobs,
  Task,
  TaskGraph,
  type Backoff,
} from "../graph/index.js";
import { exclusionReason } from "../payload/include.js";
import type { PayloadUpdate } from "../payload/manifest.js";
import { UpdateError, NO_TRACING, abortReason, type SpanAttributes, isClusterOperator } from "../core/index.js";
import { capabilitiesStatus, overrideFor } from "../policy/index.js";
import { ComponentTracker } from "./components.js";
import { ConsistentReporter, type StatusWrapper } from "./reporter.js";
import { AggregateUpdateErrors, summarizeTaskGraphErrors } from "./summarize.js";
import { runTask, type TaskRunDeps } from "./task-run.js";
import type { MetricsSink, SyncWork } from "./types.js";

export interface ApplyDeps extends TaskRunDeps {
  readonly backoff: Backoff;
  /** The shorter schedule of an install, used instead of `backoff` when that allows more than one step. */
  readonly installBackoff: Backoff;
  readonly architecture: string;
  readonly metrics: MetricsSink;
  /** Told when a new attempt sequence starts (attempt 0). */
  readonly attemptsRestarted: () => void;
  /**
   * The pass's position: indices of the tasks applied. Tasks already in it are skipped (a pass resumed after a
   * pause that outlived the previous pass); each task applied is added.
   */
  readonly position: Set<number>;
  /** A manifest was applied (what an update's progress deadline waits for). */
  readonly applied?: () => void;
  /** The pass is about to write to the cluster (a precreation or a task's first attempt): its release's apply started. */
  readonly writing?: () => void;
}

const RECONCILE_STRIDE = 8;

/**
 * Applies the payload once (CVO `SyncWorker.apply`): builds the task graph for the work's state, runs
 * it, and reports progress through `reporter`. Throws the summarized failure; cancellation through
 * `signal` stops new manifests from starting.
 */
export async function applyPayload(
  payload: PayloadUpdate,
  work: SyncWork,
  maxWorkers: number,
  reporter: StatusWrapper,
  deps: ApplyDeps,
  signal: AbortSignal,
): Promise<void> {
  if (work.attempt === 0) deps.attemptsRestarted();
  const total = payload.manifests.length;
  let backoff = deps.backoff;
  if (backoff.steps === 0) throw new Error("SyncWorker requires at least one backoff step to apply any manifests");
  if (backoff.steps > 1 && work.state === "Initializing") backoff = deps.installBackoff;
  const tasks = payload.manifests.map((manifest, i) => new Task(i + 1, total, manifest, backoff));
  const components = new ComponentTracker(
    tasks,
    reporter.previous.components,
    () => deps.clock.now(),
    (task) => deps.position.has(task.index),
  );
  const progress = new ConsistentReporter(
    {
      ...reporter.previous,
      failure: undefined,
      lastProgress: undefined,
      generation: work.generation,
      initial: work.state === "Initializing",
      reconciling: work.state === "Reconciling",
      versionHash: payload.manifestHash,
      architecture: deps.architecture,
      actual: payload.release,
      verified: payload.verifiedImage,
      completed: 0,
    },
    total,
    work.completed,
    reporter,
    (done, all) => deps.metrics.payloadProgress(payload.release.version, all - done, done),
    components,
    deps.position.size,
  );

  const pass = passGraph(tasks, work, maxWorkers);
  const { graph, precreate } = pass;
  maxWorkers = pass.maxWorkers;

  const caps = { capabilities: capabilitiesStatus(work.capabilities) };
  const skip = (task: Task): boolean => overrideFor(work.overrides, task.manifest)?.unmanaged === true || exclusionReason(task.manifest, caps) !== undefined;
  const applied = (task: Task): boolean => deps.position.has(task.index);
  const reportEffectErrors: Error[] = [];
  const taskDeps = {
    ...deps,
    onAttemptFailed: () => deps.metrics.payloadError(payload.release.version),
    onRetry: (task: Task) => {
      components.retried(task);
      deps.metrics.taskRetry(task.manifest.gvk.kind);
    },
    onTaskDone: (task: Task, result: "applied" | "failed" | "cancelled", seconds: number) => deps.metrics.taskDone(task.manifest.gvk.kind, result, seconds),
  };
  const tracing = deps.tracing ?? NO_TRACING;

  const errs = await runGraph(
    graph,
    maxWorkers,
    (nodeTasks, nodeSignal) =>
      tracing.enabled ? tracing.span(nodeSpanName(nodeTasks), nodeAttributes(nodeTasks), () => runNode(nodeTasks, nodeSignal)) : runNode(nodeTasks, nodeSignal),
    signal,
  );
  async function runNode(nodeTasks: readonly Task[], nodeSignal: AbortSignal): Promise<void> {
    if (precreate) {
      for (const task of nodeTasks) {
        if (!isClusterOperator(task.manifest.gvk) || skip(task) || applied(task)) continue;
        await deps.gate?.wait(nodeSignal);
        if (nodeSignal.aborted) throw progress.contextError(abortReason(nodeSignal));
        deps.writing?.();
        // Precreation only makes the operator visible early; failures are retried by the real apply.
        await deps.applier.apply(task.manifest, "Precreating", nodeSignal).catch(() => undefined);
      }
    }
    for (const task of nodeTasks) {
      if (nodeSignal.aborted) throw progress.contextError(abortReason(nodeSignal));
      if (applied(task)) continue; // counted from the start (alreadyDone)
      const skipped = skip(task);
      if (skipped) components.skipped(task);
      else components.started(task);
      progress.update();
      if (skipped) continue;
      // A pause holds the task before it starts; the update above showed the progress it stopped at.
      await deps.gate?.wait(nodeSignal);
      if (nodeSignal.aborted) throw progress.contextError(abortReason(nodeSignal));
      deps.writing?.();
      try {
        await runTask(task, work.state, taskDeps, nodeSignal);
        deps.position.add(task.index);
        deps.applied?.();
      } catch (err) {
        // A superseded or timed-out pass is not a failure of the manifest: report it as cancellation.
        if (nodeSignal.aborted) throw progress.contextError(abortReason(nodeSignal));
        if (!(err instanceof UpdateError && err.effect === "Report")) {
          components.failed(task, err);
          throw err;
        }
        reportEffectErrors.push(err);
      }
      components.applied(task);
      progress.inc();
      // Paused, no later task reports: show the progress of the attempts that finished after the pause.
      if (deps.gate?.status) progress.update();
    }
  }
  const [firstError] = errs ?? [];
  if (errs && firstError) {
    const summary = summarizeTaskGraphErrors(errs);
    progress.errors(summary);
    // Only cancellations: nothing to show users, but the pass still did not complete.
    throw summary ?? firstError;
  }
  progress.complete();
  if (reportEffectErrors.length > 0) throw new AggregateUpdateErrors(reportEffectErrors);
}

/** `node <run level> <component>` after the node's first task, so run levels read at a glance in a trace. */
function nodeSpanName(tasks: readonly Task[]): string {
  const first = tasks[0];
  const level = first ? parseRunLevel(first.manifest.originalFilename) : null;
  return level ? `node ${level.number} ${level.component}` : "node";
}

function nodeAttributes(tasks: readonly Task[]): SpanAttributes {
  const first = tasks[0];
  const level = first ? parseRunLevel(first.manifest.originalFilename) : null;
  return {
    "syncworker.node.tasks": tasks.length,
    "syncworker.node.first_index": first?.index,
    "syncworker.task.run_level": level?.number,
    "syncworker.task.component": level?.component,
  };
}

/**
 * The task graph of a pass in `work.state` (CVO `SyncWorker.apply`): split on Jobs, then ordered by run level and
 * component; how many nodes run at once; whether ClusterOperators are precreated first. Exported for bench apply's
 * ordered raw contender, which must run the same graph.
 */
export function passGraph(
  tasks: readonly Task[],
  work: Pick<SyncWork, "state" | "attempt">,
  maxWorkers: number,
): { graph: TaskGraph; maxWorkers: number; precreate: boolean } {
  const graph = new TaskGraph(tasks);
  graph.split(splitOnJobs);
  switch (work.state) {
    case "Initializing":
      graph.parallelize(flattenByNumberAndComponent);
      return { graph, maxWorkers: graph.nodes.length, precreate: true };
    case "Reconciling": {
      // Same shuffle for 8 attempts in a row, rotated further each time, so repeated failures
      // still cover the whole payload in a reproducible order.
      const epoch = Math.floor(work.attempt / RECONCILE_STRIDE);
      const step = work.attempt % RECONCILE_STRIDE;
      graph.parallelize(shiftOrder(permuteOrder(flattenByNumberAndComponent, createRng(epoch)), step, RECONCILE_STRIDE));
      return { graph, maxWorkers: 2, precreate: false };
    }
    default:
      graph.parallelize(byNumberAndComponent);
      return { graph, maxWorkers, precreate: true };
  }
}
