/**
 * The `allowed-tools` field of Agent Skills: its grammar, read into entries
 * with typed, column-exact errors, and the rule that matches a tool call
 * against one entry.
 *
 * Grammar (what the public skill collections write): entries separated by
 * white space or by one comma (with any white space around it); an entry is
 * a tool name — ASCII letters, digits and `_ - . : / *`, starting with a
 * letter, a digit, `_` or `*` — optionally followed, without a space, by a
 * pattern in parentheses, `Bash(git:*)`. A pattern holds any characters but
 * control characters, with balanced parentheses. `*` in a name or a pattern
 * matches any run of characters; a pattern ending in `:*` is the prefix form:
 * `git:*` matches the command `git` and every command whose first word is `git`.
 *
 * A pattern matches a command's words, never its raw text: only a command
 * that is one simple command of literal words (`./shell_words.ts`) can match,
 * and after the pattern's literal words only with operands and the options
 * its program's table approves (`./options.ts`), unless the pattern names them.
 *
 * Folder `lib/core/policy/` — the tool policy: allowed-tools patterns, the shell grammar, decisions.
 *
 * @module
 */
import { SkillsetError } from "../errors.ts";
import { quoteShort } from "../_text.ts";
import { compileGlob } from "./_glob.ts";
import { approvedAfter, type OptionWalk, startOptionWalk, unapprovedIn } from "./options.ts";
import { isPlainBuiltin, readWords } from "./shell_words.ts";

/** One entry of an `allowed-tools` value (frozen). */
export interface AllowedToolEntry {
  /** The tool name, possibly with `*` wildcards: `Read`, `mcp__issues__*`. */
  readonly tool: string;
  /** What is between the parentheses (`git:*`), or `null` for a bare name. */
  readonly pattern: string | null;
  /** For a list value, the index of the item the entry is in; 0 for a string. */
  readonly item: number;
  /** The 1-based column where the entry starts: characters from the start of its item (a line break counts as one). */
  readonly column: number;
}

/** Which rule of the grammar a value breaks. */
export type AllowedToolsErrorCode =
  | "INVALID_VALUE"
  | "UNEXPECTED_CHARACTER"
  | "EMPTY_ENTRY"
  | "EMPTY_PATTERN"
  | "UNCLOSED_PATTERN";

/** An `allowed-tools` value that does not follow the grammar. */
export class AllowedToolsError extends SkillsetError {
  /** `"AllowedToolsError"`. */
  override readonly name = "AllowedToolsError";
  /** Which rule is broken. */
  readonly code: AllowedToolsErrorCode;
  /** For a list value, the index of the item; 0 for a string. */
  readonly item: number;
  /** The 1-based column of the offending character: characters from the start of its item. */
  readonly column: number;

  /**
   * Describe a broken value.
   *
   * @param code Which rule is broken.
   * @param reason What is wrong, for the message.
   * @param column The 1-based column in the item.
   * @param item The item of a list value, or `null` for a string.
   */
  constructor(code: AllowedToolsErrorCode, reason: string, column: number, item: number | null) {
    super(
      `Invalid allowed-tools at ${
        item === null ? "" : `item ${item + 1}, `
      }column ${column}: ${reason}`,
    );
    this.code = code;
    this.item = item ?? 0;
    this.column = column;
  }
}

const START_BIT = 1;
const NAME_BIT = 2;
const SPACE_BIT = 4;
/** The class of each ASCII character: may start a name, may be in one, is white space. */
const CLASS: Uint8Array = (() => {
  const table = new Uint8Array(128);
  const mark = (chars: string, bits: number) => {
    for (const c of chars) table[c.charCodeAt(0)]! |= bits;
  };
  const alnum = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
  mark(`${alnum}_*`, START_BIT | NAME_BIT);
  mark(".:/-", NAME_BIT);
  mark(" \t\n\v\f\r", SPACE_BIT);
  return table;
})();
/** White space beyond ASCII (what `\s` matches). */
const SPACE = /^\s$/u;
const COMMA = 0x2c;
const OPEN = 0x28;
const CLOSE = 0x29;

/**
 * Read an `allowed-tools` value: a string (`Read, Bash(git:*)`) or a list of
 * strings (YAML `[Read, Bash]`; each item is read as a value of its own).
 *
 * @param value The field's value.
 * @returns The entries in order (frozen), duplicates kept; none for an empty value.
 * @throws {AllowedToolsError} At the first character that breaks the grammar,
 *   with its column: an unexpected character, a comma with no entry before or
 *   after it, `()`, or a `(` never closed; `INVALID_VALUE` for a value that is
 *   not a string or a list of strings.
 * @example
 * ```ts
 * import { parseAllowedTools } from "./allowed_tools.ts";
 * import { assert } from "../_assert.ts";
 *
 * const entries = parseAllowedTools("Read, Bash(git:*) mcp__issues__*");
 * assert.deepEqual(entries.map((e) => [e.tool, e.pattern, e.column]), [
 *   ["Read", null, 1],
 *   ["Bash", "git:*", 7],
 *   ["mcp__issues__*", null, 19],
 * ]);
 * assert.throws(() => parseAllowedTools("Read Bash(git:*"), {
 *   name: "AllowedToolsError",
 *   message: 'Invalid allowed-tools at column 10: "(" is never closed',
 * });
 * ```
 */
export function parseAllowedTools(value: string | readonly string[]): readonly AllowedToolEntry[] {
  const out = readAllowedTools(value, true);
  return Object.freeze(out);
}

/**
 * {@linkcode parseAllowedTools} for callers that keep the entries to
 * themselves: `freeze` false leaves each entry unfrozen (the policy's own copy).
 *
 * @internal
 */
export function readAllowedTools(
  value: string | readonly string[],
  freeze: boolean,
): AllowedToolEntry[] {
  if (typeof value === "string") return parseItem(value, null, freeze);
  if (!Array.isArray(value)) {
    throw new AllowedToolsError(
      "INVALID_VALUE",
      `expected a string or a list of strings, got ${describe(value)}`,
      1,
      null,
    );
  }
  const out: AllowedToolEntry[] = [];
  for (let i = 0; i < value.length; i++) {
    const item: unknown = value[i];
    if (typeof item !== "string") {
      throw new AllowedToolsError(
        "INVALID_VALUE",
        `expected a string, got ${describe(item)}`,
        1,
        i,
      );
    }
    for (const entry of parseItem(item, i, freeze)) out.push(entry);
  }
  return out;
}

function parseItem(text: string, item: number | null, freeze: boolean): AllowedToolEntry[] {
  const out: AllowedToolEntry[] = [];
  const n = text.length;
  let i = 0;
  let column = 1;
  /** The column of a comma seen since the last entry, or 0. */
  let comma = 0;
  while (i < n) {
    const code = text.charCodeAt(i);
    if (code < 128 ? (CLASS[code]! & SPACE_BIT) !== 0 : isWideSpace(text, i)) {
      i += width(text, i, code);
      column++;
      continue;
    }
    if (code === COMMA) {
      if (out.length === 0 || comma !== 0) {
        fail(item, "EMPTY_ENTRY", 'expected a tool name before ","', column);
      }
      comma = column;
      i++;
      column++;
      continue;
    }
    if (code >= 128 || (CLASS[code]! & START_BIT) === 0) {
      fail(
        item,
        "UNEXPECTED_CHARACTER",
        `unexpected ${
          JSON.stringify(charAt(text, i))
        } (a tool name starts with a letter, a digit, "_" or "*")`,
        column,
      );
    }
    const startColumn = column;
    const start = i;
    let c = code;
    while (c < 128 && (CLASS[c]! & NAME_BIT) !== 0) {
      i++;
      column++;
      if (i === n) break;
      c = text.charCodeAt(i);
    }
    const tool = text.slice(start, i);
    let pattern: string | null = null;
    if (i < n && text.charCodeAt(i) === OPEN) {
      const open = column;
      i++;
      column++;
      const from = i;
      let depth = 1;
      while (i < n) {
        const p = text.charCodeAt(i);
        if (p < 0x20 || (p >= 0x7f && p <= 0x9f)) {
          fail(
            item,
            "UNEXPECTED_CHARACTER",
            `unexpected control character ${JSON.stringify(charAt(text, i))} in the pattern of ${
              quoteShort(tool)
            }`,
            column,
          );
        }
        if (p === OPEN) depth++;
        else if (p === CLOSE && --depth === 0) break;
        i += width(text, i, p);
        column++;
      }
      if (depth > 0) fail(item, "UNCLOSED_PATTERN", '"(" is never closed', open);
      pattern = text.slice(from, i);
      if (pattern === "") {
        fail(item, "EMPTY_PATTERN", `empty pattern "()" after ${quoteShort(tool)}`, open);
      }
      i++;
      column++;
    }
    const entry = { tool, pattern, item: item ?? 0, column: startColumn };
    out.push(freeze ? Object.freeze(entry) : entry);
    comma = 0;
    // What follows an entry must be a separator or the end.
    if (i < n) {
      const next = text.charCodeAt(i);
      const spaced = next < 128 ? (CLASS[next]! & SPACE_BIT) !== 0 : isWideSpace(text, i);
      if (!spaced && next !== COMMA) {
        fail(
          item,
          "UNEXPECTED_CHARACTER",
          `unexpected ${JSON.stringify(charAt(text, i))} after ${
            quoteShort(formatEntry({ tool, pattern }))
          } (${
            pattern === null
              ? "a tool name holds letters, digits and _ - . : / *"
              : "entries are separated by spaces or commas"
          })`,
          column,
        );
      }
    }
  }
  if (comma !== 0) fail(item, "EMPTY_ENTRY", 'expected a tool name after ","', comma);
  return out;
}

function fail(
  item: number | null,
  code: AllowedToolsErrorCode,
  reason: string,
  column: number,
): never {
  throw new AllowedToolsError(code, reason, column, item);
}

/** The character at `i` (a whole surrogate pair), for messages. */
function charAt(text: string, i: number): string {
  return String.fromCodePoint(text.codePointAt(i)!);
}

/** Code units of the character at `i`: two for a surrogate pair, else one (one column either way). */
function width(text: string, i: number, code: number): number {
  if (code < 0xd800 || code > 0xdbff) return 1;
  const low = text.charCodeAt(i + 1);
  return low >= 0xdc00 && low <= 0xdfff ? 2 : 1;
}

/** White space beyond ASCII, as `\s` has it. */
function isWideSpace(text: string, i: number): boolean {
  return SPACE.test(charAt(text, i));
}

/**
 * Write entries back as an `allowed-tools` string, separated by single spaces:
 * `parseAllowedTools(formatAllowedTools(e))` gives back the tools and patterns of `e`.
 *
 * @param entries Entries, as {@linkcode parseAllowedTools} returns them.
 * @returns The canonical value.
 * @example
 * ```ts
 * import { formatAllowedTools, parseAllowedTools } from "./allowed_tools.ts";
 * import { assert } from "../_assert.ts";
 *
 * assert.equal(formatAllowedTools(parseAllowedTools("Read,  Bash(git:*)")), "Read Bash(git:*)");
 * ```
 */
export function formatAllowedTools(
  entries: Iterable<Pick<AllowedToolEntry, "tool" | "pattern">>,
): string {
  const out: string[] = [];
  for (const e of entries) out.push(formatEntry(e));
  return out.join(" ");
}

/**
 * One entry as written: `Read`, `Bash(git:*)`.
 *
 * @param entry An entry.
 * @returns Its text.
 */
export function formatEntry(entry: Pick<AllowedToolEntry, "tool" | "pattern">): string {
  return entry.pattern === null ? entry.tool : `${entry.tool}(${entry.pattern})`;
}

/**
 * What a call's input is matched against: the input itself when it is a
 * string, or its `command` field when that is a string (the shape of a
 * shell tool's input); otherwise nothing, and only bare entries match.
 *
 * @param input A tool call's input.
 * @returns The text patterns are matched against, or `undefined`.
 */
export function callSubject(input: unknown): string | undefined {
  if (typeof input === "string") return input;
  if (typeof input === "object" && input !== null) {
    const command = (input as { readonly command?: unknown }).command;
    if (typeof command === "string") return command;
  }
  return undefined;
}

/**
 * A compiled pattern, matched against a command's words joined by NUL (a
 * character no word holds, so the joined text says where each word ends).
 *
 * @internal
 */
export interface CommandPattern {
  /** The joined words of a prefix form's head without `*` (`git\0log` of `git log:*`), or `null`. */
  readonly prefix: string | null;
  /** The head and a NUL: a longer command must start with it. */
  readonly spaced: string;
  /** Any other pattern's test; `null` with `prefix` `null` for a pattern that is not plain words (it matches nothing). */
  readonly test: ((joined: string) => boolean) | null;
  /** How many leading words of a matching command the pattern names literally (before any `*`). */
  readonly head: number;
  /** The option words a pattern with `*` names further on (`Bash(git * --oneline)`), or `null`. */
  readonly namedWords: ReadonlySet<string> | null;
  /**
   * The walk over options after the literal words, resolved once (the
   * program's or subcommand's table): `null` when they do not fix it, or the
   * pattern names options further on; the general walk reads those.
   */
  readonly walk: OptionWalk | null;
  /**
   * Whether the pattern fixes its program (its first word has no `*`) and it
   * is not a plain builtin: a plain command it matches then passes the
   * grammar's own checks without a second reading.
   */
  readonly fixed: boolean;
  /** For a prefix form with a head of plain words and a fixed program: the head and a space (the policy's fast path). */
  readonly quick: { readonly spaced: string } | null;
  /**
   * The same pattern over words joined by single spaces, for a plain command
   * (whose words hold no blank); `null` when a word of the pattern holds one.
   */
  readonly plain: {
    readonly prefix: string | null;
    readonly spaced: string;
    readonly test: ((text: string) => boolean) | null;
  } | null;
}

/** The separator of words in joined text. */
export const WORD_SEPARATOR = "\u0000";

const NOTHING: CommandPattern = Object.freeze({
  prefix: null,
  spaced: "",
  test: null,
  head: 0,
  namedWords: null,
  walk: null,
  fixed: false,
  quick: null,
  plain: null,
});

/**
 * Compile a pattern: it is read with the shell grammar of
 * {@linkcode shellWords} (where `*`, quoted or not, is a wildcard: any run of
 * characters, across words too), and a trailing `:*` is the prefix form:
 * `git log:*` matches the words `git log` and any command whose first words
 * they are. A pattern that is not plain words (`echo $(date)`) matches nothing.
 *
 * @internal
 */
export function compileCommandPattern(pattern: string): CommandPattern {
  const prefixForm = pattern.endsWith(":*");
  const words = readWords(prefixForm ? pattern.slice(0, -2) : pattern, true);
  if (words === undefined || words.length === 0) return NOTHING;
  const program = words[0]!;
  const fixed = !program.includes("*") && !isPlainBuiltin(program);
  const starred = words.findIndex((w) => w.includes("*"));
  const literalOptions = words.filter((w, i) =>
    i > starred && w.startsWith("-") && !w.includes("*")
  );
  const plain = words.some((w) => w.includes(" ") || w.includes("\t"))
    ? null
    : joinedMatcher(words.join(" "), " ", prefixForm);
  const head = starred < 0 ? words.length : starred;
  const namedWords = starred >= 0 && literalOptions.length > 0 ? new Set(literalOptions) : null;
  return {
    ...joinedMatcher(words.join(WORD_SEPARATOR), WORD_SEPARATOR, prefixForm),
    head,
    namedWords,
    walk: namedWords === null ? startOptionWalk(words.slice(0, head)) : null,
    fixed,
    quick: prefixForm && fixed && words.every((w) => PLAIN_HEAD.test(w)) &&
        !words[0]!.includes("=") && !words[0]!.startsWith("%")
      ? { spaced: words.join(" ") + " " }
      : null,
    plain,
  };
}

/** A head word the fast path can compare as text: unquoted word characters only. */
const PLAIN_HEAD = /^[A-Za-z0-9_\-./:,+@%=]+$/;

function joinedMatcher(
  head: string,
  separator: string,
  prefixForm: boolean,
): Pick<CommandPattern, "prefix" | "spaced" | "test"> {
  if (!head.includes("*")) {
    if (prefixForm) return { prefix: head, spaced: head + separator, test: null };
    return { prefix: null, spaced: "", test: (joined) => joined === head };
  }
  const bare = compileGlob(head).matches;
  if (!prefixForm) return { prefix: null, spaced: "", test: bare };
  const more = compileGlob(head + separator + "*").matches;
  return { prefix: null, spaced: "", test: (joined) => bare(joined) || more(joined) };
}

/**
 * Whether a command's text matches a compiled pattern, before the
 * code-running options: `joined` is its words joined by NUL, or, with
 * `plain`, a plain command's own text (its words joined by single spaces).
 *
 * @internal
 */
export function matchesText(p: CommandPattern, joined: string, plain: boolean): boolean {
  let form: Pick<CommandPattern, "prefix" | "spaced" | "test"> = p;
  let text = joined;
  if (plain) {
    if (p.plain !== null) form = p.plain;
    else text = joined.replaceAll(" ", WORD_SEPARATOR);
  }
  return form.prefix !== null
    ? text === form.prefix || text.startsWith(form.spaced)
    : form.test !== null && form.test(text);
}

/**
 * Whether a command's words, which the pattern's text matched, use only the
 * options the pattern names or its program's table approves.
 *
 * @internal
 */
export function approves(p: CommandPattern, words: readonly string[]): boolean {
  return approvesIn(p, words.join(WORD_SEPARATOR), WORD_SEPARATOR);
}

/**
 * {@linkcode approves} of words joined by one `separator`, without splitting
 * them: from where the pattern's literal words leave the walk when
 * compiling resolved it, else the whole walk.
 *
 * @internal
 */
export function approvesIn(p: CommandPattern, text: string, separator: string): boolean {
  return p.walk !== null
    ? approvedAfter(p.walk, text, separator)
    : unapprovedIn(text, separator, p.head, p.namedWords) === undefined;
}

/** A compiled pattern: whether a call's subject matches it. */
export type PatternMatcher = (subject: string) => boolean;

/**
 * Compile a pattern into a test of a whole command: the command must be one
 * simple command of literal words ({@linkcode shellWords}), its words must
 * match the pattern, and after the pattern's literal words it may use only
 * operands and the options the pattern names or its program's table
 * approves ({@linkcode unapprovedOption}).
 *
 * @param pattern The text between the parentheses.
 * @returns The matcher.
 */
export function compilePattern(pattern: string): PatternMatcher {
  const p = compileCommandPattern(pattern);
  return (subject) => {
    const words = readWords(subject);
    if (words === undefined) return false;
    return matchesText(p, words.join(WORD_SEPARATOR), false) && approves(p, words);
  };
}

/**
 * Whether a tool call matches one entry: its name matches the entry's name
 * (with `*` wildcards) and, for an entry with a pattern, the call's subject
 * ({@linkcode callSubject}) matches the pattern.
 *
 * @param entry An entry.
 * @param call The tool call: its name and input.
 * @returns Whether the entry covers the call.
 * @example
 * ```ts
 * import { matchesAllowedTool, parseAllowedTools } from "./allowed_tools.ts";
 * import { assert } from "../_assert.ts";
 *
 * const [git] = parseAllowedTools("Bash(git:*)");
 * assert.equal(matchesAllowedTool(git!, { name: "Bash", input: { command: "git status" } }), true);
 * assert.equal(matchesAllowedTool(git!, { name: "Bash", input: "gitk" }), false);
 * assert.equal(matchesAllowedTool(git!, { name: "Bash", input: "git log; rm -rf ~" }), false);
 * assert.equal(matchesAllowedTool(git!, { name: "Bash", input: "git -c core.pager=sh log" }), false);
 * ```
 */
export function matchesAllowedTool(
  entry: Pick<AllowedToolEntry, "tool" | "pattern">,
  call: { readonly name: string; readonly input?: unknown },
): boolean {
  if (!compileGlob(entry.tool).matches(call.name)) return false;
  if (entry.pattern === null) return true;
  const subject = callSubject(call.input);
  return subject !== undefined && compilePattern(entry.pattern)(subject);
}

function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "a list";
  return typeof value === "object" ? "a mapping" : typeof value;
}
