import { describe, test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
// Not part of the graph's public surface; runGraph's lowest-index-first contract rests on it.
import { MinHeap } from "../../../src/graph/min-heap.js";

describe("MinHeap", () => {
  test("pops the smallest value first, whatever the interleaving of pushes and pops", () => {
    // `null` = pop, a number = push.
    const opsArb = fc.array(fc.option(fc.integer({ min: -50, max: 50 }), { freq: 3 }), { maxLength: 200 });
    fc.assert(
      fc.property(opsArb, (ops) => {
        const heap = new MinHeap();
        const model: number[] = [];
        for (const op of ops) {
          if (op === null) {
            model.sort((a, b) => a - b);
            assert.equal(heap.pop(), model.shift());
          } else {
            heap.push(op);
            model.push(op);
          }
          assert.equal(heap.size, model.length);
        }
      }),
      { numRuns: 300 },
    );
  });

  test("an empty heap pops undefined", () => {
    assert.equal(new MinHeap().pop(), undefined);
  });
});
