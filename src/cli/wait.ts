/**
 * Waiting for a release to complete, as `watch --until-complete` and `update --wait` do. A wait ends in one of
 * three ways, each with its exit code: the release completes (0); it will not, because its load failed or was
 * refused at PreconditionChecks and the previous release stays in effect (1); `--timeout` passes first (3). A
 * failing sync does not end it: the worker retries, as the CVO does, and `--timeout` bounds how long that may take.
 */
import { isComplete, type SyncWorkerClient, type SyncWorkerStatus } from "@syncworker/client";
import { parseDuration } from "../config/index.js";
import { CliError, ExitCode } from "./exit-codes.js";
import { notTaken } from "./update-outcome.js";

/** The release waited for: a version ("" for whichever is applied) and, after an Update, the image it loaded. */
export interface Target {
  readonly version: string;
  readonly image?: string;
}

/** Whether `status` ends a wait for `target`: "complete", why it never will, or undefined to keep waiting. */
export function verdict(status: SyncWorkerStatus, target: Target): "complete" | { readonly failed: string } | undefined {
  const refused = notTaken(status);
  if (refused !== undefined) return { failed: refused };
  const complete = isComplete(status, target.version) && (target.image === undefined || status.actual?.image === target.image);
  return complete ? "complete" : undefined;
}

/** `--timeout` as given (for messages) and its signal, started when the flag is read. */
export interface Timeout {
  readonly text: string;
  readonly signal: AbortSignal;
}

/** The `--timeout` of `text`, started now; undefined without the flag (wait for ever). */
export function timeoutOf(text: string | undefined): Timeout | undefined {
  return text === undefined ? undefined : { text, signal: AbortSignal.timeout(parseDuration("timeout", text)) };
}

/**
 * Follows the status until it decides the wait for `target` (see {@link verdict}) or `signal` aborts; the last
 * status seen, for {@link endWait}.
 */
export async function follow(client: SyncWorkerClient, target: Target, signal: AbortSignal): Promise<SyncWorkerStatus | undefined> {
  let last: SyncWorkerStatus | undefined;
  try {
    for await (const status of client.watchStatus({ signal })) {
      last = status;
      if (verdict(status, target)) break;
    }
  } catch (err) {
    if (!signal.aborted) throw err;
  }
  return last;
}

const oneLine = (text: string): string => text.replace(/\s*\n\s*/g, "; ");

/**
 * How a wait that stopped at `last` ends the command: returns when the release completed (or the user interrupted
 * the wait), throws a {@link CliError} naming the failure (exit 1) or the timeout and where the release stood (exit 3).
 */
export function endWait(last: SyncWorkerStatus | undefined, target: Target, timeout: Timeout | undefined): void {
  const decided = last && verdict(last, target);
  if (decided === "complete") return;
  if (decided) throw new CliError(ExitCode.Failed, decided.failed);
  if (!timeout?.signal.aborted) return;
  const release = target.version || target.image || "the release";
  const failure = last?.failure && !last.message.includes(last.failure.message) ? `; failing: ${last.failure.reason}: ${last.failure.message}` : "";
  const where = last ? `${last.message}${failure}` : "no status received";
  throw new CliError(ExitCode.TimedOut, oneLine(`timed out after --timeout ${timeout.text} waiting for ${release} to complete: ${where}`));
}
