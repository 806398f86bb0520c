/**
 * Shared fast-check set-up: one reproducible seed per test file.
 *
 * - `FC_SEED=<int>` replays a run (the seed is printed at start).
 * - `FC_RUNS=<int>` sets the number of runs of every property.
 *
 * @module
 */
import fc from "fast-check";
import process from "node:process";

function envInt(name: string): number | undefined {
  const raw = process.env[name];
  if (raw === undefined || raw === "") return undefined;
  const value = Number(raw);
  if (!Number.isSafeInteger(value)) {
    throw new RangeError(`${name} must be an integer, got "${raw}"`);
  }
  return value;
}

/** The seed of this run. */
export const seed: number = envInt("FC_SEED") ?? (Math.random() * 0x7fffffff) | 0;
const runsOverride = envInt("FC_RUNS");

console.log(`fast-check seed ${seed} (replay with FC_SEED=${seed})`);
fc.configureGlobal({ seed, numRuns: runsOverride ?? 100 });

/**
 * @param defaultRuns The number of runs of a property when `FC_RUNS` is unset.
 * @returns The fast-check parameters for one property.
 */
export function runs(defaultRuns: number): { numRuns: number } {
  return { numRuns: runsOverride ?? defaultRuns };
}

export { fc };
