import assert from "node:assert/strict";
import { test } from "node:test";
import { parseDuration } from "../../../src/config/index.js";
import { nextOpening, parseMaintenanceWindow, windowState } from "../../../src/policy/index.js";

const parse = (text: string) => parseMaintenanceWindow(text, (d) => parseDuration("maintenance-window", d));
const at = (iso: string) => new Date(iso);

test("a window is parsed from its words; each wrong part is named", () => {
  assert.deepEqual(parse("allow 0 2 * * SAT for 4h in Europe/Berlin"), {
    kind: "allow",
    cron: "0 2 * * SAT",
    durationMs: 4 * 3_600_000,
    timeZone: "Europe/Berlin",
    text: "allow 0 2 * * SAT for 4h in Europe/Berlin",
  });
  assert.throws(() => parse("sometimes"), /"sometimes" is not a maintenance window: expected "allow\|deny MIN HOUR DOM MON DOW for DURATION in TIME_ZONE"/);
  assert.throws(() => parse("allow 0 2 * * SAT for 4h in Mars/Olympus"), /"Mars\/Olympus" is not an IANA time zone/);
  assert.throws(() => parse("allow 0 25 * * SAT for 4h in UTC"), /"0 25 \* \* SAT" is not a cron schedule/);
  assert.throws(() => parse("deny 0 2 * * SAT for soon in UTC"), /"soon" is not a duration/);
});

test("an RFC 5545 RRULE is taken as far as a cron schedule says the same; anything else is refused naming the part", () => {
  const weekly = parse("allow RRULE:FREQ=WEEKLY;BYDAY=SA,SU;BYHOUR=2;BYMINUTE=30 for 4h in Europe/Berlin");
  assert.deepEqual([weekly.cron, weekly.text], ["30 2 * * 6,0", "allow RRULE:FREQ=WEEKLY;BYDAY=SA,SU;BYHOUR=2;BYMINUTE=30 for 4h in Europe/Berlin"]);
  const freeze = parse("DENY RRULE:FREQ=YEARLY;BYMONTH=12;BYMONTHDAY=24;BYHOUR=0 for 72h in UTC");
  assert.deepEqual([freeze.kind, freeze.cron], ["deny", "0 0 24 12 *"]);
  assert.equal(parse("allow rrule:freq=monthly;bymonthday=1,15;byhour=22;wkst=MO for 2h in UTC").cron, "0 22 1,15 * *");
  const same = (a: string, b: string, when: string) => assert.deepEqual(windowState([parse(a)], at(when)), windowState([parse(b)], at(when)), when);
  for (const when of ["2026-06-06T00:10:00Z", "2026-06-06T03:00:00Z", "2026-06-08T12:00:00Z"]) {
    same("allow RRULE:FREQ=WEEKLY;BYDAY=SA;BYHOUR=2 for 4h in Europe/Berlin", "allow 0 2 * * SAT for 4h in Europe/Berlin", when);
  }
  for (const [rule, why] of [
    ["FREQ=WEEKLY;BYDAY=SA;BYHOUR=2;INTERVAL=2", /INTERVAL=2 cannot be said by a cron schedule/],
    ["FREQ=MONTHLY;BYDAY=1SA;BYHOUR=2", /BYDAY=1SA: each day must be one of SU, MO, TU, WE, TH, FR, SA, without an ordinal/],
    ["FREQ=DAILY;BYHOUR=2;COUNT=3", /COUNT cannot be said by a cron schedule/],
    ["FREQ=WEEKLY;BYDAY=SA", /needs BYHOUR/],
    ["FREQ=WEEKLY;BYHOUR=2", /FREQ=WEEKLY needs BYDAY/],
    ["FREQ=HOURLY;BYHOUR=2", /FREQ must be DAILY, WEEKLY, MONTHLY or YEARLY, not HOURLY/],
    ["FREQ=MONTHLY;BYMONTHDAY=13;BYDAY=FR;BYHOUR=0", /both BYMONTHDAY and BYDAY/],
    ["FREQ=DAILY;BYHOUR=24", /BYHOUR=24: each value must be 0–23/],
  ] as const) {
    assert.throws(() => parse(`allow RRULE:${rule} for 1h in UTC`), why, rule);
  }
});

test("inside an allow window updates may run until it closes; outside, they wait until the next opening", () => {
  const windows = [parse("allow 0 2 * * * for 2h in UTC")];
  assert.deepEqual(windowState(windows, at("2026-06-01T03:00:00Z")), { open: true, reason: "", changesAt: at("2026-06-01T04:00:00Z") });
  const closed = windowState(windows, at("2026-06-01T05:00:00Z"));
  assert.equal(closed.open, false);
  assert.equal(closed.reason, "outside every maintenance window");
  assert.deepEqual(closed.changesAt, at("2026-06-02T02:00:00Z"));
  assert.deepEqual(windowState([], at("2026-06-01T05:00:00Z")), { open: true, reason: "" }, "no window: any time");
});

test("a deny window (a change freeze) closes an allow window while it lasts, naming itself", () => {
  const windows = [parse("allow 0 * * * * for 30m in UTC"), parse("deny 0 0 24 12 * for 72h in UTC")];
  const frozen = windowState(windows, at("2026-12-25T10:10:00Z"));
  assert.equal(frozen.open, false);
  assert.equal(frozen.reason, 'in the change freeze "deny 0 0 24 12 * for 72h in UTC" until 2026-12-27T00:00:00.000Z');
  assert.deepEqual(nextOpening(windows, at("2026-12-25T10:10:00Z")), at("2026-12-27T00:00:00Z"));
  assert.equal(windowState(windows, at("2026-12-28T10:10:00Z")).open, true);
});

test("not_before holds an update until then, whatever the windows say, however far ahead", () => {
  const freeze = [parse("deny 0 0 24 12 * for 72h in Europe/Berlin"), parse("allow * * * * * for 1m in UTC")];
  assert.deepEqual(nextOpening(freeze, at("2026-06-01T00:00:00Z"), at("2099-12-24T22:00:00Z")), at("2099-12-26T23:00:00Z"));
  const state = windowState([], at("2026-06-01T00:00:00Z"), at("2026-06-01T06:00:00Z"));
  assert.deepEqual(state, {
    open: false,
    reason: "the update is not to start before 2026-06-01T06:00:00.000Z (not_before)",
    changesAt: at("2026-06-01T06:00:00Z"),
  });
  assert.deepEqual(nextOpening([parse("allow 0 8 * * * for 1h in UTC")], at("2026-06-01T00:00:00Z"), at("2026-06-01T09:30:00Z")), at("2026-06-02T08:00:00Z"));
});

for (const schedule of ["0 2 * * *", "RRULE:FREQ=DAILY;BYHOUR=2;BYMINUTE=0"]) {
  test(`across DST changes in Europe/Berlin a 02:00 window (${schedule}) keeps its wall-clock time; the skipped hour opens at 03:00`, () => {
    const windows = [parse(`allow ${schedule} for 1h in Europe/Berlin`)];
    // Winter (CET, UTC+1), then the spring-forward night (02:00 does not exist: 03:00 CEST), then summer (UTC+2).
    assert.deepEqual(nextOpening(windows, at("2026-03-27T12:00:00Z")), at("2026-03-28T01:00:00Z"));
    assert.deepEqual(nextOpening(windows, at("2026-03-28T12:00:00Z")), at("2026-03-29T01:00:00Z"));
    assert.deepEqual(nextOpening(windows, at("2026-03-29T12:00:00Z")), at("2026-03-30T00:00:00Z"));
    // Autumn: the night of 25 October has 02:00 twice; the window opens once, then winter time again.
    assert.deepEqual(nextOpening(windows, at("2026-10-24T12:00:00Z")), at("2026-10-25T00:00:00Z"));
    assert.deepEqual(nextOpening(windows, at("2026-10-25T12:00:00Z")), at("2026-10-26T01:00:00Z"));
    assert.equal(windowState(windows, at("2026-03-30T00:30:00Z")).open, true, "02:30 CEST is inside");
    assert.equal(windowState(windows, at("2026-03-30T01:30:00Z")).open, false, "03:30 CEST is outside");
  });
}
