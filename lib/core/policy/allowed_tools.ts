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
 * `git:*` matches `git` and `git` followed by a space and anything.
 *
 * @module
 */
import { quoteShort } from "../_text.ts";
import { compileGlob } from "./_glob.ts";

/** One entry of an `allowed-tools` value (frozen). */
export interface AllowedToolEntry {
  /** The tool name, possibly with `*` wildcards: `Read`, `mcp__github__*`. */
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
export class AllowedToolsError extends Error {
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

const NAME_START = /^[A-Za-z0-9_*]$/;
const NAME_CHAR = /^[A-Za-z0-9_.:/*-]$/;
const SPACE = /^\s$/u;
// deno-lint-ignore no-control-regex
const CONTROL = /^[\u0000-\u001f\u007f-\u009f]$/;

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
 * const entries = parseAllowedTools("Read, Bash(git:*) mcp__github__*");
 * assert.deepEqual(entries.map((e) => [e.tool, e.pattern, e.column]), [
 *   ["Read", null, 1],
 *   ["Bash", "git:*", 7],
 *   ["mcp__github__*", null, 19],
 * ]);
 * assert.throws(() => parseAllowedTools("Read Bash(git:*"), {
 *   name: "AllowedToolsError",
 *   message: 'Invalid allowed-tools at column 10: "(" is never closed',
 * });
 * ```
 */
export function parseAllowedTools(value: string | readonly string[]): readonly AllowedToolEntry[] {
  if (typeof value === "string") return Object.freeze(parseItem(value, null));
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
    for (const entry of parseItem(item, i)) out.push(entry);
  }
  return Object.freeze(out);
}

function parseItem(text: string, item: number | null): AllowedToolEntry[] {
  const out: AllowedToolEntry[] = [];
  const fail = (code: AllowedToolsErrorCode, reason: string, column: number): never => {
    throw new AllowedToolsError(code, reason, column, item);
  };
  let i = 0;
  let column = 1;
  /** The column of a comma seen since the last entry, or 0. */
  let comma = 0;
  const char = (): string => String.fromCodePoint(text.codePointAt(i)!);
  const step = (c: string): void => {
    i += c.length;
    column++;
  };
  while (i < text.length) {
    const c = char();
    if (SPACE.test(c)) {
      step(c);
      continue;
    }
    if (c === ",") {
      if (out.length === 0 || comma !== 0) {
        fail("EMPTY_ENTRY", 'expected a tool name before ","', column);
      }
      comma = column;
      step(c);
      continue;
    }
    if (!NAME_START.test(c)) {
      fail(
        "UNEXPECTED_CHARACTER",
        `unexpected ${JSON.stringify(c)} (a tool name starts with a letter, a digit, "_" or "*")`,
        column,
      );
    }
    const startColumn = column;
    const start = i;
    while (i < text.length && NAME_CHAR.test(text[i]!)) step(text[i]!);
    const tool = text.slice(start, i);
    let pattern: string | null = null;
    if (text[i] === "(") {
      const open = column;
      step("(");
      const from = i;
      let depth = 1;
      while (i < text.length) {
        const p = char();
        if (CONTROL.test(p)) {
          fail(
            "UNEXPECTED_CHARACTER",
            `unexpected control character ${JSON.stringify(p)} in the pattern of ${
              quoteShort(tool)
            }`,
            column,
          );
        }
        if (p === "(") depth++;
        else if (p === ")" && --depth === 0) break;
        step(p);
      }
      if (depth > 0) fail("UNCLOSED_PATTERN", '"(" is never closed', open);
      pattern = text.slice(from, i);
      if (pattern === "") {
        fail("EMPTY_PATTERN", `empty pattern "()" after ${quoteShort(tool)}`, open);
      }
      step(")");
    }
    out.push(Object.freeze({ tool, pattern, item: item ?? 0, column: startColumn }));
    comma = 0;
    // What follows an entry must be a separator or the end.
    if (i < text.length) {
      const next = char();
      if (!SPACE.test(next) && next !== ",") {
        fail(
          "UNEXPECTED_CHARACTER",
          `unexpected ${JSON.stringify(next)} after ${
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
  if (comma !== 0) fail("EMPTY_ENTRY", 'expected a tool name after ","', comma);
  return out;
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
 * Shell control syntax: a command holding any of it is never matched by a
 * pattern, since a prefix such as `git:*` would otherwise approve
 * `git status; rm -rf ~`.
 */
// deno-lint-ignore no-control-regex
const SHELL_CONTROL = /[;&|`<>\n\r\u0000]|\$\(/;

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

/** A compiled pattern: whether a call's subject matches it. */
export type PatternMatcher = (subject: string) => boolean;

/**
 * Compile a pattern: `*` matches any run of characters; a trailing `:*` is
 * the prefix form (`git:*` matches `git` and `git …`). The matcher refuses
 * every subject holding shell control syntax (`;`, `&`, `|`, a backtick,
 * `$(`, `<`, `>`, a line break or NUL).
 *
 * @param pattern The text between the parentheses.
 * @returns The matcher.
 */
export function compilePattern(pattern: string): PatternMatcher {
  if (pattern.endsWith(":*")) {
    const head = pattern.slice(0, -2);
    if (!head.includes("*")) {
      const spaced = `${head} `;
      return (s) => (s === head || s.startsWith(spaced)) && !SHELL_CONTROL.test(s);
    }
    const bare = compileGlob(head).matches;
    const words = compileGlob(`${head} *`).matches;
    return (s) => (bare(s) || words(s)) && !SHELL_CONTROL.test(s);
  }
  const glob = compileGlob(pattern).matches;
  return (s) => glob(s) && !SHELL_CONTROL.test(s);
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
