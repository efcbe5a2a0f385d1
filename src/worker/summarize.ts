import { UpdateError, type UpdateEffect, brandError, isClusterOperator } from "../core/index.js";
import type { Task } from "../graph/index.js";

/** A cancellation or timeout inside apply; never shown to users as a failure. */
export class ContextError extends Error {
  constructor(message: string, cause: unknown) {
    super(message, { cause });
    this.name = "ContextError";
  }
  static {
    brandError(this, "ContextError");
  }
}

/** Several errors carried as one (Go's aggregate); its message lists them like `[a, b]`. */
export class AggregateUpdateErrors extends Error {
  constructor(readonly errors: readonly Error[]) {
    super(errors.length === 1 ? (errors[0]?.message ?? "") : `[${errors.map((e) => e.message).join(", ")}]`);
    this.name = "AggregateError";
  }
}

function isClusterOperatorError(err: Error): err is UpdateError {
  if (!(err instanceof UpdateError)) return false;
  const task = err.task as Task | undefined;
  const gvk = task?.manifest?.gvk;
  return gvk !== undefined && isClusterOperator(gvk);
}

function combineEffects(errs: readonly UpdateError[]): UpdateEffect {
  const effects = new Set(errs.map((e) => e.effect));
  if (effects.has("Fail")) return "Fail";
  if (effects.has("FailAfterInterval")) return "FailAfterInterval";
  if (effects.has("None")) return "None";
  return "Report";
}

/** Unifies ClusterOperator errors sharing a reason; other errors pass through first, in order. */
export function condenseClusterOperators(errs: readonly Error[]): Error[] {
  const condensed: Error[] = [];
  const byReason = new Map<string, UpdateError[]>();
  for (const err of errs) {
    if (!isClusterOperatorError(err)) {
      condensed.push(err);
      continue;
    }
    byReason.set(err.reason, [...(byReason.get(err.reason) ?? []), err]);
  }
  for (const reason of [...byReason.keys()].sort()) {
    const group = byReason.get(reason) ?? [];
    const first = group[0];
    if (!first) continue;
    if (group.length === 1) {
      condensed.push(first);
      continue;
    }
    const names = group
      .map((e) => e.objectName)
      .filter((n) => n.length > 0)
      .sort();
    const name = names.join(", ");
    condensed.push(
      new UpdateError({
        reason: first.pluralReason,
        pluralReason: first.pluralReason,
        message: first.pluralMessageFormat.replace("%s", name),
        pluralMessageFormat: first.pluralMessageFormat,
        effect: combineEffects(group),
        name,
        names,
        cause: new AggregateUpdateErrors(group),
      }),
    );
  }
  return condensed;
}

/** A generic error for several blockers; messages sorted and de-duplicated. */
export function newMultipleError(errs: readonly Error[]): Error | undefined {
  if (errs.length <= 1) return errs[0];
  const messages = [...new Set(errs.map((e) => e.message))].sort();
  return new UpdateError({
    reason: "MultipleErrors",
    message: `Multiple errors are preventing progress:\n* ${messages.join("\n* ")}`,
    cause: new AggregateUpdateErrors(errs),
  });
}

/**
 * Reduces the errors of a graph run to one cause (CVO `summarizeTaskGraphErrors`). Returns undefined
 * when only cancellations remain: those are internal details, not user-facing failures.
 */
export function summarizeTaskGraphErrors(errs: readonly Error[]): Error | undefined {
  const real = errs.filter((e) => !(e instanceof ContextError));
  if (real.length === 0) return undefined;
  const condensed = condenseClusterOperators(real);
  return condensed.length === 1 ? condensed[0] : newMultipleError(condensed);
}
