/**
 * "Did you mean": the nearest of some known words to a mistyped one, for
 * commands, flags, config keys, skill names, modes and values.
 *
 * Folder `lib/cli/` — the command line behind `lib/cli.ts`: the command table, flags, output, config.
 *
 * @module
 */
import { cores, editDistance as distance } from "../core/_nearest.ts";
import { escapeControls as esc } from "../core/_text.ts";

/**
 * Up to `most` known words nearest to `word` by edit distance, nearest first
 * (ties in the order given); when none is near, the one candidate `word` is
 * a prefix of. Near enough: at most a third of the word's length (at least
 * 1), and at most half of the part that differs once a shared start and end
 * are set aside — so `references/form.md` suggests `references/forms.md`,
 * but `references/none.md` does not.
 *
 * @param word What was typed.
 * @param candidates The known words.
 * @param most How many to return at most.
 * @returns The suggestions, nearest first.
 * @example
 * ```ts
 * import { assert } from "../core/_assert.ts";
 * import { suggestions } from "./_suggest.ts";
 *
 * assert.deepEqual(suggestions("ppt", ["pptx", "pdf", "ppt-x", "docx"]), ["pptx"]);
 * assert.deepEqual(suggestions("zzz", ["lock", "verify"]), []);
 * ```
 */
export function suggestions(word: string, candidates: Iterable<string>, most = 3): string[] {
  // Long strings are not words anyone typed; the distance is quadratic in their lengths.
  if (word.length === 0 || word.length > 64) return [];
  const limit = Math.max(1, Math.floor(word.length / 3));
  const lower = word.toLowerCase();
  const found: { name: string; d: number; at: number }[] = [];
  const prefixed: string[] = [];
  const seen = new Set<string>();
  let at = 0;
  for (const candidate of candidates) {
    at++;
    if (candidate.length > 64 || seen.has(candidate)) continue;
    seen.add(candidate);
    if (candidate.startsWith(word)) prefixed.push(candidate);
    if (Math.abs(candidate.length - word.length) > limit) continue;
    const [a, b] = cores(lower, candidate.toLowerCase());
    const d = distance(a, b);
    if (d > limit || d > Math.max(1, Math.floor(Math.max(a.length, b.length) / 2))) continue;
    found.push({ name: candidate, d, at });
  }
  if (found.length === 0) return prefixed.length === 1 ? [prefixed[0]!] : [];
  found.sort((x, y) => x.d - y.d || x.at - y.at);
  return found.slice(0, most).map((f) => f.name);
}

/**
 * The known word nearest to `word` (see {@linkcode suggestions}).
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
  return suggestions(word, candidates, 1)[0];
}

/**
 * ` (did you mean "a", "b" or "c"?)` for up to three nearest known words, or nothing.
 *
 * @param word What was typed.
 * @param candidates The known words.
 * @returns The hint, starting with a space, or `""`.
 * @example
 * ```ts
 * import { assert } from "../core/_assert.ts";
 * import { didYouMean } from "./_suggest.ts";
 *
 * assert.equal(didYouMean("ppt", ["pptx", "docx"]), ' (did you mean "pptx"?)');
 * assert.equal(didYouMean("dcx", ["docx", "dox"]), ' (did you mean "docx" or "dox"?)');
 * assert.equal(didYouMean("zzz", ["pptx"]), "");
 * ```
 */
export function didYouMean(word: string, candidates: Iterable<string>): string {
  const near = suggestions(word, candidates).map((n) => esc(JSON.stringify(n)));
  if (near.length === 0) return "";
  const list = near.length === 1
    ? near[0]
    : `${near.slice(0, -1).join(", ")} or ${near[near.length - 1]}`;
  return ` (did you mean ${list}?)`;
}
