import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { createRng, shuffle } from "../../../src/graph/index.js";

describe("createRng", () => {
  test("is deterministic per seed", () => {
    const draw = (seed: number): number[] => {
      const rng = createRng(seed);
      return Array.from({ length: 20 }, () => rng.intn(1000));
    };
    assert.deepEqual(draw(123), draw(123));
    assert.notDeepEqual(draw(123), draw(124));
  });

  test("high seed bits matter", () => {
    const first = (seed: number): number => createRng(seed).intn(2 ** 32);
    assert.notEqual(first(1), first(1 + 2 ** 32));
  });

  test("intn stays in range and covers it", () => {
    const rng = createRng(9);
    const seen = new Set<number>();
    for (let k = 0; k < 2000; k++) {
      const v = rng.intn(7);
      assert.ok(Number.isInteger(v) && v >= 0 && v < 7, `out of range: ${v}`);
      seen.add(v);
    }
    assert.equal(seen.size, 7);
    assert.equal(rng.intn(1), 0);
  });

  test("rejects bad arguments", () => {
    const rng = createRng(0);
    for (const n of [0, -1, 1.5, Number.NaN, 2 ** 32 + 1]) {
      assert.throws(() => rng.intn(n), RangeError);
    }
    assert.throws(() => createRng(0.5), RangeError);
    assert.throws(() => createRng(Number.MAX_VALUE), RangeError);
  });
});

describe("shuffle", () => {
  test("is a permutation and reproducible", () => {
    const base = Array.from({ length: 50 }, (_, i) => i);
    const a = [...base];
    const b = [...base];
    shuffle(a, createRng(5));
    shuffle(b, createRng(5));
    assert.deepEqual(a, b);
    assert.notDeepEqual(a, base);
    assert.deepEqual(
      [...a].sort((x, y) => x - y),
      base,
    );
  });

  test("every position is reachable (roughly uniform first element)", () => {
    const rng = createRng(77);
    const counts = [0, 0, 0, 0];
    for (let k = 0; k < 4000; k++) {
      const arr = [0, 1, 2, 3];
      shuffle(arr, rng);
      counts[arr[0] ?? 0]! += 1;
    }
    for (const c of counts) assert.ok(c > 850 && c < 1150, `skewed counts ${counts.join(",")}`);
  });

  test("empty and single-element arrays are untouched", () => {
    const empty: number[] = [];
    const one = [1];
    shuffle(empty, createRng(1));
    shuffle(one, createRng(1));
    assert.deepEqual(empty, []);
    assert.deepEqual(one, [1]);
  });
});
