import type { Backoff } from "../graph/index.js";
import { PACKAGE_VERSION } from "./package.js";

/**
 * The values no flag sets, each declared once here. `compileServeOptions` copies them into the compiled options,
 * and the code that uses them receives them from there; a flag added later for one of them starts from its value.
 */
export const TUNING = Object.freeze({
  /** Each manifest's retries during an update or a reconcile, as the CVO's; `--backoff-steps` sets the steps. */
  manifestBackoff: Object.freeze({ durationMs: 10_000, factor: 1.3, jitter: 0.1, capMs: 15_000 }) satisfies Omit<Backoff, "steps">,
  /** The shorter schedule of an install (when more than one step is allowed), so a fresh cluster converges quickly. */
  installBackoff: Object.freeze({ durationMs: 1000, factor: 2, jitter: 0, steps: 4, capMs: 15_000 }) satisfies Backoff,
  /** Ten progress snapshots a second are plenty for any watcher and keep a sync's fan-out bounded. */
  progressIntervalMs: 100,
  /** How long an Update waits for a registry to resolve its image's tag; retrieval then reports why. */
  admitTimeoutMs: 30_000,
  /** How long open calls and streams get to end once `serve` stops. */
  shutdownGraceMs: 5_000,
  /**
   * Each `--event-sink`: a sync of a 1,000-manifest release makes a few hundred events at most (one per component
   * step), so 10,000 hold an outage of many updates; one POST may take 10 s; retries back off from 0.5 s to 30 s.
   */
  eventSink: Object.freeze({ capacity: 10_000, attemptTimeoutMs: 10_000, backoff: Object.freeze({ initialMs: 500, maxMs: 30_000 }) }),
});

/**
 * The Kubernetes client's defaults. No fixed rate limit: the API server's priority and fairness is the real limit
 * and says so with 429 and Retry-After; bench apply measured the former 200 QPS bucket as what held 1,000 applies
 * back. A request may take 60 s (large CRDs take seconds to admit on a busy server) and is retried 4 times.
 */
export const KUBE_CLIENT_DEFAULTS = Object.freeze({
  timeoutMs: 60_000,
  maxRetries: 4,
  retryBaseMs: 250,
  userAgent: `syncworker/${PACKAGE_VERSION} (${process.platform}/${process.arch}) node/${process.versions.node}`,
});
