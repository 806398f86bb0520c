/**
 * Body budgets (issue 43): cap a SKILL.md body to a number of tokens at
 * activation. The core counts with a function the caller gives (the CLI
 * passes a real BPE tokenizer); without one it estimates a token per four
 * characters, rounded up. The cut keeps the longest prefix that fits, at a
 * line end when a whole line fits, and says where the rest starts.
 *
 * Folder `lib/core/activation/` — activation and the model's tools: bodies, the skill tool, skill_search.
 *
 * @module
 */

/** Counts the tokens of a text: a whole number, at least 0. */
export type TokenCounter = (text: string) => number;

/**
 * The fallback count: the text's characters (Unicode code points) divided by
 * four, rounded up. Real tokenizers count English prose at about four
 * characters a token; code, other scripts and rare words cost more, so leave a
 * margin or give a real counter.
 *
 * @param text The text.
 * @returns `ceil(code points / 4)`.
 * @example
 * ```ts
 * import { estimateTokens } from "./body_budget.ts";
 * import { assert } from "../_assert.ts";
 *
 * assert.equal(estimateTokens(""), 0);
 * assert.equal(estimateTokens("abcde"), 2);
 * assert.equal(estimateTokens("😀😀😀😀"), 1); // four code points
 * ```
 */
export function estimateTokens(text: string): number {
  let points = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    // A high surrogate followed by a low one is one code point.
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
      const d = text.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) i++;
    }
    points++;
  }
  return Math.ceil(points / 4);
}

/** Where a capped body was cut. */
export interface BodyCut {
  /** The budget, in tokens. */
  readonly max_tokens: number;
  /** The whole body's tokens. */
  readonly tokens: number;
  /** The tokens of the part shown (at most `max_tokens`). */
  readonly shown_tokens: number;
  /** How they were counted: `"estimate"` (characters ÷ 4) or `"counter"` (the caller's). */
  readonly counted_by: "estimate" | "counter";
  /**
   * Where the rest starts in the body: line `line` (from 0), at byte `byte` of
   * that line (UTF-8, from 0; 0 when the cut falls at a line end).
   */
  readonly rest: { readonly line: number; readonly byte: number };
}

/** A body under a budget: the text to show and, when it was cut, where. */
export interface CappedBody {
  /** The body, or its longest prefix that fits. */
  readonly text: string;
  /** Present when the body was over the budget. */
  readonly cut?: BodyCut;
}

/**
 * Cap a body to `max` tokens: the whole body when it fits, else its longest
 * prefix that fits ending at a line end, or, when not even the first line
 * fits, the longest prefix of that line that fits (never splitting a
 * surrogate pair). The part shown never counts more than `max` under the
 * counter used. A counter need not be monotonic: the prefix is found by
 * bisection and only a prefix that was counted and fits is kept.
 *
 * @param body The SKILL.md body.
 * @param max The budget in tokens, a whole number of at least 1.
 * @param count The counter; default {@linkcode estimateTokens}.
 * @returns The capped body (frozen).
 * @throws {RangeError} When `max` is not a whole number of at least 1, or the
 *   counter returns anything but a whole number of at least 0.
 * @example
 * ```ts
 * import { capBody } from "./body_budget.ts";
 * import { assert } from "../_assert.ts";
 *
 * const body = "Step one.\nStep two.\nStep three.\n";
 * assert.deepEqual(capBody(body, 100), { text: body });
 * const capped = capBody(body, 6); // 10 characters a line: 3 tokens each
 * assert.equal(capped.text, "Step one.\nStep two.\n");
 * assert.deepEqual(capped.cut?.rest, { line: 2, byte: 0 });
 * assert.equal(capped.cut?.shown_tokens, 5);
 * ```
 */
export function capBody(body: string, max: number, count?: TokenCounter): CappedBody {
  if (typeof body !== "string") throw new TypeError("capBody(body): body must be a string");
  if (!Number.isSafeInteger(max) || max < 1) {
    throw new RangeError(
      `max_body_tokens must be a whole number of at least 1, got ${String(max)}`,
    );
  }
  if (count !== undefined && typeof count !== "function") {
    throw new TypeError("count_tokens must be a function of a text returning its tokens");
  }
  const counter = count ?? estimateTokens;
  const tokensOf = (text: string): number => {
    const n = counter(text);
    if (!Number.isSafeInteger(n) || n < 0) {
      throw new RangeError(
        `count_tokens must return a whole number of at least 0, got ${String(n)}`,
      );
    }
    return n;
  };
  const tokens = tokensOf(body);
  if (tokens <= max) return Object.freeze({ text: body });
  // Line ends (the index just after each "\n", and the body's end), then the longest prefix
  // ending at one that fits; the last (the whole body) is over.
  const ends: number[] = [];
  for (let i = body.indexOf("\n"); i >= 0; i = body.indexOf("\n", i + 1)) ends.push(i + 1);
  if (ends.at(-1) !== body.length) ends.push(body.length);
  let best = longestFitting(ends.length, (k) => tokensOf(body.slice(0, ends[k - 1] ?? 0)), max);
  let end = best.n === 0 ? 0 : ends[best.n - 1]!;
  let rest = { line: best.n, byte: 0 };
  if (best.n === 0) {
    // Not one whole line fits: the longest prefix of the first line that does.
    const lineEnd = ends[0]!;
    best = longestFitting(lineEnd, (k) => tokensOf(body.slice(0, safeEnd(body, k))), max);
    end = safeEnd(body, best.n);
    rest = { line: 0, byte: utf8Length(body.slice(0, end)) };
  }
  const shown = body.slice(0, end);
  return Object.freeze({
    text: shown,
    cut: Object.freeze({
      max_tokens: max,
      tokens,
      shown_tokens: best.tokens,
      counted_by: count === undefined ? "estimate" : "counter",
      rest: Object.freeze(rest),
    }),
  });
}

/**
 * The largest `n` in `[0, hi)` (`hi` itself is known to be over) whose count
 * fits, by bisection; `n = 0` is the empty prefix, shown as nothing (0
 * tokens). Every other `n` returned was counted and fits, whatever the
 * counter does elsewhere.
 */
function longestFitting(
  hi: number,
  tokensAt: (n: number) => number,
  max: number,
): { n: number; tokens: number } {
  let lo = 0;
  let loTokens = 0;
  let top = hi;
  while (top - lo > 1) {
    const mid = lo + Math.floor((top - lo) / 2);
    const t = tokensAt(mid);
    if (t <= max) {
      lo = mid;
      loTokens = t;
    } else top = mid;
  }
  return { n: lo, tokens: loTokens };
}

/** `k`, or `k - 1` when `k` would split a surrogate pair. */
function safeEnd(text: string, k: number): number {
  const c = text.charCodeAt(k - 1);
  return k > 0 && c >= 0xd800 && c <= 0xdbff ? k - 1 : k;
}

function utf8Length(text: string): number {
  return new TextEncoder().encode(text).length;
}
