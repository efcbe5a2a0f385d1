import { parseRunLevel, type Task } from "../graph/index.js";
import type { Manifest, PayloadUpdate } from "../payload/manifest.js";
import { UpdateError, NO_SPAN, abortReason, NO_TRACING, type Clock, type Random, type SpanAttributes, type Tracing, type WorkerSpan } from "../core/index.js";
import type { PauseGate } from "./pause.js";
import type { PayloadState, TaskResult } from "./types.js";

/**
 * The seam between the worker and a cluster (CVO `payload.ResourceBuilder`). Implementations throw
 * an UpdateError for a verdict that must not be retried (readiness), or any other error, which is
 * retried with the task's backoff. Errors from a Kubernetes API carry its Status `reason`
 * (`NotFound`, `Conflict`, …) in `statusReason` so the worker can classify them.
 */
export interface ResourceApplier {
  apply(manifest: Manifest, mode: PayloadState, signal: AbortSignal): Promise<void>;
  /**
   * The applier for `payload`'s manifests, with what the payload brings of its own (its health rules); the same
   * object for the same payload. Called once when the payload is loaded, where a throw (a PayloadError) refuses it
   * at LoadPayload, and at each pass. Absent: this applier serves every payload.
   */
  forPayload?(payload: PayloadUpdate): ResourceApplier;
}

export interface TaskRunDeps {
  readonly applier: ResourceApplier;
  /** Counts failed attempts (`cluster_operator_payload_errors`), labelled with the payload version. */
  readonly onAttemptFailed?: () => void;
  /** A retry of the task starts (its second attempt or later). */
  readonly onRetry?: (task: Task) => void;
  /** The task ended; `seconds` covers every attempt and sleep. */
  readonly onTaskDone?: (task: Task, result: TaskResult, seconds: number) => void;
  readonly clock: Clock;
  readonly random: Random;
  /** One span per task; none when absent. */
  readonly tracing?: Tracing;
  /** Each attempt waits here while the worker is paused: a pause lets the running attempt finish, not the retries. */
  readonly gate?: PauseGate;
}

const CLASSES: ReadonlyArray<readonly [readonly string[], string, string]> = [
  [["NotFound", "AlreadyExists"], "UpdatePayloadResourceNotFound", "resource may have been deleted"],
  [["Conflict"], "UpdatePayloadResourceConflict", "someone else is updating this resource"],
  [["Timeout", "ServiceUnavailable", "UnexpectedServerError"], "UpdatePayloadClusterDown", "the server is down or not responding"],
  [["InternalError"], "UpdatePayloadClusterError", "the server is reporting an internal error"],
  [["Invalid"], "UpdatePayloadResourceInvalid", "the object is invalid, possibly due to local cluster configuration"],
  [["Unauthorized"], "UpdatePayloadClusterUnauthorized", "could not authenticate to the server"],
  [["Forbidden"], "UpdatePayloadResourceForbidden", "the server has forbidden updates to this resource"],
  [["ServerTimeout", "TooManyRequests"], "UpdatePayloadClusterOverloaded", "the server is overloaded and is not accepting updates"],
];

/** Maps an applier error to the CVO's reason and cause text (§3.1 of the spec). */
export function classifyApplyError(err: unknown): { reason: string; cause: string } {
  for (let e: unknown = err; e instanceof Error; e = e.cause) {
    const statusReason = (e as { statusReason?: unknown }).statusReason;
    const match = CLASSES.find(([reasons]) => typeof statusReason === "string" && reasons.includes(statusReason));
    if (match) return { reason: match[1], cause: match[2] };
    if (e.message.includes("no matches for kind")) {
      return { reason: "UpdatePayloadResourceTypeMissing", cause: "the server does not recognize this resource, check extension API servers" };
    }
  }
  return { reason: "UpdatePayloadFailed", cause: "" };
}

const TIMED_OUT = "timed out waiting for the condition";

/**
 * Applies one task with retries (CVO `Task.Run`). UpdateErrors fail fast; other errors are retried
 * while backoff steps remain, then wrapped into an UpdateError naming the task. Reproduces the
 * upstream quirk that a capped backoff ends the retries after the next sleep.
 */
export async function runTask(task: Task, mode: PayloadState, deps: TaskRunDeps, signal: AbortSignal): Promise<void> {
  const tracing = deps.tracing ?? NO_TRACING;
  const started = deps.clock.now().getTime();
  const attempts = { count: 0 };
  const done = (result: TaskResult): void => deps.onTaskDone?.(task, result, (deps.clock.now().getTime() - started) / 1000);
  const run = async (span: WorkerSpan): Promise<void> => {
    try {
      await attemptTask(task, mode, deps, signal, attempts);
    } catch (err) {
      const result: TaskResult = signal.aborted ? "cancelled" : "failed";
      done(result);
      span.setAttributes({
        "syncworker.task.attempts": attempts.count,
        "syncworker.task.outcome": result,
        ...(err instanceof UpdateError ? { "syncworker.error.reason": err.reason, "syncworker.error.effect": err.effect || "None" } : {}),
      });
      throw err;
    }
    done("applied");
    span.setAttributes({ "syncworker.task.attempts": attempts.count, "syncworker.task.outcome": "applied" });
  };
  if (!tracing.enabled) return run(NO_SPAN);
  return tracing.span(taskSpanName(task), taskAttributes(task), run);
}

/** `apply <Kind> <namespace>/<name>`, or `apply <Kind> <name>` for a cluster-scoped object. */
export function taskSpanName(task: Task): string {
  const meta = task.manifest.obj.metadata;
  const name = meta?.name || task.manifest.originalFilename;
  return `apply ${task.manifest.gvk.kind} ${meta?.namespace ? `${meta.namespace}/${name}` : name}`;
}

/** What identifies a task in a trace: the object, where it sits in the payload, and its position. */
export function taskAttributes(task: Task): SpanAttributes {
  const { gvk, obj, originalFilename } = task.manifest;
  const level = parseRunLevel(originalFilename);
  return {
    "k8s.resource.group": gvk.group,
    "k8s.resource.version": gvk.version,
    "k8s.resource.kind": gvk.kind,
    "k8s.namespace.name": obj.metadata?.namespace ?? "",
    "k8s.resource.name": obj.metadata?.name ?? "",
    "syncworker.manifest.file": originalFilename,
    "syncworker.task.run_level": level?.number,
    "syncworker.task.component": level?.component,
    "syncworker.task.index": `${task.index} of ${task.total}`,
  };
}

async function attemptTask(task: Task, mode: PayloadState, deps: TaskRunDeps, signal: AbortSignal, attempts: { count: number }): Promise<void> {
  let { durationMs, steps } = task.backoff;
  const { factor, capMs, jitter } = task.backoff;
  let lastErr: unknown;
  let result: Error | undefined;
  while (steps > 0) {
    await deps.gate?.wait(signal);
    if (signal.aborted) {
      result = abortReason(signal);
      break;
    }
    try {
      if (++attempts.count > 1) deps.onRetry?.(task);
      await deps.applier.apply(task.manifest, mode, signal);
      return;
    } catch (err) {
      lastErr = err;
      deps.onAttemptFailed?.();
      if (err instanceof UpdateError) {
        err.task = task;
        throw err;
      }
    }
    if (steps === 1) {
      result = new Error(TIMED_OUT);
      break;
    }
    const wait = durationMs;
    steps -= 1;
    durationMs *= factor;
    if (capMs > 0 && durationMs > capMs) {
      durationMs = capMs;
      steps = 0;
    }
    try {
      await deps.clock.sleep(wait + (jitter > 0 ? wait * jitter * deps.random() : 0), signal);
    } catch {
      result = abortReason(signal);
      break;
    }
  }
  const err = lastErr ?? result ?? new Error(TIMED_OUT);
  if (err instanceof UpdateError) throw err;
  const { reason, cause } = classifyApplyError(err);
  throw new UpdateError({
    reason,
    message: `Could not update ${task.toString()}${cause ? `: ${cause}` : ""}`,
    task,
    cause: err,
  });
}
