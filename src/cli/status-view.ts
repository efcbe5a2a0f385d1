/**
 * `syncworker status` for people, in the manner of `oc adm upgrade`: the headline, then one labelled line per
 * question an operator asks (which release runs, which is wanted, how far along, what blocks and since when, how long
 * is left, paused or not, what failed last), then the head of the history. Pure: the time is a parameter.
 */
import { ComponentState, type SyncWorkerStatus } from "@syncworker/client";
import { percentComplete } from "../status/index.js";
import { headline, isInstallWait } from "./headline.js";
import { componentLine, etaText, formatDuration } from "./progress-view.js";

/** History entries shown; the rest are in `-o json`. */
export const HISTORY_SHOWN = 5;

type History = SyncWorkerStatus["history"][number];

/** An instant to the second, in UTC: what `oc` prints. */
export const instant = (d: Date): string => d.toISOString().replace(/\.\d{3}Z$/, "Z");

const release = (version: string, image: string): string => (version ? `${version} (${image})` : image);

const conditionOf = (status: SyncWorkerStatus, type: string): SyncWorkerStatus["conditions"][number] | undefined =>
  status.conditions.find((c) => c.type === type);

/** What the worker is doing, in a few words; the first state that applies wins. */
export function stateText(status: SyncWorkerStatus): string {
  const load = status.loadPayloadStatus;
  if (status.pause?.paused) return "Paused";
  if (status.maintenance) return `Waiting: ${status.maintenance.reason}${status.maintenance.until ? `, until ${instant(status.maintenance.until)}` : ""}`;
  if (load?.failure) return `Release not accepted (${load.step} failed)`;
  if (load?.step && load.step !== "PayloadLoaded") return `Loading the release (${load.step})`;
  if (!status.actual?.image) return "Waiting for an update";
  if (isInstallWait(status)) return "Installing, waiting for operators to become available";
  if (conditionOf(status, "Failing")?.status === "True") return "Failing";
  if (status.reconciling) return "Applied, reconciling";
  return status.initial ? "Installing" : "Updating";
}

function blockers(status: SyncWorkerStatus, now: Date): string[] {
  const stuck = status.components.filter((c) => c.state === ComponentState.COMPONENT_STATE_WAITING || c.state === ComponentState.COMPONENT_STATE_FAILED);
  return stuck.map((c) => `${componentLine(c, now).trim()}${c.waitingSince ? `, since ${instant(c.waitingSince)}` : ""}`);
}

function pauseText(status: SyncWorkerStatus, now: Date): string {
  const pause = status.pause;
  if (!pause?.paused) return "no";
  const since = pause.pausedAt ? ` since ${instant(pause.pausedAt)} (${formatDuration(now.getTime() - pause.pausedAt.getTime())})` : "";
  return `yes, by ${pause.pausedBy}${since}${pause.reason ? `: ${pause.reason}` : ""}${pause.updatePending ? "; an Update waits for the resume" : ""}`;
}

function lastFailure(status: SyncWorkerStatus): string {
  const load = status.loadPayloadStatus;
  if (load?.failure) return `${load.failure.reason} at ${load.step}: ${load.failure.message}`;
  const failing = conditionOf(status, "Failing");
  // An install's operators coming up (see headline.ts) and an update's waits (Failing False) are waits, not failures:
  // "Blocked by" shows them.
  if (!status.failure || isInstallWait(status) || failing?.status === "False") return "none";
  const since = failing?.status === "True" && failing.lastTransitionTime ? ` (since ${instant(failing.lastTransitionTime)})` : "";
  return `${status.failure.reason}: ${status.failure.message}${since}`;
}

function historyLine(h: History): string {
  const span = `${h.startedTime ? instant(h.startedTime) : "?"} → ${h.completionTime ? instant(h.completionTime) : "…"}`;
  return `  ${h.state.padEnd(9)} ${(h.version || "-").padEnd(12)} ${span}  ${h.image}${h.verified ? "" : " (not verified)"}${h.rollback ? " (rollback)" : ""}`;
}

/** The summary's lines for a snapshot at `now`. */
export function statusLines(status: SyncWorkerStatus, now: Date): string[] {
  const completed = status.history.find((h) => h.state === "Completed");
  const desired = status.loadPayloadStatus?.update;
  const wanted = desired?.image ? desired : status.actual;
  const label = (name: string, value: string): string => `${`${name}:`.padEnd(17)}${value}`;
  const [firstBlocker = "nothing", ...moreBlockers] = blockers(status, now);
  const lines = [
    headline(status),
    "",
    label("Current release", completed ? release(completed.version, completed.image) : "none completely applied yet"),
    label("Desired release", wanted?.image ? release(wanted.version, wanted.image) : "none"),
    label("State", stateText(status)),
    label("Progress", status.total > 0 ? `${status.done}/${status.total} manifests (${percentComplete(status.done, status.total)}%)` : "-"),
    label("Blocked by", firstBlocker),
    ...moreBlockers.map((b) => `${" ".repeat(17)}${b}`),
    label("ETA", etaText(status, now) ?? "-"),
    label("Paused", pauseText(status, now)),
    label("Last failure", lastFailure(status)),
    "History:",
  ];
  if (status.history.length === 0) lines.push("  none");
  lines.push(...status.history.slice(0, HISTORY_SHOWN).map(historyLine));
  if (status.history.length > HISTORY_SHOWN) lines.push(`  … and ${status.history.length - HISTORY_SHOWN} more (-o yaml shows them)`);
  return lines;
}
