/** Milliseconds in each duration unit the flags and messages use. */
export const DURATION_UNITS: Readonly<Record<string, number>> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** A duration in the largest whole unit ("10m", "90s", "1500ms"), as the flags take it back. */
export function formatDuration(ms: number): string {
  return largestWholeUnit(ms, DURATION_UNITS);
}

/** `value` in the largest of `units` that divides it. */
export function largestWholeUnit(value: number, units: Readonly<Record<string, number>>): string {
  const [unit = ""] = Object.entries(units)
    .filter(([, size]) => value % size === 0)
    .sort(([, a], [, b]) => b - a)
    .map(([name]) => name);
  return `${value / (units[unit] ?? 1)}${unit}`;
}
