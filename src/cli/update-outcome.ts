/**
 * What `syncworker update` makes of the status an Update answers with. The service takes the request (the call
 * succeeds) and then loads the release: a load that fails, or is refused at PreconditionChecks (a blast-radius
 * limit, a plan digest that no longer matches), leaves the previous release in effect and says so in the load
 * status only. A script must not read that as success.
 */
import type { SyncWorkerStatus } from "@syncworker/client";

/** Why the Update's release was not taken, in one line; undefined when it was. */
export function notTaken(status: SyncWorkerStatus): string | undefined {
  const load = status.loadPayloadStatus;
  const failure = load?.failure;
  if (!load || !failure) return undefined;
  return `the update was not taken: ${failure.reason} at ${load.step}: ${failure.message.replace(/\s*\n\s*/g, "; ")}`;
}
