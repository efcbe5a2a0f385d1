/**
 * The optional parts of the test suite. A tier whose tools scripts/setup.sh could not install runs only if the user
 * did not opt out of it (SYNCWORKER_SKIP_TIERS, the variable setup.sh reads); its tests are then reported as
 * skipped with the reason instead of failing on a missing binary. The real OpenShift payloads are a tier of their
 * own: present only where SYNCWORKER_REAL_PAYLOADS names them.
 */
import { join, resolve } from "node:path";
import { after, before, test, type TestFn, type TestOptions } from "node:test";

/** The tiers of scripts/setup.sh a user may opt out of, in its order (test/integration/tiers.test.ts holds them equal). */
export const TIERS = [
  "tls",
  "terminal",
  "browser",
  "metrics",
  "registry",
  "signatures",
  "image",
  "disk",
  "go",
  "clients",
  "kube",
  "jaeger",
  "grpcurl",
] as const;
export type Tier = (typeof TIERS)[number];

/** The tiers named in a SYNCWORKER_SKIP_TIERS value (comma-separated, blanks ignored). */
export const parseSkipTiers = (value: string | undefined): ReadonlySet<string> =>
  new Set(
    (value ?? "")
      .split(",")
      .map((t) => t.trim())
      .filter(Boolean),
  );

/** The skip reason for a test needing `tiers` when some are among `optedOut`, naming them and the variable; else false. */
export function tierSkipReason(optedOut: ReadonlySet<string>, tiers: readonly Tier[]): string | false {
  const out = tiers.filter((t) => optedOut.has(t));
  if (out.length === 0) return false;
  return `${out.length === 1 ? "tier" : "tiers"} ${out.join(", ")} opted out (SYNCWORKER_SKIP_TIERS)`;
}

const optedOut = parseSkipTiers(process.env["SYNCWORKER_SKIP_TIERS"]);

/** A skip reason for `test(name, { skip }, …)` when the user opted out of any of `tiers`, else false. */
export const skipTier = (...tiers: Tier[]): string | false => tierSkipReason(optedOut, tiers);

/** node:test's `test`, as the files whose every test needs a tier call it. */
export interface TierTest {
  (name: string, fn: TestFn): void;
  (name: string, options: TestOptions, fn: TestFn): void;
}

/**
 * node:test's `test`, `before` and `after` for a file whose every test needs `tiers`: one declaration at the top of
 * the file (`const { after, before, test } = tierTests("kube", "tls")`). While the tiers are there they are node:test's
 * own. When the user opted out of one, every test is reported skipped naming it, and the hooks, which would start
 * the missing tool, do not run: node:test runs a file's hooks even when all its tests are skipped.
 */
export function tierTests(...tiers: Tier[]): { test: TierTest; before: typeof before; after: typeof after } {
  const skip = skipTier(...tiers);
  // A test's own skip (the real payloads) stands while the tiers are there.
  const declare = (name: string, optionsOrFn: TestOptions | TestFn, fn?: TestFn): void =>
    void (typeof optionsOrFn === "function" ? test(name, { skip }, optionsOrFn) : test(name, { ...optionsOrFn, skip: skip || optionsOrFn.skip }, fn));
  const none = (): void => undefined;
  return skip ? { test: declare, before: none, after: none } : { test: declare, before, after };
}

/** The folder holding the real payloads real-a and real-b, only as SYNCWORKER_REAL_PAYLOADS names it (nothing outside the checkout is read otherwise). */
const namedRealPayloads = process.env["SYNCWORKER_REAL_PAYLOADS"];
export const REAL_PAYLOADS: string | undefined = namedRealPayloads ? resolve(namedRealPayloads) : undefined;

/**
 * A skip reason for the tests that need the real payloads, when they are absent. A folder the user named is never
 * skipped: if it is wrong, the tests fail naming it.
 */
export const skipRealPayloads: string | false =
  REAL_PAYLOADS === undefined ? "real OpenShift payloads absent: set SYNCWORKER_REAL_PAYLOADS to the folder holding real-a and real-b" : false;

/** The path of a real payload (meaningful only when skipRealPayloads is false). */
export const realPayload = (name: "real-a" | "real-b"): string => join(REAL_PAYLOADS ?? "/nonexistent-real-payloads", name);
