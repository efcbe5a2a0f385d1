/**
 * `syncworker diff`: asks the service for a Preview of an update and prints it as `kubectl diff` does: a unified
 * diff per changed object, then what would be created or deleted, then the image previewed (a tag resolved to its
 * digest), the plan's counts and digest. The exit code says whether anything would change (1) or not (0); 2 and
 * above are errors.
 */
import { PreviewAction, type PreviewInput, type PreviewSummary, type SyncWorkerClient } from "@syncworker/client";
import { DIFF_EXIT } from "./exit-codes.js";
import { objectName } from "./render.js";

export interface DiffOptions {
  readonly input: PreviewInput;
  /** Also list the objects a filter excludes, with the filter. */
  readonly showSkipped: boolean;
  readonly signal?: AbortSignal;
}

const LISTED: ReadonlyMap<PreviewAction, string> = new Map([
  [PreviewAction.PREVIEW_ACTION_CREATE, "create"],
  [PreviewAction.PREVIEW_ACTION_DELETE, "delete"],
]);

/** `N to create, N to change, …`, the plan in one line. */
export function planLine(s: PreviewSummary): string {
  return `${s.create} to create, ${s.change} to change, ${s.delete} to delete, ${s.unchanged} unchanged, ${s.skipped} skipped`;
}

/**
 * Prints the preview to `write` as it streams in (diffs first, since they arrive in payload order) and returns
 * the exit code: 1 when the update would create, change or delete anything, else 0. Errors propagate.
 */
export async function diff(client: SyncWorkerClient, o: DiffOptions, write: (text: string) => void): Promise<number> {
  const listed: string[] = [];
  let summary: PreviewSummary | undefined;
  for await (const response of client.preview(o.input, o.signal ? { signal: o.signal } : {})) {
    if (response.summary) summary = response.summary;
    const object = response.object;
    if (!object) continue;
    const where = `${objectName(object)} (${object.file})`;
    if (object.action === PreviewAction.PREVIEW_ACTION_CHANGE) {
      const [from = "", to = ""] = object.diff.split("\n", 2).map((line) => line.slice(4));
      write(`diff -u -N ${from} ${to}\n${object.diff}`);
    } else if (LISTED.has(object.action)) listed.push(`${LISTED.get(object.action)} ${where}`);
    else if (object.action === PreviewAction.PREVIEW_ACTION_SKIPPED && o.showSkipped) listed.push(`skip ${where}: ${object.skippedReason}`);
  }
  if (!summary) throw new Error("the preview ended without its summary");
  for (const line of listed) write(`${line}\n`);
  const release = summary.release;
  // The service previews a tag as it would apply it, by the digest the tag names now.
  const requested = o.input.desired.image;
  if (release && release.image !== requested) write(`Resolved ${requested} to ${release.image}\n`);
  write(`Plan: ${planLine(summary)}${release ? ` (release ${release.version} ${release.image})` : ""}\n`);
  write(`Plan digest: ${summary.planDigest}\n`);
  for (const violation of summary.limitViolations) write(`Over a blast-radius limit: ${violation}\n`);
  return summary.create + summary.change + summary.delete > 0 ? DIFF_EXIT.changes : DIFF_EXIT.noChanges;
}
