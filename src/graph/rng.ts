/**
 * Seeded randomness for graph shaping. Reconcile order is shuffled, and a seed makes that order
 * reproducible in tests and in bug reports (the CVO uses a `*rand.Rand` for the same purpose).
 */

/** The one operation the graph needs from a random source. */
export interface Rng {
  /** A uniformly distributed integer in `[0, n)`. `n` must be a positive integer no larger than 2^32. */
  intn(n: number): number;
}

const TWO_32 = 0x1_0000_0000;

/**
 * Mulberry32 (Tommy Ettinger's 32-bit generator, public domain): tiny, fast and good enough to
 * shuffle manifests. Not cryptographic. Streams differ from Go's `math/rand`, so a seed here does
 * not reproduce an upstream order.
 */
class Mulberry32 implements Rng {
  private state: number;

  constructor(seed: number) {
    this.state = seed >>> 0;
  }

  /** The next raw 32-bit output, as an unsigned number. */
  private next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let z = this.state;
    z = Math.imul(z ^ (z >>> 15), z | 1);
    z ^= z + Math.imul(z ^ (z >>> 7), z | 61);
    return (z ^ (z >>> 14)) >>> 0;
  }

  intn(n: number): number {
    if (!Number.isInteger(n) || n <= 0 || n > TWO_32) {
      throw new RangeError(`intn: n must be an integer in [1, 2^32], got ${n}`);
    }
    // Rejection sampling: drop the top partial block so every residue is equally likely.
    const limit = TWO_32 - (TWO_32 % n);
    for (;;) {
      const x = this.next();
      if (x < limit) return x % n;
    }
  }
}

/**
 * A deterministic {@link Rng} from an integer seed: the same seed always yields the same sequence.
 * Seeds wider than 32 bits (e.g. `Date.now()`) keep their high bits by folding them into the low word.
 */
export function createRng(seed: number): Rng {
  if (!Number.isSafeInteger(seed)) {
    throw new RangeError(`createRng: seed must be a safe integer, got ${seed}`);
  }
  const high = Math.floor(seed / TWO_32);
  return new Mulberry32((seed ^ high) >>> 0);
}

/** Shuffles `items` in place (Fisher–Yates, from the end), so every permutation is equally likely. */
export function shuffle<T>(items: T[], rng: Rng): void {
  for (let i = items.length - 1; i > 0; i--) {
    const j = rng.intn(i + 1);
    const tmp = items[i] as T;
    items[i] = items[j] as T;
    items[j] = tmp;
  }
}
