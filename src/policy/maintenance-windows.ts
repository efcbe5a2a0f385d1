/**
 * Maintenance windows: when updates may run. A window opens at each occurrence of a cron schedule in an IANA time zone
 * and stays open for a duration; `allow` windows are when updates may run (none: any time), `deny` windows are change
 * freezes that close everything while open. Schedules are computed by croner, which is zero-dependency, takes IANA
 * time zones and moves a time that a DST change skips to the first valid instant after it. An RFC 5545 RRULE is taken
 * too, as far as a cron schedule says the same (FREQ with BYMONTH, BYMONTHDAY, BYDAY, BYHOUR, BYMINUTE), and run by
 * croner: the widely used rrule package returns TZID occurrences as shifted "floating" dates that would need hand
 * correction around every DST change, and a rule croner cannot say is refused naming the part.
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

const SYNTAX =
  '"allow|deny MIN HOUR DOM MON DOW for DURATION in TIME_ZONE" or "allow|deny RRULE:… for DURATION in TIME_ZONE", e.g. "allow 0 2 * * SAT for 4h in Europe/Berlin" or "allow RRULE:FREQ=WEEKLY;BYDAY=SA;BYHOUR=2 for 4h in Europe/Berlin"';

/**
 * Parses `allow 0 2 * * SAT for 4h in Europe/Berlin` or `deny 0 0 20 12 * for 336h in UTC`; throws an Error naming
 * what is wrong (`parseDuration` reads the duration as the flags do).
 */
export function parseMaintenanceWindow(text: string, parseDuration: (text: string) => number): MaintenanceWindow {
  const match = /^\s*(allow|deny)\s+(RRULE:\S+|\S+(?:\s+\S+){4})\s+for\s+(\S+)\s+in\s+(\S+)\s*$/i.exec(text);
  if (!match) throw new Error(`"${text}" is not a maintenance window: expected ${SYNTAX}`);
  const [, kind, schedule = "", duration = "", timeZone = ""] = match;
  let cron = schedule;
  if (/^RRULE:/i.test(schedule)) {
    try {
      cron = cronOfRrule(schedule.slice("RRULE:".length));
    } catch (err) {
      throw new Error(`"${text}": ${err instanceof Error ? err.message : String(err)}`);
    }
  }
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
  return { kind: kind?.toLowerCase() === "deny" ? "deny" : "allow", cron, durationMs, timeZone, text: text.trim() };
}

const WEEKDAYS = ["SU", "MO", "TU", "WE", "TH", "FR", "SA"] as const;

/**
 * The cron schedule of an RFC 5545 recurrence rule, for the rules a cron schedule can say: FREQ=DAILY, WEEKLY,
 * MONTHLY or YEARLY (INTERVAL=1), with BYMONTH, BYMONTHDAY (1–31), BYDAY (weekdays without an ordinal), BYHOUR and
 * BYMINUTE (default 0). There is no DTSTART, so BYHOUR is required and the rule's frequency must be pinned by its BY
 * parts. Anything else is refused naming the part: COUNT, UNTIL, an INTERVAL over 1, BYSETPOS, an ordinal BYDAY, and
 * BYMONTHDAY with BYDAY (RRULE wants both, cron either).
 */
export function cronOfRrule(rule: string): string {
  const parts = new Map<string, string>();
  for (const part of rule.split(";").filter(Boolean)) {
    const [key = "", value = ""] = part.split("=");
    if (!value) throw new Error(`RRULE part "${part}" has no value`);
    parts.set(key.toUpperCase(), value.toUpperCase());
  }
  const take = (key: string): string | undefined => {
    const value = parts.get(key);
    parts.delete(key);
    return value;
  };
  const numbers = (key: string, min: number, max: number): string | undefined => {
    const value = take(key);
    if (value === undefined) return undefined;
    for (const n of value.split(",")) {
      if (!/^\d+$/.test(n) || Number(n) < min || Number(n) > max) throw new Error(`RRULE ${key}=${value}: each value must be ${min}–${max}`);
    }
    return value;
  };
  const freq = take("FREQ");
  if (!freq || !["DAILY", "WEEKLY", "MONTHLY", "YEARLY"].includes(freq))
    throw new Error(`RRULE FREQ must be DAILY, WEEKLY, MONTHLY or YEARLY, not ${freq ?? "absent"}`);
  const interval = take("INTERVAL");
  if (interval !== undefined && interval !== "1") throw new Error(`RRULE INTERVAL=${interval} cannot be said by a cron schedule; only 1 is taken`);
  take("WKST"); // Only matters with INTERVAL over 1 or BYWEEKNO, neither of which is taken.
  const minute = numbers("BYMINUTE", 0, 59) ?? "0";
  const hour = numbers("BYHOUR", 0, 23);
  if (hour === undefined) throw new Error("RRULE needs BYHOUR: without a DTSTART nothing else says when the window opens");
  const month = numbers("BYMONTH", 1, 12);
  const monthDay = numbers("BYMONTHDAY", 1, 31);
  const byDay = take("BYDAY");
  const days = byDay?.split(",").map((d) => {
    const index = WEEKDAYS.indexOf(d as (typeof WEEKDAYS)[number]);
    if (index < 0) throw new Error(`RRULE BYDAY=${byDay}: each day must be one of ${WEEKDAYS.join(", ")}, without an ordinal`);
    return index;
  });
  const rest = [...parts.keys()];
  if (rest.length > 0)
    throw new Error(`RRULE ${rest.join(", ")} cannot be said by a cron schedule (taken: FREQ, INTERVAL=1, BYMONTH, BYMONTHDAY, BYDAY, BYHOUR, BYMINUTE)`);
  if (monthDay !== undefined && days) throw new Error("RRULE with both BYMONTHDAY and BYDAY cannot be said by a cron schedule (cron takes either day)");
  if (freq === "WEEKLY" && !days) throw new Error("RRULE FREQ=WEEKLY needs BYDAY: without a DTSTART nothing else says which day");
  if (freq === "MONTHLY" && monthDay === undefined && !days) throw new Error("RRULE FREQ=MONTHLY needs BYMONTHDAY or BYDAY");
  if (freq === "YEARLY" && (month === undefined || (monthDay === undefined && !days)))
    throw new Error("RRULE FREQ=YEARLY needs BYMONTH and BYMONTHDAY or BYDAY");
  return `${minute} ${hour} ${monthDay ?? "*"} ${month ?? "*"} ${days?.join(",") ?? "*"}`;
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
