import { UpdateError, hasBrand } from "../payload/update-error.js";

/** What a precondition is asked about. */
export interface ReleaseContext {
  readonly desiredVersion: string;
}

/** A check that must pass before a new payload is accepted (CVO `precondition.Precondition`). */
export interface Precondition {
  readonly name: string;
  /** Resolves to undefined when the check passes. */
  run(context: ReleaseContext, signal: AbortSignal): Promise<Error | undefined>;
}

const PRECONDITION_ERROR = Symbol.for("syncworker.PreconditionError");

/** A failed precondition with a machine reason (CVO `precondition.Error`); its text is `message`. */
export class PreconditionError extends Error {
  readonly [PRECONDITION_ERROR] = true;
  constructor(
    readonly reason: string,
    message: string,
    readonly precondition: string,
    cause?: unknown,
  ) {
    super(message, cause === undefined ? undefined : { cause });
    this.name = "PreconditionError";
  }
  static override [Symbol.hasInstance](value: unknown): value is PreconditionError {
    return hasBrand(value, PRECONDITION_ERROR);
  }
}

/** Runs every precondition in order, without short-circuiting, and collects the failures. */
export async function runAll(preconditions: readonly Precondition[], context: ReleaseContext, signal: AbortSignal): Promise<Error[]> {
  const errors: Error[] = [];
  for (const precondition of preconditions) {
    signal.throwIfAborted();
    const err = await precondition.run(context, signal).catch((e: unknown) => (e instanceof Error ? e : new Error(String(e))));
    if (err) errors.push(err);
  }
  return errors;
}

/**
 * Reduces precondition failures to one UpdateError and whether it blocks: with `force` the failures
 * are reported but do not block (CVO `precondition.Summarize`).
 */
export function summarizePreconditions(errors: readonly Error[], force: boolean): { block: boolean; error?: UpdateError } {
  if (errors.length === 0) return { block: false };
  const lines = errors.map((err) =>
    err instanceof PreconditionError ? `Precondition "${err.precondition}" failed because of "${err.reason}": ${err.message}` : err.message,
  );
  let message = lines.length === 1 ? (lines[0] ?? "") : `Multiple precondition checks failed:\n* ${lines.join("\n* ")}`;
  if (force) message = `Forced through blocking failures: ${message}`;
  return {
    block: !force,
    error: new UpdateError({ reason: "UpgradePreconditionCheckFailed", message, name: "PreconditionCheck", cause: errors[0] }),
  };
}

/** The parts of the cluster the built-in preconditions read; absent objects are undefined. */
export interface PreconditionCluster {
  clusterVersion(signal: AbortSignal): Promise<ClusterVersionView | undefined>;
  clusterOperatorCondition(name: string, type: string, signal: AbortSignal): Promise<ConditionView | undefined | "missing-operator">;
}

export interface ConditionView {
  readonly status: string;
  readonly reason: string;
  readonly message: string;
}

export interface ClusterVersionView {
  readonly upgradeable?: ConditionView;
  /** Newest first. */
  readonly history: ReadonlyArray<{ readonly state: "Completed" | "Partial"; readonly version: string }>;
  readonly overridesUnmanaged: boolean;
}

/** The version the cluster is on: the newest Completed entry, else the oldest entry. */
function currentVersion(cv: ClusterVersionView): string {
  return cv.history.find((h) => h.state === "Completed")?.version ?? cv.history.at(-1)?.version ?? "";
}

const minorOf = (version: string): string => version.split(".")[1] ?? "";

/** The ClusterVersion, or the failure of the named precondition when it cannot be read. */
async function readClusterVersion(cluster: PreconditionCluster, name: string, signal: AbortSignal): Promise<ClusterVersionView | undefined | PreconditionError> {
  try {
    return await cluster.clusterVersion(signal);
  } catch (err) {
    return new PreconditionError("UnknownError", err instanceof Error ? err.message : String(err), name, err);
  }
}

/** Blocks minor-version changes while ClusterVersion says Upgradeable=False. */
export function clusterVersionUpgradeable(cluster: PreconditionCluster): Precondition {
  const name = "ClusterVersionUpgradeable";
  return {
    name,
    async run(context, signal) {
      const cv = await readClusterVersion(cluster, name, signal);
      if (cv instanceof PreconditionError) return cv;
      if (!cv?.upgradeable || cv.upgradeable.status !== "False" || cv.history.length === 0) return undefined;
      if (minorOf(currentVersion(cv)) === minorOf(context.desiredVersion)) {
        return cv.overridesUnmanaged
          ? new PreconditionError(
              "ClusterVersionOverridesSet",
              "Disabling ownership via cluster version overrides prevents upgrades. Please remove overrides before continuing.",
              name,
            )
          : undefined;
      }
      return new PreconditionError(cv.upgradeable.reason, cv.upgradeable.message, name);
    },
  };
}

/** Requires a recent etcd backup before a minor upgrade. */
export function etcdRecentBackup(cluster: PreconditionCluster): Precondition {
  const name = "EtcdRecentBackup";
  return {
    name,
    async run(context, signal) {
      const cv = await readClusterVersion(cluster, name, signal);
      if (cv instanceof PreconditionError) return cv;
      if (!cv) return undefined;
      const current = Number(minorOf(currentVersion(cv)));
      const desired = Number(minorOf(context.desiredVersion));
      if (!Number.isInteger(current) || !Number.isInteger(desired) || minorOf(currentVersion(cv)) === "" || desired <= current) return undefined;
      let condition: ConditionView | undefined | "missing-operator";
      try {
        condition = await cluster.clusterOperatorCondition("etcd", "RecentBackup", signal);
      } catch (err) {
        return new PreconditionError("UnableToGetEtcdOperator", `RecentBackup: Unable to get etcd operator, err=${String(err)}.`, name, err);
      }
      if (condition === "missing-operator") {
        return new PreconditionError("UnableToGetEtcdOperator", "RecentBackup: Unable to get etcd operator, err=not found.", name);
      }
      if (!condition) return new PreconditionError("EtcdRecentBackupNotSet", "RecentBackup: etcd backup condition is not set.", name);
      // Upstream quirk: a non-True condition without a reason passes.
      if (condition.status !== "True" && condition.reason) return new PreconditionError(condition.reason, `RecentBackup: ${condition.message}`, name);
      return undefined;
    },
  };
}

/** The CVO's built-in list, in its order. */
export function builtInPreconditions(cluster: PreconditionCluster): Precondition[] {
  return [clusterVersionUpgradeable(cluster), etcdRecentBackup(cluster)];
}
