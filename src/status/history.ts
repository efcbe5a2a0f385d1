import type { HistoryEntry } from "./shapes.js";

export type { HistoryEntry };

/** Beyond this many entries the least informative ones are pruned. */
export const MAX_HISTORY = 100;

/**
 * The newest entry with the desired release merged in, or undefined when it names another release
 * (CVO `mergeEqualVersions`): the same image (a version learned later is adopted), or the same
 * non-empty version with no image recorded yet or the same one.
 */
function mergeEqual(newest: HistoryEntry, desired: { readonly version: string; readonly image: string }): HistoryEntry | undefined {
  if (desired.image && desired.image === newest.image) {
    if (!desired.version) return newest;
    if (!newest.version || desired.version === newest.version) return { ...newest, version: desired.version };
  }
  if (desired.version && desired.version === newest.version && (!newest.image || desired.image === newest.image)) {
    return { ...newest, image: desired.image };
  }
  return undefined;
}

/**
 * Records the release being applied in the history, newest first (CVO `mergeOperatorHistory`). A release
 * without an image cannot be reproduced later, so it leaves the history alone. An empty history starts
 * with a Partial entry that the merge below then completes; the newest entry is updated when it names the
 * same release, otherwise it is closed and a new entry starts. `completed` marks the newest entry
 * Completed; `verified` is sticky; `acceptedRisks` replaces the newest entry's (empty: none recorded).
 */
export function mergeHistory(
  history: readonly HistoryEntry[],
  desired: { readonly version: string; readonly image: string },
  verified: boolean,
  now: Date,
  completed: boolean,
  acceptedRisks = "",
): HistoryEntry[] {
  if (!desired.image) return [...history];
  const risks = acceptedRisks ? { acceptedRisks } : {};
  const started = { version: desired.version, image: desired.image, verified: false, startedTime: now, ...risks };
  const entries: HistoryEntry[] = history.length > 0 ? [...history] : [{ state: "Partial" as const, ...started }];
  const newest = entries[0]!;
  const merged = mergeEqual(newest, desired);
  if (merged) {
    const { acceptedRisks: _replaced, ...rest } = completed ? { ...merged, state: "Completed" as const, completionTime: merged.completionTime ?? now } : merged;
    entries[0] = { ...rest, ...risks };
  } else {
    entries[0] = { ...newest, completionTime: newest.completionTime ?? now };
    entries.unshift(completed ? { state: "Completed", ...started, completionTime: now } : { state: "Partial", ...started });
  }
  if (verified) entries[0] = { ...entries[0], verified: true };
  return pruneHistory(entries, MAX_HISTORY);
}

const minorOf = (v: string): string => v.split(".").slice(0, 2).join(".");
const zStreamOf = (v: string): string => v.split(".").slice(0, 3).join(".");

/**
 * Drops the lowest-ranked entries above `max` (the pruning upstream intends; the seed's revision
 * computes it and discards the result). Newest five, the oldest and the most recent Completed entry
 * are always kept; first/last Completed of a minor and Partial entries between minors weigh more.
 */
export function pruneHistory(history: readonly HistoryEntry[], max: number): HistoryEntry[] {
  if (history.length <= max) return [...history];
  const completedIdx = history.map((h, i) => (h.state === "Completed" ? i : -1)).filter((i) => i >= 0);
  const mostRecentCompleted = completedIdx[0];
  const rank = history.map((entry, i) => {
    let weight = -1.01 * i;
    if (i < 5 || i === history.length - 1 || i === mostRecentCompleted) weight += 1000;
    if (entry.state === "Completed") {
      const sameMinor = completedIdx.filter((j) => minorOf(history[j]!.version) === minorOf(entry.version));
      if (sameMinor[0] === i || sameMinor.at(-1) === i) weight += 30;
    } else {
      const newer = completedIdx.filter((j) => j < i).at(-1);
      const older = completedIdx.find((j) => j > i);
      if (newer !== undefined && older !== undefined) {
        const a = history[newer]!.version;
        const b = history[older]!.version;
        if (minorOf(a) !== minorOf(b)) weight += 20;
        else if (zStreamOf(a) !== zStreamOf(b)) weight -= 20;
      }
    }
    return { i, weight };
  });
  const keep = new Set(
    [...rank]
      .sort((x, y) => y.weight - x.weight)
      .slice(0, max)
      .map((r) => r.i),
  );
  return history.filter((_, i) => keep.has(i));
}
