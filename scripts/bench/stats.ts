/** Figures shared by the benchmark scripts. */

/**
 * The `p`-th percentile (0–100) of `values` by the nearest-rank method on a sorted copy; NaN when empty.
 * Used by `npm run bench`, `bench:x402` and `bench:db`.
 */
export function pct(values: number[], p: number): number {
  const s = [...values].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? NaN;
}
