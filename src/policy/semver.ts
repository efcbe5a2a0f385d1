import { semverError } from "../payload/metadata.js";

/** A Semantic Version 2.0.0 as blang/semver's strict `Parse` accepts it (the CVO's parser). */
export interface SemVer {
  readonly major: number;
  readonly minor: number;
  readonly patch: number;
  readonly pre: readonly string[];
  /** As written: strict parsing accepts only the canonical form, which blang/semver `String()` prints. */
  readonly text: string;
}

/** The parsed version, or an Error with blang/semver's words (the check is the payload loader's). */
export function parseSemVer(text: string): SemVer | Error {
  const invalid = semverError(text);
  if (invalid !== undefined) return new Error(invalid);
  const core = text.replace(/\+.*$/, "");
  const dash = core.indexOf("-");
  const [major, minor, patch] = (dash < 0 ? core : core.slice(0, dash)).split(".").map(Number);
  return { major: major!, minor: minor!, patch: patch!, pre: dash < 0 ? [] : core.slice(dash + 1).split("."), text };
}

const isNumeric = (s: string): boolean => /^\d+$/.test(s);

function comparePre(a: readonly string[], b: readonly string[]): number {
  // A version without pre-release fields ranks above any with them.
  if (a.length === 0 || b.length === 0) return b.length - a.length;
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    const x = a[i]!;
    const y = b[i]!;
    if (x === y) continue;
    if (isNumeric(x) && isNumeric(y)) return Number(x) - Number(y);
    if (isNumeric(x) !== isNumeric(y)) return isNumeric(x) ? -1 : 1;
    return x < y ? -1 : 1;
  }
  return a.length - b.length;
}

/** Precedence: negative, zero or positive as `a` is below, equal to or above `b` (build metadata ignored). */
export function compareSemVer(a: SemVer, b: SemVer): number {
  return a.major - b.major || a.minor - b.minor || a.patch - b.patch || comparePre(a.pre, b.pre);
}
