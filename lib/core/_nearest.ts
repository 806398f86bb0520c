/**
 * Edit distance between short words, and the nearest of many names to a
 * mistyped one: for "did you mean" hints, in the core (the skill tool's
 * answer to an unknown name) and the command line.
 *
 * Folder `lib/core/` — the pure core behind `mod.ts`: the error family and shared helpers; no I/O.
 *
 * @module
 */

/** Words longer than this are not compared (the distance is quadratic in their lengths). */
export const MAX_COMPARED = 64;

/**
 * Up to `most` names nearest to `word`, nearest first (ties in the order
 * given): those within a third of the word's length in edits (at least 1,
 * ignoring case), and those that hold the word whole.
 *
 * @param word What was asked for.
 * @param candidates The known names.
 * @param most How many to return at most.
 * @returns The names, nearest first.
 * @example
 * ```ts
 * import { nearestNames } from "./_nearest.ts";
 * import { assert } from "./_assert.ts";
 *
 * assert.deepEqual(nearestNames("pdf-form", ["csv", "pdf-forms", "pdf"]), ["pdf-forms", "pdf"]);
 * assert.deepEqual(nearestNames("zzz", ["csv", "pdf"]), []);
 * ```
 */
export function nearestNames(word: string, candidates: Iterable<string>, most = 3): string[] {
  if (word.length === 0 || word.length > MAX_COMPARED) return [];
  const lower = word.toLowerCase();
  const limit = Math.max(1, Math.floor(word.length / 3));
  const found: { name: string; d: number; at: number }[] = [];
  let at = 0;
  for (const candidate of candidates) {
    at++;
    if (typeof candidate !== "string" || candidate.length > MAX_COMPARED) continue;
    const other = candidate.toLowerCase();
    let d: number;
    if (other.includes(lower) || lower.includes(other)) d = Math.abs(other.length - lower.length);
    else if (Math.abs(other.length - lower.length) > limit) continue;
    else {
      d = editDistance(...cores(lower, other));
      if (d > limit) continue;
    }
    found.push({ name: candidate, d, at });
  }
  found.sort((a, b) => a.d - b.d || a.at - b.at);
  return found.slice(0, most).map((f) => f.name);
}

/**
 * The two words without their shared start and end.
 *
 * @param a A word.
 * @param b Another.
 * @returns The parts that differ.
 */
export function cores(a: string, b: string): [string, string] {
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start++;
  let end = 0;
  while (
    end < a.length - start && end < b.length - start &&
    a[a.length - 1 - end] === b[b.length - 1 - end]
  ) end++;
  return [a.slice(start, a.length - end), b.slice(start, b.length - end)];
}

/**
 * Levenshtein distance, with an adjacent swap counting as one edit.
 *
 * @param a A word.
 * @param b Another.
 * @returns The number of edits.
 */
export function editDistance(a: string, b: string): number {
  let before = new Array<number>(b.length + 1).fill(0);
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min(previous[j]! + 1, row[j - 1]! + 1, previous[j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        d = Math.min(d, before[j - 2]! + 1);
      }
      row.push(d);
    }
    [before, previous] = [previous, row];
  }
  return previous[b.length]!;
}
