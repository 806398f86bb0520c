/**
 * "Did you mean": the nearest of some known words to a mistyped one, for
 * commands, flags, config keys and skill names.
 *
 * Folder `lib/cli/` — the command line behind `lib/cli.ts`: the command table, flags, output, config.
 *
 * @module
 */
import { cores, editDistance as distance } from "../core/_nearest.ts";

/**
 * The known word nearest to `word` by edit distance, when it is near enough
 * or `word` is a prefix of exactly one candidate. Near enough: at most a
 * third of the word's length (at least 1), and at most half of the part
 * that differs once a shared start and end are set aside — so
 * `references/form.md` suggests `references/forms.md`, but
 * `references/none.md` does not.
 *
 * @param word What was typed.
 * @param candidates The known words.
 * @returns The suggestion, or `undefined`.
 * @example
 * ```ts
 * import { assert } from "../core/_assert.ts";
 * import { nearest } from "./_suggest.ts";
 *
 * assert.equal(nearest("verfy", ["lock", "verify"]), "verify");
 * assert.equal(nearest("zzz", ["lock", "verify"]), undefined);
 * ```
 */
export function nearest(word: string, candidates: Iterable<string>): string | undefined {
  // Long strings are not words anyone typed; the distance is quadratic in their lengths.
  if (word.length === 0 || word.length > 64) return undefined;
  const most = Math.max(1, Math.floor(word.length / 3));
  let best: string | undefined, bestDistance = Infinity;
  const prefixed: string[] = [];
  for (const candidate of candidates) {
    if (candidate.length > 64) continue;
    if (candidate.startsWith(word)) prefixed.push(candidate);
    const [a, b] = cores(word.toLowerCase(), candidate.toLowerCase());
    const d = distance(a, b);
    if (d > Math.max(1, Math.floor(Math.max(a.length, b.length) / 2))) continue;
    if (d < bestDistance) [best, bestDistance] = [candidate, d];
  }
  if (bestDistance <= most) return best;
  return prefixed.length === 1 ? prefixed[0] : undefined;
}

/**
 * ` (did you mean "x"?)` for the nearest known word, or nothing.
 *
 * @param word What was typed.
 * @param candidates The known words.
 * @returns The hint, starting with a space, or `""`.
 */
export function didYouMean(word: string, candidates: Iterable<string>): string {
  const near = nearest(word, candidates);
  return near === undefined ? "" : ` (did you mean ${JSON.stringify(near)}?)`;
}
