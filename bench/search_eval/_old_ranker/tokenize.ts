/**
 * The tokenizer of the skill index: text in, search terms out. Pure.
 *
 * - Lower-cased with the Unicode rules of `String.prototype.toLowerCase`
 *   (so `PDF` and `pdf`, `É` and `é` are one term).
 * - Split on everything that is not a letter, a digit or a combining mark: a
 *   term is a run of `\p{L}`, `\p{N}` and `\p{M}` characters. `pdf-forms`,
 *   `pdf_forms` and `pdf/forms` are two terms each.
 * - Han, Hiragana and Katakana characters are a term each (those scripts put
 *   no space between words; one character per term finds a word by its
 *   characters).
 * - A small English stop list ({@linkcode STOP_WORDS}) is dropped.
 * - No stemming here: the index stems each term it gets from here with
 *   `stem` (`./stem.ts`), unless told not to.
 *
 * @module
 */

/** The terms dropped from every text and query: a small English stop list. */
export const STOP_WORDS: ReadonlySet<string> = new Set([
  "a",
  "an",
  "and",
  "are",
  "as",
  "at",
  "be",
  "by",
  "for",
  "from",
  "in",
  "into",
  "is",
  "it",
  "its",
  "of",
  "on",
  "or",
  "that",
  "the",
  "this",
  "to",
  "with",
]);

const RUN = /[\p{L}\p{N}\p{M}]+/gu;
const NO_SPACE_SCRIPTS = /[\p{sc=Han}\p{sc=Hiragana}\p{sc=Katakana}]/u;
const NO_SPACE_SPLIT =
  /[\p{sc=Han}\p{sc=Hiragana}\p{sc=Katakana}]|(?:(?![\p{sc=Han}\p{sc=Hiragana}\p{sc=Katakana}])[\p{L}\p{N}\p{M}])+/gu;

/**
 * Split a text into search terms.
 *
 * @param text Any text.
 * @returns The terms, in order, repeats kept, stop words dropped.
 * @throws Never.
 * @example
 * ```ts
 * import { tokenize } from "./tokenize.ts";
 * import { assert } from "../_assert.ts";
 *
 * assert.deepEqual(tokenize("Fill in PDF-forms, then check the ÉTAT"), [
 *   "fill",
 *   "pdf",
 *   "forms",
 *   "then",
 *   "check",
 *   "état",
 * ]);
 * assert.deepEqual(tokenize("技能を使う abc日本"), ["技", "能", "を", "使", "う", "abc", "日", "本"]);
 * ```
 */
export function tokenize(text: string): string[] {
  const out: string[] = [];
  const lower = text.toLowerCase();
  RUN.lastIndex = 0;
  for (let m = RUN.exec(lower); m !== null; m = RUN.exec(lower)) {
    const run = m[0];
    if (hasWide(run) && NO_SPACE_SCRIPTS.test(run)) {
      // One term per character of those scripts, runs of the others between them.
      NO_SPACE_SPLIT.lastIndex = 0;
      for (let t = NO_SPACE_SPLIT.exec(run); t !== null; t = NO_SPACE_SPLIT.exec(run)) {
        if (!STOP_WORDS.has(t[0])) out.push(t[0]);
      }
    } else if (!STOP_WORDS.has(run)) {
      out.push(run);
    }
  }
  return out;
}

/** Whether any UTF-16 unit is at or past U+2E80, where the no-space scripts start. */
function hasWide(run: string): boolean {
  for (let i = 0; i < run.length; i++) if (run.charCodeAt(i) >= 0x2e80) return true;
  return false;
}
