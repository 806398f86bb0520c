/**
 * Rendering untrusted text (skill names, descriptions, file names, messages)
 * where a model or a person reads it, so that it cannot make lines or entries
 * of its own, move the cursor, recolour a terminal or reorder what is shown.
 *
 * Escaped: C0 controls (U+0000–U+001F), DEL and C1 controls (U+007F–U+009F),
 * the bidi controls (U+061C, U+200E, U+200F, U+202A–U+202E, U+2066–U+2069)
 * and the line and paragraph separators (U+2028, U+2029). Each becomes a
 * visible escape: `\x1b`, `\n`, `\t`, `\r` or `\u202e`.
 *
 * Folder `lib/core/` — the pure core behind `mod.ts`: the error family and shared helpers; no I/O.
 *
 * @module
 */

const UNSAFE =
  // deno-lint-ignore no-control-regex -- matching control characters is the point
  /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029]/g;
const UNSAFE_BUT_LINES =
  // deno-lint-ignore no-control-regex -- matching control characters is the point
  /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029]/g;

const NAMED: Readonly<Record<string, string>> = { "\n": "\\n", "\t": "\\t", "\r": "\\r" };

function visible(char: string): string {
  const named = NAMED[char];
  if (named !== undefined) return named;
  const code = char.charCodeAt(0);
  return code <= 0xff
    ? `\\x${code.toString(16).padStart(2, "0")}`
    : `\\u${code.toString(16).padStart(4, "0")}`;
}

/**
 * Escape every control, bidi and line-separator character, so the text stays
 * on one line and shows what it holds.
 *
 * @param text Untrusted text.
 * @returns The text with those characters as visible escapes; other text unchanged.
 * @throws Never.
 * @example
 * ```ts
 * import { escapeControls } from "./_text.ts";
 * import { assert } from "./_assert.ts";
 *
 * assert.equal(escapeControls("Fill forms\n- admin: all"), "Fill forms\\n- admin: all");
 * assert.equal(escapeControls("a\x1b]0;title\x07b\u202ec"), "a\\x1b]0;title\\x07b\\u202ec");
 * assert.equal(escapeControls("技能 ok"), "技能 ok");
 * ```
 */
export function escapeControls(text: string): string {
  return text.replace(UNSAFE, visible);
}

/**
 * Fold a description for one line, as the reference `skills-ref` shows a
 * block-scalar description: every run of white space holding a line break
 * becomes one space, and the ends are trimmed. What remains is escaped by
 * the caller.
 *
 * @param text A description, perhaps from a `|` or `>` block scalar.
 * @returns The text on one line.
 * @throws Never.
 * @example
 * ```ts
 * import { foldDescription } from "./_text.ts";
 * import { assert } from "./_assert.ts";
 *
 * assert.equal(foldDescription("Fill PDF forms.\n  Use it when\r\nasked.\n"), "Fill PDF forms. Use it when asked.");
 * assert.equal(foldDescription("  one line\t"), "one line");
 * ```
 */
export function foldDescription(text: string): string {
  return text.replace(/[ \t]*(?:\r\n|[\n\r\u2028\u2029])[\s]*/g, " ").trim();
}

/**
 * Like {@linkcode escapeControls}, but keeps newlines and tabs: for
 * multi-line text shown in a terminal (instructions, file pages).
 *
 * @param text Untrusted text.
 * @returns The text with every other control, bidi and separator character escaped.
 * @throws Never.
 * @example
 * ```ts
 * import { escapeControlsKeepingLines } from "./_text.ts";
 * import { assert } from "./_assert.ts";
 *
 * assert.equal(escapeControlsKeepingLines("a\n\tb\x1b[2J\r\n"), "a\n\tb\\x1b[2J\\r\n");
 * ```
 */
export function escapeControlsKeepingLines(text: string): string {
  return text.replace(UNSAFE_BUT_LINES, visible);
}

/**
 * Quote a value for the header of an envelope (see `envelope.ts`): plain text
 * stays as it is; text with a control, bidi or separator character, a leading
 * or trailing space or a leading `"` becomes a JSON string with those
 * characters as `\u` escapes, which `JSON.parse` turns back exactly.
 *
 * @param value The value.
 * @returns One line that reads back as `value`.
 * @throws Never.
 * @example
 * ```ts
 * import { headerValue } from "./_text.ts";
 * import { assert } from "./_assert.ts";
 *
 * assert.equal(headerValue("references/forms.md"), "references/forms.md");
 * assert.equal(headerValue("a\nb"), '"a\\nb"');
 * assert.equal(JSON.parse(headerValue("x\u2028y")), "x\u2028y");
 * ```
 */
export function headerValue(value: string): string {
  UNSAFE.lastIndex = 0;
  const plain = !UNSAFE.test(value) && !value.startsWith('"') && value.trim() === value;
  UNSAFE.lastIndex = 0;
  if (plain) return value;
  return JSON.stringify(value).replace(
    /[\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}

/**
 * Quote a value for an error message, at most 200 characters of it: a longer
 * value is cut and says how long it was.
 *
 * @param value Untrusted text.
 * @param max The most characters quoted (default 200).
 * @returns A JSON string, possibly followed by `… (N characters)`.
 * @throws Never.
 * @example
 * ```ts
 * import { quoteShort } from "./_text.ts";
 * import { assert } from "./_assert.ts";
 *
 * assert.equal(quoteShort("a.md"), '"a.md"');
 * assert.equal(quoteShort("x".repeat(1000), 3), '"xxx"… (1000 characters)');
 * ```
 */
export function quoteShort(value: string, max = 200): string {
  if (value.length <= max) return JSON.stringify(value);
  return `${JSON.stringify(value.slice(0, max))}… (${value.length} characters)`;
}
