import { equalCapabilities, equalOverrides, NO_CAPABILITIES } from "../policy/index.js";
import { NO_UPDATE } from "./types.js";
import type { DesiredUpdate, SyncWork } from "./types.js";

/** The same update: image and force (a version alone does not make another update). */
export function equalUpdate(a: DesiredUpdate, b: DesiredUpdate): boolean {
  return a.force === b.force && a.image === b.image;
}

/** Whether the two works' desired updates, overrides and capabilities are equal, in that order. */
export function compareWork(a: SyncWork | undefined, b: SyncWork | undefined): [boolean, boolean, boolean] {
  if (a === b) return [true, true, true];
  if (!a || !b) return [false, false, false];
  return [equalUpdate(a.desired, b.desired), equalOverrides(a.overrides, b.overrides), equalCapabilities(a.capabilities, b.capabilities)];
}

export function emptyWork(): SyncWork {
  return { generation: 0, desired: NO_UPDATE, overrides: [], state: "Updating", completed: 0, attempt: 0, capabilities: NO_CAPABILITIES };
}

/** Copies the desired work `current` into the loop's own `work` (CVO `calculateNext`); true when it changed. */
export function calculateNext(work: SyncWork, current: SyncWork | undefined, log: { info(msg: string): void }): boolean {
  if (!current) return false;
  const [sameVersion, sameOverrides, sameCaps] = compareWork(work, current);
  const changed = !sameVersion || !sameOverrides || !sameCaps;
  if (!work.desired.image) {
    work.state = current.state;
    work.attempt = 0;
  } else if (changed && work.state !== "Initializing") {
    log.info(`Work changed, transitioning from ${work.state} to Updating`);
    work.state = "Updating";
    work.attempt = 0;
  }
  work.desired = current.desired;
  work.overrides = current.overrides;
  work.capabilities = current.capabilities;
  work.generation = current.generation;
  work.cause = current.cause;
  return changed;
}
