import { brandError } from "../core/index.js";
import type { SyncWorkerStatus } from "./shapes.js";

/**
 * Why a CancelUpdate is refused: the release's apply started (`ApplyStarted`), nothing is pending (`NothingToCancel`),
 * there is no release to go back to (`NoPreviousRelease`), or a rollback cannot be made (`NoCompletedRelease`,
 * `RollbackAcrossMinor`).
 */
export type CancelRefusal = "ApplyStarted" | "NothingToCancel" | "NoPreviousRelease" | "NoCompletedRelease" | "RollbackAcrossMinor";

/** A CancelUpdate that contradicts where the update stands; the message says what was applied or what is missing. */
export class CancelUpdateError extends Error {
  constructor(
    readonly reason: CancelRefusal,
    message: string,
  ) {
    super(message);
    this.name = "CancelUpdateError";
  }
  static {
    brandError(this, "CancelUpdateError");
  }
}

/** What a cancel drops: an Update the worker refused or is still loading, or an accepted one none of whose manifests was applied. */
export type CancelPlan = { readonly kind: "refused"; readonly image: string } | { readonly kind: "accepted"; readonly image: string };

/** "12 of 23 manifests (4 of 9 components done)": what a pass of the release shown applied. */
export function appliedText(status: SyncWorkerStatus): string {
  const done = status.components.filter((c) => c.state === "Done").length;
  const components = status.components.length > 0 ? ` (${done} of ${status.components.length} components done)` : "";
  return `${status.done} of ${status.total} manifests${components}`;
}
