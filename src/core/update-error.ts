import { brandError } from "./errors.js";

/**
 * How an error affects overall progress (CVO `UpdateEffectType`). The empty string means "unset",
 * which the status derivation treats like `Fail`.
 */
export const UPDATE_EFFECTS = ["Report", "None", "FailAfterInterval", "Fail", ""] as const;
export type UpdateEffect = (typeof UPDATE_EFFECTS)[number];

/** Anything that can name the task that failed; kept structural so payload stays below graph. */
export interface TaskLike {
  readonly index: number;
  readonly total: number;
  toString(): string;
}

export interface UpdateErrorInit {
  reason: string;
  message: string;
  effect?: UpdateEffect;
  pluralReason?: string;
  pluralMessageFormat?: string;
  name?: string;
  names?: readonly string[];
  task?: TaskLike;
  cause?: unknown;
}

/**
 * The structured error used throughout the worker (CVO `payload.UpdateError`): a machine reason, a
 * human message (which is also `toString()`), and the error policy as data in `effect`.
 */
export class UpdateError extends Error {
  readonly reason: string;
  readonly effect: UpdateEffect;
  readonly pluralReason: string;
  readonly pluralMessageFormat: string;
  /** Object name, or the joined names after condensation. */
  readonly objectName: string;
  readonly names: readonly string[];
  task: TaskLike | undefined;

  constructor(init: UpdateErrorInit) {
    super(init.message, init.cause === undefined ? undefined : { cause: init.cause });
    this.name = "UpdateError";
    this.reason = init.reason;
    this.effect = init.effect ?? "";
    this.pluralReason = init.pluralReason ?? "";
    this.pluralMessageFormat = init.pluralMessageFormat ?? "";
    this.objectName = init.name ?? "";
    this.names = init.names ?? [];
    this.task = init.task;
  }

  static {
    brandError(this, "UpdateError");
  }

  override toString(): string {
    return this.message;
  }
}

/**
 * Reasons an install reports while operators have not come up yet. Upstream's Initializing mode reports them as a
 * failed pass; for whoever reads the status they are the install's wait, not a failure.
 */
export const INSTALL_WAIT_REASONS: ReadonlySet<string> = new Set(["ClusterOperatorNotAvailable", "ClusterOperatorsNotAvailable"]);
