/**
 * Maintenance windows: when updates may run. A window opens at each occurrence of a cron schedule in an IANA time zone
 * and stays open for a duration; `allow` windows are when updates may run (none: any time), `deny` windows are change
 * freezes that close everything while open. Schedules are computed by croner, which is zero-dependency, takes IANA
 * time zones and moves a time that a DST change skips to the first valid instant after it; RFC 5545 RRULEs are not
 * taken: the widely used rrule package returns TZID occurrences as shifted "floating" dates that would need hand
 * correction around every DST change.
 */
import { Cron } from "croner";

export interface MaintenanceWindow {
  readonly kind: "allow" | "deny";
  /** Five cron fields (minute hour day-of-month month day-of-week): when the window opens, in `timeZone`. */
  readonly cron: string;
  readonly durationMs: number;
  readonly timeZone: string;
  /** As given, for messages. */
  readonly text: string;
}

/** Whether updates may run now, why not, and when that next changes (undefined: never). */
export interface WindowState {
  readonly open: boolean;
  readonly reason: string;
  readonly changesAt?: Date;
}

const SYNTAX = '"allow|deny MIN HOUR DOM MON DOW for DURATION in TIME_ZONE", e.g. "allow 0 2 * * SAT for 4h in Europe/Berlin"';

/**
 * Parses `allow 0 2 * * SAT for 4h in Europe/Berlin` or `deny 0 0 20 12 * for 336h in UTC`; throws an Error naming
 * what is wrong (`parseDuration` reads the duration as the flags do).
 */
export function parseMaintenanceWindow(text: string, parseDuration: (text: string) => number): MaintenanceWindow {
  const match = /^\s*(allow|deny)\s+(\S+(?:\s+\S+){4})\s+for\s+(\S+)\s+in\s+(\S+)\s*$/.exec(text);
  if (!match) throw new Error(`"${text}" is not a maintenance window: expected ${SYNTAX}`);
  const [, kind, cron = "", duration = "", timeZone = ""] = match;
  try {
    new Intl.DateTimeFormat("en", { timeZone });
  } catch {
    throw new Error(`"${text}": "${timeZone}" is not an IANA time zone`);
  }
  try {
    scheduleOf(cron, timeZone);
  } catch (err) {
    throw new Error(`"${text}": "${cron}" is not a cron schedule: ${err instanceof Error ? err.message : String(err)}`);
  }
  const durationMs = parseDuration(duration);
  if (!(durationMs > 0)) throw new Error(`"${text}": the duration must be positive`);
  return { kind: kind === "deny" ? "deny" : "allow", cron, durationMs, timeZone, text: text.trim() };
}

function scheduleOf(cron: string, timeZone: string): Cron {
  return new Cron(cron, { timezone: timeZone, paused: true, mode: "5-part" });
}

/** The window's stretch that holds `at` (its latest opening at or before `at` still open), else when it next opens. */
function around(window: MaintenanceWindow, at: Date): { readonly openUntil?: Date; readonly opensAt?: Date } {
  const schedule = scheduleOf(window.cron, window.timeZone);
  let latest: Date | undefined;
  // Openings after `at - duration` are the only ones still open at `at`; the last of them at or before `at` wins.
  for (let next = schedule.nextRun(new Date(at.getTime() - window.durationMs)); next && next <= at; next = schedule.nextRun(next)) latest = next;
  if (latest) return { openUntil: new Date(latest.getTime() + window.durationMs) };
  const opensAt = schedule.nextRun(at);
  return opensAt ? { opensAt } : {};
}

const iso = (d: Date): string => d.toISOString();

/**
 * Whether updates may run at `at`: not before `notBefore`, inside an allow window when there are any, and inside no
 * deny window. `changesAt` is the next instant any of these may change (the caller looks again then).
 */
export function windowState(windows: readonly MaintenanceWindow[], at: Date, notBefore?: Date): WindowState {
  const changes: Date[] = [];
  const reasons: string[] = [];
  if (notBefore && at < notBefore) {
    reasons.push(`the update is not to start before ${iso(notBefore)} (not_before)`);
    changes.push(notBefore);
  }
  const allows = windows.filter((w) => w.kind === "allow");
  let allowed = allows.length === 0;
  for (const window of allows) {
    const { openUntil, opensAt } = around(window, at);
    if (openUntil) allowed = true;
    const change = openUntil ?? opensAt;
    if (change) changes.push(change);
  }
  if (!allowed) reasons.push("outside every maintenance window");
  for (const window of windows.filter((w) => w.kind === "deny")) {
    const { openUntil, opensAt } = around(window, at);
    if (openUntil) reasons.push(`in the change freeze "${window.text}" until ${iso(openUntil)}`);
    const change = openUntil ?? opensAt;
    if (change) changes.push(change);
  }
  const changesAt = changes.filter((d) => d > at).sort((a, b) => a.getTime() - b.getTime())[0];
  return { open: reasons.length === 0, reason: reasons.join("; "), ...(changesAt ? { changesAt } : {}) };
}

/**
 * The first instant at or after `at` when updates may run, looking up to `horizonMs` past `at` (or past `notBefore`,
 * when later); undefined: not within it.
 */
export function nextOpening(windows: readonly MaintenanceWindow[], at: Date, notBefore?: Date, horizonMs = 366 * 86_400_000): Date | undefined {
  // Nothing opens before not_before: the search starts there.
  const from = Math.max(at.getTime(), notBefore?.getTime() ?? 0);
  let t = new Date(from);
  for (let step = 0; step < 10_000 && t.getTime() - from <= horizonMs; step++) {
    const state = windowState(windows, t, notBefore);
    if (state.open) return t;
    if (!state.changesAt) return undefined;
    t = state.changesAt;
  }
  return undefined;
}
