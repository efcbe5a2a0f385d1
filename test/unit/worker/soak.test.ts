// Soak: random sequences of updates, notifications, failures and cancellations against the worker on
// fake time. Nothing escapes, generation never decreases, the loop ends on the latest desired update,
// and stopping leaves no timer behind.
import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import { UpdateError } from "../../../src/core/index.js";
import { configMap, payload, workerHarness } from "../../harness/worker-harness.js";

const IMAGES = ["img:0", "img:1", "img:2"];
const NAMES = ["a", "b", "c", "d"];
const payloads = IMAGES.map((image, i) =>
  payload(
    `1.0.${i}`,
    image,
    NAMES.map((n) => configMap(n, `0000_${10 + NAMES.indexOf(n) * 10}_${n}_file`)),
  ),
);

type Op =
  | { kind: "update"; image: number; force: boolean }
  | { kind: "notify" }
  | { kind: "fail"; name: number; how: "plain" | "update-error" | "block" }
  | { kind: "heal" }
  | { kind: "advance"; ms: number };

const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ kind: fc.constant("update" as const), image: fc.integer({ min: 0, max: IMAGES.length }), force: fc.boolean() }),
  fc.record({ kind: fc.constant("notify" as const) }),
  fc.record({
    kind: fc.constant("fail" as const),
    name: fc.integer({ min: 0, max: NAMES.length - 1 }),
    how: fc.constantFrom("plain" as const, "update-error" as const, "block" as const),
  }),
  fc.record({ kind: fc.constant("heal" as const) }),
  fc.record({ kind: fc.constant("advance" as const), ms: fc.integer({ min: 0, max: 2000 }) }),
);

test("soak: random sequences keep the worker's invariants", { timeout: 600_000 }, async () => {
  const runs = Number(process.env["SOAK_RUNS"] ?? 10_000);
  await fc.assert(
    fc.asyncProperty(fc.array(op, { maxLength: 12 }), fc.integer({ min: 0, max: IMAGES.length - 1 }), async (ops, finalImage) => {
      const h = workerHarness({ payloads, reconcileMs: 400, maxWorkers: 2 });
      let generation = 0;
      await h.start();
      for (const o of ops) {
        switch (o.kind) {
          case "update":
            // Index IMAGES.length asks for a payload that does not exist: a failed load.
            // Updating: an Initializing worker ignores version changes by design (scenario 26).
            await h.update(IMAGES[o.image] ?? "img:missing", { generation: ++generation, force: o.force, state: "Updating" });
            break;
          case "notify":
            h.service.notify("activity");
            break;
          case "fail":
            h.applier.scripts.set(NAMES[o.name]!, (_attempt, _mode, signal) => {
              if (o.how === "plain") throw new Error("injected");
              if (o.how === "update-error") throw new UpdateError({ reason: "Injected", message: "injected", effect: "None" });
              return new Promise<void>((_, reject) => signal.addEventListener("abort", () => reject(new Error("aborted")), { once: true }));
            });
            break;
          case "heal":
            h.applier.scripts.clear();
            break;
          case "advance":
            await h.clock.advance(o.ms);
            break;
        }
      }
      h.applier.scripts.clear();
      const image = IMAGES[finalImage]!;
      await h.update(image, { generation: ++generation, state: "Updating" });
      // Long enough for any backoff (at most the reconcile interval) and a full pass.
      for (let i = 0; i < 6 && !(h.last().actual.image === image && h.last().completed > 0 && !h.last().failure); i++) await h.clock.advance(400);

      const last = h.last();
      assert.equal(last.actual.image, image, "the loop ends on the latest desired update");
      assert.ok(last.completed > 0 && !last.failure, `the latest update completes: ${last.failure?.message ?? ""}`);
      const generations = h.statuses.map((s) => s.generation).filter((g) => g > 0);
      assert.deepEqual(
        generations,
        [...generations].sort((a, b) => a - b),
        "generation never decreases",
      );
      await h.stop();
      assert.equal(h.clock.pending, 0, "no timer is left behind after stop");
    }),
    { numRuns: runs, timeout: 5_000 },
  );
});
