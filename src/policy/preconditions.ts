import { UpdateError, acceptHint, accepts, brandError, type RiskAcceptance, type RiskName } from "../core/index.js";
import { compareSemVer, parseSemVer, type SemVer } from "./semver.js";
import type { PreconditionResult } from "./shapes.js";

/** What a precondition is asked about. */
export interface ReleaseContext {
  readonly desiredVersion: string;
}

/** A check that must pass before a new payload is accepted (CVO `precondition.Precondition`). */
export interface Precondition {
  readonly name: string;
  /** The risk an Update names to pass this check when it fails; without one only `force` passes it. */
  readonly risk?: RiskName;
  /** Resolves to undefined when the check passes. */
  run(context: ReleaseContext, signal: AbortSignal): Promise<Error | undefined>;
}

/**
 * A failed precondition with a machine reason (CVO `precondition.Error`); its text is `message`. A
 * non-blocking warning is reported but does not stop the update.
 */
export class PreconditionError extends Error {
  constructor(
    readonly reason: string,
    message: string,
    readonly precondition: string,
    cause?: unknown,
    readonly nonBlockingWarning = false,
  ) {
    super(message, cause === undefined ? undefined : { cause });
    this.name = "PreconditionError";
  }
  static {
    brandError(this, "PreconditionError");
  }
}

/** One failed check and the risk that passes it. */
export interface PreconditionFailure {
  readonly error: Error;
  readonly risk?: RiskName;
}

/** Runs every precondition in order, without short-circuiting, and collects the failures. */
export async function runAll(preconditions: readonly Precondition[], context: ReleaseContext, signal: AbortSignal): Promise<PreconditionFailure[]> {
  const failures: PreconditionFailure[] = [];
  for (const precondition of preconditions) {
    signal.throwIfAborted();
    const error = await precondition.run(context, signal).catch((e: unknown) => (e instanceof Error ? e : new Error(String(e))));
    if (error) failures.push({ error, ...(precondition.risk ? { risk: precondition.risk } : {}) });
  }
  return failures;
}

export type { PreconditionResult };

export interface PreconditionSummary {
  readonly block: boolean;
  readonly error?: UpdateError;
  /** Each failure, in the order the checks ran. */
  readonly results: readonly PreconditionResult[];
}

const isWarning = (err: Error): boolean => err instanceof PreconditionError && err.nonBlockingWarning;

/**
 * Reduces precondition failures to one UpdateError and whether it blocks (CVO `precondition.Summarize`): it blocks
 * while a blocking failure's risk is not accepted. Forced, the text says so as upstream's does; passed by named risks,
 * it names them. A refusal ends by naming the risks that would pass it. One failure is the error's cause; several
 * are only listed (upstream nests none).
 */
export function summarizePreconditions(failures: readonly PreconditionFailure[], acceptance: RiskAcceptance): PreconditionSummary {
  if (failures.length === 0) return { block: false, results: [] };
  const lines = failures.map(({ error }) =>
    error instanceof PreconditionError ? `Precondition "${error.precondition}" failed because of "${error.reason}": ${error.message}` : error.message,
  );
  const blocking = failures.filter((f) => !isWarning(f.error));
  const refused = blocking.filter((f) => !accepts(acceptance, f.risk));
  let message = lines.length === 1 ? (lines[0] ?? "") : `Multiple precondition checks failed:\n* ${lines.join("\n* ")}`;
  if (blocking.length > 0 && refused.length === 0) {
    message = acceptance.force ? `Forced through blocking failures: ${message}` : `Accepted risks ${blocking.map((f) => f.risk).join(", ")}: ${message}`;
  }
  const named = refused.flatMap((f) => (f.risk ? [f.risk] : []));
  if (named.length > 0) message = `${message}\n${acceptHint(named)}`;
  const cause = failures.length === 1 ? { cause: failures[0]?.error } : {};
  return {
    block: refused.length > 0,
    error: new UpdateError({ reason: "UpgradePreconditionCheckFailed", message, name: "PreconditionCheck", ...cause }),
    results: failures.map(({ error, risk }) => {
      const base = error instanceof PreconditionError ? { name: error.precondition, reason: error.reason } : { name: "", reason: "" };
      const blocks = !isWarning(error);
      return {
        ...base,
        message: error.message,
        blocking: blocks,
        ...(risk ? { risk } : {}),
        ...(blocks && accepts(acceptance, risk) ? { accepted: true } : {}),
      };
    }),
  };
}

/** The parts of the cluster the built-in preconditions read; absent objects are undefined. */
export interface PreconditionCluster {
  clusterVersion(signal: AbortSignal): Promise<ClusterVersionView | undefined>;
}

export interface ConditionView {
  readonly status: string;
  readonly reason: string;
  readonly message: string;
}

/** What the preconditions read of the ClusterVersion `version`. */
export interface ClusterVersionView {
  /** `status.desired`: the release the cluster is moving to or on (the "current target"). */
  readonly desired: { readonly version: string; readonly image: string };
  readonly upgradeable?: ConditionView;
  readonly progressing?: ConditionView;
  /** Newest first. */
  readonly history: ReadonlyArray<{ readonly state: "Completed" | "Partial"; readonly version: string; readonly image: string }>;
  readonly overridesUnmanaged: boolean;
}

/** The version the cluster is on: the newest Completed entry, else the oldest entry (CVO `GetCurrentVersion`). */
function currentVersion(cv: ClusterVersionView): string {
  return cv.history.find((h) => h.state === "Completed")?.version ?? cv.history.at(-1)?.version ?? "";
}

/** A check of the desired version against the ClusterVersion's current target. */
type VersionCheck = (cv: ClusterVersionView, current: SemVer, target: SemVer, name: string) => PreconditionError | undefined;

/**
 * The shape every ClusterVersion precondition shares upstream: no ClusterVersion passes, and so does one the check
 * does not apply to (`applies`, asked before any version is parsed); an unreadable one fails; an unparsable current
 * target is only a warning (an update is what fixes it); an unparsable desired version blocks.
 */
function clusterVersionPrecondition(
  name: string,
  risk: RiskName,
  cluster: PreconditionCluster,
  check: VersionCheck,
  applies: (cv: ClusterVersionView) => boolean = () => true,
): Precondition {
  return {
    name,
    risk,
    async run(context, signal) {
      let cv: ClusterVersionView | undefined;
      try {
        cv = await cluster.clusterVersion(signal);
      } catch (err) {
        return new PreconditionError("UnknownError", err instanceof Error ? err.message : String(err), name, err);
      }
      if (!cv || !applies(cv)) return undefined;
      const current = parseSemVer(cv.desired.version);
      if (current instanceof Error) return new PreconditionError("InvalidCurrentVersion", current.message, name, current, true);
      const target = parseSemVer(context.desiredVersion);
      if (target instanceof Error) return new PreconditionError("InvalidDesiredVersion", target.message, name, target);
      return check(cv, current, target, name);
    },
  };
}

/** "Major" or "Minor" when going from `from` to `to` changes that, else undefined (CVO `UpdateType`). */
function majorOrMinor(from: SemVer, to: SemVer): "Major" | "Minor" | undefined {
  if (from.major < to.major) return "Major";
  if (from.major === to.major && from.minor < to.minor) return "Minor";
  return undefined;
}

/**
 * Blocks minor and major moves while ClusterVersion says Upgradeable=False. Patch moves and moves back
 * pass, with a warning when overrides are set, or when a minor or major update is still in progress
 * (y-then-z, x-then-z: the retarget is an accepted risk).
 */
export function clusterVersionUpgradeable(cluster: PreconditionCluster): Precondition {
  const upgradeableFalse = (cv: ClusterVersionView): boolean => cv.upgradeable?.status === "False";
  return clusterVersionPrecondition(
    "ClusterVersionUpgradeable",
    "ClusterVersionUpgradeable",
    cluster,
    (cv, current, target, name) => {
      const up = cv.upgradeable!;
      const patchOnly = target.major === current.major && target.minor === current.minor;
      if (!patchOnly && compareSemVer(target, current) > 0) return new PreconditionError(up.reason, up.message, name);
      if (cv.overridesUnmanaged) {
        return new PreconditionError(
          "ClusterVersionOverridesSet",
          `Retarget from ${current.text} to ${target.text} is not blocked by ClusterVersionOverridesSet. But the cluster-version operator is not managing these resources; they are currently the responsibility of the agent that set the overrides: Disabling ownership via cluster version overrides prevents upgrades between minor or major versions. Please remove overrides before requesting a minor or major version update.`,
          name,
          undefined,
          true,
        );
      }
      const completed = currentVersion(cv);
      const from = completed ? parseSemVer(completed) : undefined;
      const kind = from && !(from instanceof Error) && cv.progressing?.status === "True" ? majorOrMinor(from, current) : undefined;
      if (patchOnly && kind) {
        return new PreconditionError(
          `${kind}VersionClusterUpdateInProgress`,
          `Retarget to ${target.text} while a ${kind.toLowerCase()} version update from ${completed} to ${current.text} is in progress`,
          name,
          undefined,
          true,
        );
      }
      return undefined;
    },
    upgradeableFalse,
  );
}

/** Allows moving back only to the cluster's previous version, and only within a z-stream (CVO `Rollback`). */
export function rollback(cluster: PreconditionCluster): Precondition {
  return clusterVersionPrecondition("ClusterVersionRollback", "Rollback", cluster, (cv, current, target, name) => {
    if (compareSemVer(target, current) >= 0) return undefined;
    const previous = cv.history.find((h) => h.version !== current.text || h.image !== cv.desired.image);
    const parsed = previous ? parseSemVer(previous.version) : undefined;
    if (!previous || !parsed || parsed instanceof Error) {
      return new PreconditionError(
        "LowDesiredVersion",
        `${target.text} is less than the current target ${current.text}, and the cluster has no previous Semantic Version`,
        name,
      );
    }
    if (compareSemVer(target, parsed) !== 0) {
      return new PreconditionError(
        "LowDesiredVersion",
        `${target.text} is less than the current target ${current.text}, and the only supported rollback is to the cluster's previous version ${parsed.text} (${previous.image})`,
        name,
      );
    }
    if (parsed.major === current.major && parsed.minor === current.minor) return undefined;
    return new PreconditionError(
      "LowDesiredVersion",
      `${target.text} is less than the current target ${current.text} and matches the cluster's previous version, but rollbacks that change major or minor versions are not recommended`,
      name,
    );
  });
}

/** Refuses skipping a major version or more than one minor version (CVO `GiantHop`; 4 to 5.0 is allowed, as upstream does for now). */
export function giantHop(cluster: PreconditionCluster): Precondition {
  return clusterVersionPrecondition("ClusterVersionGiantHop", "GiantHop", cluster, (_cv, current, target, name) => {
    if (target.major > current.major) {
      if (target.major === 5 && current.major === 4 && target.minor === 0) return undefined;
      const allowed = target.major === 5 && current.major === 4 ? "the current major version or to 5.0" : "the current major version";
      return new PreconditionError(
        "MajorVersionUpdate",
        `${target.text} has a larger major version than the current target ${current.text} (${target.major} > ${current.major}), and only updates within ${allowed} are supported.`,
        name,
      );
    }
    if (target.minor > current.minor + 1) {
      return new PreconditionError(
        "MultipleMinorVersionsUpdate",
        `${target.text} is more than one minor version beyond the current target ${current.text} (${target.major}.${target.minor} > ${current.major}.(${current.minor}+1)), and only updates within the current minor version or to the next minor version are supported.`,
        name,
      );
    }
    return undefined;
  });
}

/** The CVO's built-in list, in its order (its RecommendedUpdate check needs an update service; see the README). */
export function builtInPreconditions(cluster: PreconditionCluster): Precondition[] {
  return [rollback(cluster), giantHop(cluster), clusterVersionUpgradeable(cluster)];
}
