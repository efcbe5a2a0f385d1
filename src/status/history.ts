/** One release the cluster moved towards (configv1.UpdateHistory). */
export interface HistoryEntry {
  readonly state: "Partial" | "Completed";
  readonly version: string;
  readonly image: string;
  readonly verified: boolean;
  readonly startedTime: Date;
  readonly completionTime?: Date;
}

/** Beyond this many entries the least informative ones are pruned. */
export const MAX_HISTORY = 100;

/**
 * Records the release being applied in the history, newest first (CVO `mergeOperatorHistory`):
 * the newest entry is updated when it names the same release, otherwise it is closed and a new entry
 * starts. `completed` marks the newest entry Completed; `verified` is sticky.
 */
export function mergeHistory(
  history: readonly HistoryEntry[],
  desired: { readonly version: string; readonly image: string },
  verified: boolean,
  now: Date,
  completed: boolean,
): HistoryEntry[] {
  if (!desired.image) return [];
  let entries = [...history];
  const newest = entries[0];
  if (!newest) {
    entries = [{ state: "Partial", version: desired.version, image: desired.image, verified: false, startedTime: now }];
  } else {
    const sameImage = newest.image === desired.image && (!desired.version || !newest.version || newest.version === desired.version);
    const sameVersion = newest.version === desired.version && (!newest.image || newest.image === desired.image);
    if (sameImage || sameVersion) {
      entries[0] = {
        ...newest,
        version: newest.version || desired.version,
        image: newest.image || desired.image,
        ...(completed ? { state: "Completed" as const, completionTime: newest.completionTime ?? now } : {}),
      };
    } else {
      entries[0] = { ...newest, completionTime: newest.completionTime ?? now };
      entries.unshift(
        completed
          ? { state: "Completed", version: desired.version, image: desired.image, verified: false, startedTime: now, completionTime: now }
          : { state: "Partial", version: desired.version, image: desired.image, verified: false, startedTime: now },
      );
    }
  }
  if (verified && entries[0]) entries[0] = { ...entries[0], verified: true };
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
