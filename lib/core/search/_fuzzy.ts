/**
 * Typo tolerance for the skill index: the indexed term nearest a query term
 * the index lacks, within edit distance 1 (terms of 4 to 7 letters) or 2
 * (8 or more), counting a swap of two neighbours as one edit. Guards: only
 * terms of the names, descriptions and headings of at least two skills (or
 * of one, in a library of under 50) are candidates; a candidate must share
 * the query term's first letter (or swap it with the second); the nearest
 * wins, then the most frequent.
 *
 * Cost: candidates are grouped by length and first letter, so a query term
 * reads only the few groups of its own first letters and near lengths; a
 * letter mask (26 bits) screens each before the distance is computed, in
 * O(length²) with early exit and no allocation.
 *
 * Folder `lib/core/search/` — search over large libraries: the BM25F index and its text analysis.
 *
 * @module
 */

/** The shortest query term corrected. */
export const MIN_TYPO_LENGTH = 4;
/** The longest query term corrected. */
export const MAX_TYPO_LENGTH = 32;

/** The candidate words, by length and first letter. */
export interface TypoVocabulary {
  /** Per group ({@linkcode groupOf}), the candidates' numbers. */
  readonly groups: readonly (readonly number[] | undefined)[];
  /** Per candidate: the word, as indexed before stemming. */
  readonly words: readonly string[];
  /** Per candidate: its term id. */
  readonly ids: readonly number[];
  /** Per candidate: its letter mask. */
  readonly masks: readonly number[];
  /** Per term id: its number of skills. */
  readonly df: Int32Array;
}

/** The group of a word of `length` letters starting with `first` (a lower-case letter). */
export function groupOf(length: number, first: string): number {
  return length * 26 + (first.charCodeAt(0) - 97);
}

/** The letter mask of a term: bit i for letter `a` + i. */
export function letterMask(term: string): number {
  let m = 0;
  for (let i = 0; i < term.length; i++) {
    const c = term.charCodeAt(i) - 97;
    if (c >= 0 && c < 26) m |= 1 << c;
  }
  return m;
}

function popcount(x: number): number {
  x -= (x >>> 1) & 0x55555555;
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  return (((x + (x >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24;
}

/**
 * The nearest candidate to a query term, or undefined.
 *
 * @param term A query term the index lacks.
 * @param vocabulary The candidates.
 * @returns The term id, the word it was read as, and its distance.
 */
export function nearestTerm(
  term: string,
  vocabulary: TypoVocabulary,
): { id: number; word: string; distance: number } | undefined {
  const n = term.length;
  if (n < MIN_TYPO_LENGTH || n > MAX_TYPO_LENGTH || !/^[a-z]+$/.test(term)) return undefined;
  const max = n >= 8 ? 2 : 1;
  const mask = letterMask(term);
  let best: number | undefined, bestDistance = max + 1;
  for (let len = n - max; len <= n + max; len++) {
    for (const first of term[0] === term[1] ? [term[0]!] : [term[0]!, term[1]!]) {
      for (const c of vocabulary.groups[groupOf(len, first)] ?? []) {
        if (popcount(mask ^ vocabulary.masks[c]!) > 2 * max) continue;
        const candidate = vocabulary.words[c]!;
        // A different first letter only as a swap of the first two.
        if (first !== term[0] && candidate[1] !== term[0]) continue;
        const d = distance(term, candidate, Math.min(max, bestDistance));
        if (
          d < bestDistance ||
          (d === bestDistance && best !== undefined &&
            vocabulary.df[vocabulary.ids[c]!]! > vocabulary.df[vocabulary.ids[best]!]!)
        ) {
          best = c;
          bestDistance = d;
        }
      }
    }
  }
  return best === undefined
    ? undefined
    : { id: vocabulary.ids[best]!, word: vocabulary.words[best]!, distance: bestDistance };
}

/** The optimal string alignment distance of a and b, or `bound + 1` once it exceeds `bound`. */
export function distance(a: string, b: string, bound: number): number {
  const n = a.length, m = b.length;
  if (Math.abs(n - m) > bound) return bound + 1;
  if (m + 1 > ROW) return bound + 1;
  let prev2 = rows[0]!, prev = rows[1]!, row = rows[2]!;
  for (let j = 0; j <= m; j++) prev[j] = j;
  for (let i = 1; i <= n; i++) {
    row[0] = i;
    let least = i;
    for (let j = 1; j <= m; j++) {
      const cost = a.charCodeAt(i - 1) === b.charCodeAt(j - 1) ? 0 : 1;
      let v = Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + cost);
      if (
        i > 1 && j > 1 && a.charCodeAt(i - 1) === b.charCodeAt(j - 2) &&
        a.charCodeAt(i - 2) === b.charCodeAt(j - 1)
      ) v = Math.min(v, prev2[j - 2]! + 1);
      row[j] = v;
      if (v < least) least = v;
    }
    if (least > bound) return bound + 1;
    const t = prev2;
    prev2 = prev;
    prev = row;
    row = t;
  }
  return Math.min(prev[m]!, bound + 1);
}

/** The longest word the distance reads, plus one. */
const ROW = 64;
/** Scratch rows of the distance (JavaScript runs one at a time). */
const rows = [new Int32Array(ROW), new Int32Array(ROW), new Int32Array(ROW)];
