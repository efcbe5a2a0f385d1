// Maintenance windows through the service on fake time: an update outside its window waits (the status says why and
// until when) and starts when the window opens; one running when the window closes stops at the next task boundary
// and goes on when the next opens; reconcile passes of the applied release go on outside windows unless configured;
// not_before holds an update until then.
import assert from "node:assert/strict";
import { test } from "node:test";
import { parseDuration } from "../../../src/config/index.js";
import { parseMaintenanceWindow } from "../../../src/policy/index.js";
import { configMap, payload, workerHarness } from "../../harness/worker-harness.js";

const NAMES = ["a", "b", "c", "d"];
const P1 = payload(
  "1.0.0",
  "/p1",
  NAMES.map((n) => configMap(n, `0000_50_demo_${n}.yaml`)),
);
const MINUTE = 60_000;
const TASK_MS = 25 * MINUTE;
const window = (text: string) => parseMaintenanceWindow(text, (d) => parseDuration("maintenance-window", d));

function harness(reconcileInWindowsOnly = false) {
  // The clock starts at 2026-01-01T00:00:00Z; the window is 02:00 to 03:00 UTC every day.
  const h = workerHarness({
    payloads: [P1],
    maxWorkers: 1,
    reconcileMs: 60 * MINUTE,
    maintenanceWindows: [window("allow 0 2 * * * for 1h in UTC")],
    reconcileInWindowsOnly,
  });
  for (const name of NAMES) h.applier.scripts.set(name, (_a, _m, signal) => h.clock.sleep(TASK_MS, signal));
  return { ...h, worker: () => h.service.latest().value.worker, calls: () => h.applier.calls.map((c) => c.name).join("") };
}

test("outside its window an update waits, saying until when; a window closing stops it at a task boundary until the next", async () => {
  const h = harness();
  const held = await h.update("/p1", { state: "Updating" });
  assert.deepEqual(held.maintenance, { reason: "outside every maintenance window", until: new Date("2026-01-01T02:00:00Z") });
  await h.clock.advance(2 * 60 * MINUTE - 1);
  assert.equal(h.calls(), "", "nothing applied before the window");

  await h.clock.advance(1); // 02:00: a, then b, then c (still running at 03:00, when the window closes)
  assert.equal(h.worker().maintenance, undefined);
  await h.clock.advance(60 * MINUTE);
  assert.equal(h.calls(), "abc");
  assert.deepEqual(h.worker().maintenance, { reason: "outside every maintenance window", until: new Date("2026-01-02T02:00:00Z") });
  await h.clock.advance(20 * 60 * MINUTE); // c finished at 03:15; d waits for the next window
  assert.equal(h.calls(), "abc");
  assert.equal(h.worker().done, 3);
  assert.equal(h.worker().failure, undefined, "the pass's own deadline did not run while held");

  await h.clock.advance(3.5 * 60 * MINUTE); // 2 January, 02:00 to 02:25: d
  assert.equal(h.calls(), "abcd");
  assert.equal(h.history()[0]?.state, "Completed");
  assert.equal(h.worker().maintenance, undefined);

  await h.clock.advance(5 * 60 * MINUTE); // reconcile passes of the applied release go on outside the window
  assert.ok(h.applier.calls.length > 4, "a reconcile pass ran outside the window");
  assert.equal(h.worker().maintenance, undefined);
  await h.stop();
});

test("with --maintenance-window-reconcile, reconcile passes wait for a window too", async () => {
  const h = harness(true);
  await h.update("/p1", { state: "Updating" });
  await h.clock.advance(4 * 60 * MINUTE); // 02:00 to 03:00: a and b and c; d waits to the next day
  await h.clock.advance(24 * 60 * MINUTE);
  assert.equal(h.history()[0]?.state, "Completed");
  const applied = h.applier.calls.length;
  await h.clock.advance(10 * 60 * MINUTE); // to 2 January 13:40: no window
  assert.equal(h.applier.calls.length, applied, "no reconcile pass outside the window");
  assert.match(h.worker().maintenance?.reason ?? "", /outside every maintenance window/);
  await h.stop();
});

test("not_before holds an update until then", async () => {
  const h = workerHarness({ payloads: [P1], maxWorkers: 1, reconcileMs: 60 * MINUTE });
  for (const name of NAMES) h.applier.scripts.set(name, (_a, _m, signal) => h.clock.sleep(MINUTE, signal));
  const notBefore = new Date("2026-01-01T06:00:00Z");
  const held = await h.update("/p1", { state: "Updating", notBefore });
  assert.deepEqual(held.maintenance, { reason: "the update is not to start before 2026-01-01T06:00:00.000Z (not_before)", until: notBefore });
  await h.clock.advance(6 * 60 * MINUTE - 1);
  assert.equal(h.applier.calls.length, 0);
  await h.clock.advance(10 * MINUTE);
  assert.equal(h.history()[0]?.state, "Completed");
  assert.equal(h.service.latest().value.worker.maintenance, undefined);
  await h.stop();
});

test("across the spring-forward night in Europe/Berlin the 02:00 window, which does not exist that night, opens at 03:00 CEST", async () => {
  const h = workerHarness({ payloads: [P1], maxWorkers: 1, reconcileMs: 60 * MINUTE, maintenanceWindows: [window("allow 0 2 * * * for 1h in Europe/Berlin")] });
  for (const name of NAMES) h.applier.scripts.set(name, (_a, _m, signal) => h.clock.sleep(MINUTE, signal));
  await h.clock.advance(new Date("2026-03-28T12:00:00Z").getTime() - h.clock.now().getTime());
  const held = await h.update("/p1", { state: "Updating" });
  assert.deepEqual(held.maintenance?.until, new Date("2026-03-29T01:00:00Z"));
  await h.clock.advance(new Date("2026-03-29T01:00:00Z").getTime() - h.clock.now().getTime() - 1);
  assert.equal(h.applier.calls.length, 0);
  await h.clock.advance(10 * MINUTE);
  assert.equal(h.history()[0]?.state, "Completed");
  await h.stop();
});
