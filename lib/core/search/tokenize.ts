/**
 * The tokenizer of the skill index: text in, search terms out. Pure.
 *
 * - Lower-cased with the Unicode rules of `String.prototype.toLowerCase`
 *   (so `PDF` and `pdf`, `É` and `é` are one term).
 * - Split on everything that is not a letter, a digit or a combining mark: a
 *   term is a run of `\p{L}`, `\p{N}` and `\p{M}` characters. `pdf-forms`,
 *   `pdf_forms` and `pdf/forms` are two terms each.
 * - Han, Hiragana, Katakana and Hangul runs become overlapping bigrams (those
 *   scripts put no space between words: `文档处理` is `文档`, `档处`, `处理`;
 *   a lone character is a term of its own).
 * - A small English stop list ({@linkcode STOP_WORDS}) is dropped; queries
 *   also drop pronouns and filler ({@linkcode QUERY_STOP_WORDS},
 *   {@linkcode tokenizeQuery}).
 * - No stemming here: the index stems each term it gets from here with
 *   `stem` (`./stem.ts`), unless told not to.
 *
 * Folder `lib/core/search/` — search over large libraries: the BM25F index and its text analysis.
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

/**
 * Words a request holds that say nothing of the task, dropped from queries
 * only (a skill's text keeps them): pronouns, politeness and filler.
 */
export const QUERY_STOP_WORDS: ReadonlySet<string> = new Set([
  ...STOP_WORDS,
  ...("i me my mine myself we us our ours you your yours he him his she her they them their " +
    "theirs what which who whom whose when where why how do does did doing done can could " +
    "would should will shall may might must please help want wanted need needs like just " +
    "some any all every each so then than there here these those was were been being have " +
    "has had having not no nor don doesn didn isn aren won ll ve re about up out over again " +
    "also very really too much many more most other such only own same let lets let's get " +
    "got getting go going thing things something stuff way ok okay hey hi thanks")
    .split(" "),
]);

const RUN = /[\p{L}\p{N}\p{M}]+/gu;
const NO_SPACE = "\\p{sc=Han}\\p{sc=Hiragana}\\p{sc=Katakana}\\p{sc=Hangul}";
const NO_SPACE_SCRIPTS = new RegExp(`[${NO_SPACE}]`, "u");
/** A run of no-space script characters (with their marks), or a run of the others. */
const NO_SPACE_SPLIT = new RegExp(
  `(?:[${NO_SPACE}]\\p{M}*)+|(?:(?![${NO_SPACE}])[\\p{L}\\p{N}\\p{M}])+`,
  "gu",
);

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
 * assert.deepEqual(tokenize("技能を使う abc日本"), ["技能", "能を", "を使", "使う", "abc", "日本"]);
 * ```
 */
export function tokenize(text: string): string[] {
  const out: string[] = [];
  const lower = text.toLowerCase();
  RUN.lastIndex = 0;
  for (let m = RUN.exec(lower); m !== null; m = RUN.exec(lower)) {
    const run = m[0];
    if (hasWide(run) && NO_SPACE_SCRIPTS.test(run)) {
      // Overlapping bigrams of those scripts, runs of the others between them.
      NO_SPACE_SPLIT.lastIndex = 0;
      for (let t = NO_SPACE_SPLIT.exec(run); t !== null; t = NO_SPACE_SPLIT.exec(run)) {
        if (NO_SPACE_SCRIPTS.test(t[0])) bigrams(t[0], out);
        else if (!STOP_WORDS.has(t[0])) out.push(t[0]);
      }
    } else if (!STOP_WORDS.has(run)) {
      out.push(run);
    }
  }
  return out;
}

/**
 * Split a query into search terms: {@linkcode tokenize}, less the words of
 * {@linkcode QUERY_STOP_WORDS} and single Latin letters (the `s` of `band's`).
 *
 * @param text A query.
 * @returns Its terms, in order, repeats kept.
 * @throws Never.
 * @example
 * ```ts
 * import { tokenizeQuery } from "./tokenize.ts";
 * import { assert } from "../_assert.ts";
 *
 * assert.deepEqual(tokenizeQuery("Can you help me plot my band's numbers?"), [
 *   "plot",
 *   "band",
 *   "numbers",
 * ]);
 * ```
 */
export function tokenizeQuery(text: string): string[] {
  return tokenize(text).filter((t) =>
    !QUERY_STOP_WORDS.has(t) && !(t.length === 1 && t.charCodeAt(0) < 0x2e80 && !/\d/.test(t))
  );
}

/** The overlapping pairs of characters (code points, marks kept with theirs) of a run. */
function bigrams(run: string, out: string[]): void {
  const chars = run.match(/\P{M}\p{M}*/gu) ?? [];
  if (chars.length === 1) out.push(chars[0]!);
  for (let i = 0; i + 1 < chars.length; i++) out.push(chars[i]! + chars[i + 1]!);
}

/** Whether any UTF-16 unit is at or past U+2E80, where the no-space scripts start. */
function hasWide(run: string): boolean {
  for (let i = 0; i < run.length; i++) if (run.charCodeAt(i) >= 0x2e80) return true;
  return false;
}
