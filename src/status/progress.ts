/**
 * The completion percentage as the CVO prints it: floor(done / total × 100) computed in 32-bit float
 * (Go's float32), so 53 of 100 is 52%, exactly as upstream shows it. 0 when nothing is counted.
 */
export function percentComplete(done: number, total: number): number {
  if (!(total > 0)) return 0;
  return Math.floor(Math.fround(Math.fround(Math.fround(done) / Math.fround(total)) * 100));
}

/**
 * `N of M done (P% complete)`: the one wording of progress counts, shared by the status `message` and
 * the Progressing condition so the two can never disagree.
 */
export function progressCounts(done: number, total: number): string {
  return `${done} of ${total} done (${percentComplete(done, total)}% complete)`;
}
