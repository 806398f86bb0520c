/**
 * The English stemmer of the skill index: Porter's algorithm (steps 1 to 5:
 * plurals, `-ed`, `-ing`, and the derivational suffixes such as `-ation`,
 * `-ness`, `-er`, `-al`, `-ment`), plus one rule of its own (`analysis`,
 * `analyses` and `analyze` share the stem `analyz`). So `reviewer` and
 * `review`, `survival` and `survive`, `deployment` and `deploy` are one term.
 * A few short forms join their long form: `docs` and `documentation`,
 * `postgres` and `postgresql`, `repo` and `repository`.
 *
 * Linear in the term, with no recursion: each step reads a fixed set of
 * suffixes and the consonant/vowel pattern of the word, computed once per
 * step. Terms that are not plain `a`–`z` words of 4 to
 * {@linkcode MAX_STEM_LENGTH} letters are left as they are.
 *
 * Folder `lib/core/search/` — search over large libraries: the BM25F index and its text analysis.
 *
 * @module
 */

/** The longest term stemmed; longer terms are left as they are. */
export const MAX_STEM_LENGTH = 48;

/**
 * The stem of one lower-case term.
 *
 * @param term A term from `tokenize`.
 * @returns Its stem; the term itself when it is not a plain English word.
 * @throws Never.
 * @example
 * ```ts
 * import { stem } from "./stem.ts";
 * import { assert } from "../_assert.ts";
 *
 * assert.equal(stem("testing"), stem("tests"));
 * assert.equal(stem("reviewer"), stem("review"));
 * assert.equal(stem("survival"), stem("survive"));
 * assert.equal(stem("analysis"), stem("analyze"));
 * assert.equal(stem("processes"), "process");
 * assert.equal(stem("état"), "état");
 * ```
 */
export function stem(term: string): string {
  const alias = ALIASES.get(term);
  if (alias !== undefined) return alias;
  if (term.length <= 3 || term.length > MAX_STEM_LENGTH || !PLAIN.test(term)) return term;
  let w = step1ab(term);
  // 1c: a final y after a vowel-bearing stem.
  if (w.endsWith("y") && hasVowel(w, w.length - 1)) w = `${w.slice(0, -1)}i`;
  w = replaceFirst(w, STEP2, 0);
  w = replaceFirst(w, STEP3, 0);
  w = step4(w);
  // 1c again, for a y that step 4 uncovered (deployment, deploy).
  if (w.endsWith("y") && hasVowel(w, w.length - 1)) w = `${w.slice(0, -1)}i`;
  // 5a: a final e.
  if (w.endsWith("e")) {
    const m = measure(w, w.length - 1);
    if (m > 1 || (m === 1 && !cvc(w, w.length - 1))) w = w.slice(0, -1);
  }
  // 5b: a final double l.
  if (w.endsWith("ll") && measure(w, w.length) > 1) w = w.slice(0, -1);
  // analysis, analyses, analyse, analyze: one stem.
  if (w.endsWith("ysi")) w = `${w.slice(0, -3)}yz`;
  else if (w.endsWith("ys") && w.length > 5) w = `${w.slice(0, -2)}yz`;
  return w;
}

const PLAIN = /^[a-z]+$/;

/** Short forms that stemming cannot join to their long form: term, stem of the long form. */
const ALIASES: ReadonlyMap<string, string> = new Map([
  ["doc", "document"],
  ["docs", "document"],
  ["postgres", "postgresql"],
  ["repo", "repositori"],
  ["repos", "repositori"],
  ["config", "configur"],
  ["configs", "configur"],
  ["db", "databas"],
  ["k8s", "kubernet"],
]);

function step1ab(term: string): string {
  let w = term;
  // 1a: plurals.
  if (w.endsWith("sses") || w.endsWith("ies")) w = w.slice(0, -2);
  else if (!w.endsWith("ss") && w.endsWith("s")) w = w.slice(0, -1);
  // 1b: -eed, -ed, -ing.
  let fix = false;
  if (w.endsWith("eed")) {
    if (measure(w, w.length - 3) > 0) w = w.slice(0, -1);
  } else if (w.endsWith("ed") && hasVowel(w, w.length - 2)) {
    w = w.slice(0, -2);
    fix = true;
  } else if (w.endsWith("ing") && hasVowel(w, w.length - 3)) {
    w = w.slice(0, -3);
    fix = true;
  }
  if (fix) {
    if (w.endsWith("at") || w.endsWith("bl") || w.endsWith("iz")) w += "e";
    else if (doubleConsonant(w) && !/[lsz]$/.test(w)) w = w.slice(0, -1);
    else if (measure(w, w.length) === 1 && cvc(w, w.length)) w += "e";
  }
  return w;
}

/** Step 2 (m > 0): suffix, replacement. */
const STEP2: readonly (readonly [string, string])[] = [
  ["ational", "ate"],
  ["tional", "tion"],
  ["enci", "ence"],
  ["anci", "ance"],
  ["izer", "ize"],
  ["bli", "ble"],
  ["alli", "al"],
  ["entli", "ent"],
  ["eli", "e"],
  ["ousli", "ous"],
  ["ization", "ize"],
  ["ation", "ate"],
  ["ator", "ate"],
  ["alism", "al"],
  ["iveness", "ive"],
  ["fulness", "ful"],
  ["ousness", "ous"],
  ["aliti", "al"],
  ["iviti", "ive"],
  ["biliti", "ble"],
  ["logi", "log"],
];

/** Step 3 (m > 0). */
const STEP3: readonly (readonly [string, string])[] = [
  ["icate", "ic"],
  ["ative", ""],
  ["alize", "al"],
  ["iciti", "ic"],
  ["ical", "ic"],
  ["ful", ""],
  ["ness", ""],
];

/** Step 4 (m > 1): suffixes removed, longest first where one ends another. */
const STEP4: readonly string[] = [
  "ement",
  "ance",
  "ence",
  "able",
  "ible",
  "ment",
  "ant",
  "ent",
  "ism",
  "ate",
  "iti",
  "ous",
  "ive",
  "ize",
  "ion",
  "al",
  "er",
  "ic",
  "ou",
];

/** Replace the first (longest listed) suffix that ends `w` when the rest has m > `min`. */
function replaceFirst(
  w: string,
  rules: readonly (readonly [string, string])[],
  min: number,
): string {
  for (const [suffix, by] of rules) {
    if (!w.endsWith(suffix)) continue;
    const rest = w.length - suffix.length;
    return measure(w, rest) > min ? w.slice(0, rest) + by : w;
  }
  return w;
}

function step4(w: string): string {
  for (const suffix of STEP4) {
    if (!w.endsWith(suffix)) continue;
    const rest = w.length - suffix.length;
    if (measure(w, rest) <= 1) return w;
    if (suffix === "ion" && !/[st]$/.test(w.slice(0, rest))) return w;
    return w.slice(0, rest);
  }
  return w;
}

/**
 * Whether each letter of `w[0, end)` is a consonant: not a e i o u, and y only at
 * the start or after a vowel. One pass, left to right.
 */
function consonants(w: string, end: number): Uint8Array {
  const out = new Uint8Array(end);
  for (let i = 0; i < end; i++) {
    const c = w.charCodeAt(i);
    if (c === 97 || c === 101 || c === 105 || c === 111 || c === 117) out[i] = 0;
    else if (c === 121) out[i] = i === 0 || out[i - 1] === 0 ? 1 : 0;
    else out[i] = 1;
  }
  return out;
}

/** Porter's m: the number of vowel–consonant sequences in `w[0, end)`. */
function measure(w: string, end: number): number {
  const c = consonants(w, end);
  let m = 0;
  let i = 0;
  while (i < end && c[i] === 1) i++;
  while (i < end) {
    while (i < end && c[i] === 0) i++;
    if (i >= end) break;
    m++;
    while (i < end && c[i] === 1) i++;
  }
  return m;
}

function hasVowel(w: string, end: number): boolean {
  const c = consonants(w, end);
  for (let i = 0; i < end; i++) if (c[i] === 0) return true;
  return false;
}

function doubleConsonant(w: string): boolean {
  const n = w.length;
  return n >= 2 && w[n - 1] === w[n - 2] && consonants(w, n)[n - 1] === 1;
}

/** Whether `w[0, end)` ends consonant–vowel–consonant, the last not w, x or y. */
function cvc(w: string, end: number): boolean {
  if (end < 3) return false;
  const c = consonants(w, end);
  if (c[end - 1] !== 1 || c[end - 2] !== 0 || c[end - 3] !== 1) return false;
  return !"wxy".includes(w[end - 1]!);
}
