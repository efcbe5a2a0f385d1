/** The `q` quantile of `xs` (nearest rank, rounding down), NaN when empty: what the benchmarks report as p50 and p99. */
export const quantile = (xs: readonly number[], q: number): number => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(q * xs.length))] ?? NaN;
