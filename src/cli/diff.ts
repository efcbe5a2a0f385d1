/**
 * `syncworker diff`: asks the service for a Preview of an update and prints it as `kubectl diff` does: a unified
 * diff per changed object, then what would be created or deleted, then the image previewed (a tag resolved to its
 * digest), the plan's counts and digest. The exit code says whether anything would change (1) or not (0); 2 and
 * above are errors. `-o json` prints the same as one document for programs.
 */
import { PreviewAction, type ObjectPreview, type PreviewInput, type PreviewSummary, type SyncWorkerClient } from "@syncworker/client";
import { DIFF_EXIT } from "./exit-codes.js";
import { document } from "./output.js";
import { objectName } from "./render.js";

export interface DiffOptions {
  readonly input: PreviewInput;
  /** Also list the objects a filter excludes, with the filter (text; JSON always has them). */
  readonly showSkipped: boolean;
  /** `text` (default): as kubectl diff; `json`: one document with every object, the plan and its digest. */
  readonly output?: "text" | "json";
  readonly signal?: AbortSignal;
}

/** The name of each action, in the text listing and in `-o json`. */
const ACTION_NAMES: ReadonlyMap<PreviewAction, string> = new Map([
  [PreviewAction.PREVIEW_ACTION_CREATE, "create"],
  [PreviewAction.PREVIEW_ACTION_CHANGE, "change"],
  [PreviewAction.PREVIEW_ACTION_UNCHANGED, "unchanged"],
  [PreviewAction.PREVIEW_ACTION_DELETE, "delete"],
  [PreviewAction.PREVIEW_ACTION_SKIPPED, "skip"],
]);
const actionName = (action: PreviewAction): string => ACTION_NAMES.get(action) ?? "unspecified";

/** `N to create, N to change, …`, the plan in one line. */
export function planLine(s: PreviewSummary): string {
  return `${s.create} to create, ${s.change} to change, ${s.delete} to delete, ${s.unchanged} unchanged, ${s.skipped} skipped`;
}

/** Streams the preview's objects to `onObject` and resolves with its summary. */
async function readPreview(client: SyncWorkerClient, o: DiffOptions, onObject: (object: ObjectPreview) => void): Promise<PreviewSummary> {
  let summary: PreviewSummary | undefined;
  for await (const response of client.preview(o.input, o.signal ? { signal: o.signal } : {})) {
    if (response.summary) summary = response.summary;
    if (response.object) onObject(response.object);
  }
  if (!summary) throw new Error("the preview ended without its summary");
  return summary;
}

const exitCodeOf = (s: PreviewSummary): number => (s.create + s.change + s.delete > 0 ? DIFF_EXIT.changes : DIFF_EXIT.noChanges);

/**
 * The `-o json` document: every object with its action (and its diff or the filter that skips it), the counts, the
 * plan digest to pin with `update --plan`, and the release previewed with the digest its image resolved to.
 */
export function diffDocument(requestedImage: string, objects: readonly ObjectPreview[], summary: PreviewSummary): object {
  const release = summary.release;
  return {
    requestedImage,
    release: release ? { version: release.version, image: release.image, digest: /@(sha256:[0-9a-f]{64})$/.exec(release.image)?.[1] ?? "" } : null,
    planDigest: summary.planDigest,
    summary: { create: summary.create, change: summary.change, delete: summary.delete, unchanged: summary.unchanged, skipped: summary.skipped },
    limitViolations: summary.limitViolations,
    objects: objects.map((object) => ({
      action: actionName(object.action),
      group: object.group,
      kind: object.kind,
      namespace: object.namespace,
      name: object.name,
      file: object.file,
      ...(object.diff ? { diff: object.diff } : {}),
      ...(object.skippedReason ? { skippedReason: object.skippedReason } : {}),
    })),
  };
}

/**
 * Prints the preview to `write` (as text, diffs as they stream in since they arrive in payload order; or as one JSON
 * document at the end) and returns the exit code: 1 when the update would create, change or delete anything, else 0.
 * Errors propagate.
 */
export async function diff(client: SyncWorkerClient, o: DiffOptions, write: (text: string) => void): Promise<number> {
  const requested = o.input.desired.image;
  if (o.output === "json") {
    const objects: ObjectPreview[] = [];
    const summary = await readPreview(client, o, (object) => objects.push(object));
    write(document(diffDocument(requested, objects, summary), "json"));
    return exitCodeOf(summary);
  }
  const listed: string[] = [];
  const summary = await readPreview(client, o, (object) => {
    const where = `${objectName(object)} (${object.file})`;
    if (object.action === PreviewAction.PREVIEW_ACTION_CHANGE) {
      const [from = "", to = ""] = object.diff.split("\n", 2).map((line) => line.slice(4));
      write(`diff -u -N ${from} ${to}\n${object.diff}`);
    } else if (object.action === PreviewAction.PREVIEW_ACTION_CREATE || object.action === PreviewAction.PREVIEW_ACTION_DELETE)
      listed.push(`${actionName(object.action)} ${where}`);
    else if (object.action === PreviewAction.PREVIEW_ACTION_SKIPPED && o.showSkipped) listed.push(`skip ${where}: ${object.skippedReason}`);
  });
  for (const line of listed) write(`${line}\n`);
  const release = summary.release;
  // The service previews a tag as it would apply it, by the digest the tag names now.
  if (release && release.image !== requested) write(`Resolved ${requested} to ${release.image}\n`);
  write(`Plan: ${planLine(summary)}${release ? ` (release ${release.version} ${release.image})` : ""}\n`);
  write(`Plan digest: ${summary.planDigest}\n`);
  for (const violation of summary.limitViolations) write(`Over a blast-radius limit: ${violation}\n`);
  return exitCodeOf(summary);
}
