/**
 * A light English stemmer for the skill index: steps 1a, 1b, 1c and 5a of
 * Porter's algorithm (plurals, `-ed`, `-ing`, a final `y` and `e`), so
 * `testing`, `tests` and `tested` are one term, as are `manage` and
 * `managing`. Terms that are not plain `a`–`z` words of more than three
 * letters are left as they are. Measured on the evaluation's tuning split
 * before it was adopted (see `bench/RESULTS.md`).
 *
 * @module
 */

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
 * assert.equal(stem("managing"), stem("manage"));
 * assert.equal(stem("processes"), "process");
 * assert.equal(stem("état"), "état");
 * ```
 */
export function stem(term: string): string {
  let w = term;
  if (w.length <= 3 || !PLAIN.test(w)) return w;
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
    else if (doubleConsonant(w)) w = w.slice(0, -1);
    else if (measure(w, w.length) === 1 && cvc(w, w.length)) w += "e";
  }
  // 1c: a final y after a vowel-bearing stem.
  if (w.endsWith("y") && hasVowel(w, w.length - 1)) w = `${w.slice(0, -1)}i`;
  // 5a: a final e.
  if (w.endsWith("e")) {
    const m = measure(w, w.length - 1);
    if (m > 1 || (m === 1 && !cvc(w, w.length - 1))) w = w.slice(0, -1);
  }
  return w;
}

const PLAIN = /^[a-z]+$/;

function isConsonant(w: string, i: number): boolean {
  const c = w.charCodeAt(i);
  // a e i o u
  if (c === 97 || c === 101 || c === 105 || c === 111 || c === 117) return false;
  // y is a consonant at the start or after a vowel, else a vowel
  if (c === 121) return i === 0 || !isConsonant(w, i - 1);
  return true;
}

/** Porter's m: the number of vowel–consonant sequences in `w[0, end)`. */
function measure(w: string, end: number): number {
  let m = 0;
  let i = 0;
  while (i < end && isConsonant(w, i)) i++;
  while (i < end) {
    while (i < end && !isConsonant(w, i)) i++;
    if (i >= end) break;
    m++;
    while (i < end && isConsonant(w, i)) i++;
  }
  return m;
}

function hasVowel(w: string, end: number): boolean {
  for (let i = 0; i < end; i++) if (!isConsonant(w, i)) return true;
  return false;
}

function doubleConsonant(w: string): boolean {
  const n = w.length;
  if (n < 2 || w[n - 1] !== w[n - 2] || !isConsonant(w, n - 1)) return false;
  return !"lsz".includes(w[n - 1]!);
}

/** Whether `w[0, end)` ends consonant–vowel–consonant, the last not w, x or y. */
function cvc(w: string, end: number): boolean {
  if (end < 3) return false;
  if (!isConsonant(w, end - 1) || isConsonant(w, end - 2) || !isConsonant(w, end - 3)) {
    return false;
  }
  return !"wxy".includes(w[end - 1]!);
}
