/**
 * The optional parts of the test suite. A tier whose tools scripts/setup.sh could not install runs only if the user
 * did not opt out of it (SYNCWORKER_SKIP_TIERS, the variable setup.sh reads); its tests are then reported as
 * skipped with the reason instead of failing on a missing binary. The real OpenShift payloads are a tier of their
 * own: present only where SYNCWORKER_REAL_PAYLOADS names them.
 */
import { join, resolve } from "node:path";

/** The tiers of scripts/setup.sh a user may opt out of. */
export type Tier = "tls" | "terminal" | "metrics" | "registry" | "signatures" | "image" | "go" | "clients" | "kube" | "jaeger" | "grpcurl";

const optedOut = new Set((process.env["SYNCWORKER_SKIP_TIERS"] ?? "").split(",").map((t) => t.trim()).filter(Boolean));

/** A skip reason for `test(name, { skip }, …)` when the user opted out of `tier`, else false. */
export function skipTier(tier: Tier): string | false {
  return optedOut.has(tier) ? `tier ${tier} opted out (SYNCWORKER_SKIP_TIERS)` : false;
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
