/**
 * The shell grammar an `allowed-tools` pattern is matched under: a command
 * can match a pattern only when it is **one simple command of literal
 * words** — words that every POSIX shell (bash, dash) reads the same way and
 * expands to themselves. Anything else is not refused here; it only never
 * matches a pattern, so the call falls to the policy's `ask` or `deny`.
 *
 * | a word is made of                      | holding                                                            |
 * | -------------------------------------- | ------------------------------------------------------------------ |
 * | unquoted characters                    | ASCII letters and digits, `_ - . / : , + @ % =`, other printable non-ASCII |
 * | single-quoted strings `'…'`            | any printable character but `'` (a tab too)                        |
 * | double-quoted strings `"…"`            | any printable character but `"`, `$`, a backtick, `\` and `!`      |
 *
 * Words are separated by spaces or tabs (leading and trailing ones are
 * ignored). Refused anywhere outside quotes: `$`, a backtick, `\`, the glob
 * characters `* ? [ ]`, `~` (but inside a word after a word character other
 * than `=` and `:`: `HEAD~1`), `{ }`, `#`, `!`, `^`, `;`, `&`, `|`, `<`, `>`,
 * `(`, `)`; refused anywhere: a line break or any other control character,
 * white space beyond space and tab (no-break space, U+2028, …), format and
 * private-use characters, a lone surrogate, an unclosed quote, an empty
 * command. The first word is the program: it may not be a reserved word
 * (`time`, `if`, `coproc`, …), a shell builtin other than `cd echo false
 * printf pwd test true` (`eval`, `source`, `declare`, `exec`, `command`, …
 * run code or read names as array subscripts), empty, start with `%` (a job)
 * or hold an unquoted `=` (an assignment such as `GIT_PAGER=x git log`); and
 * a plain builtin may not use its code-running options (`printf -v`,
 * `test -v`: they evaluate `a[$(…)]` too).
 *
 * Folder `lib/core/policy/` — the tool policy: allowed-tools patterns, the shell grammar, decisions.
 *
 * @module
 */

/** The class of each ASCII character outside quotes. */
const WORD = 1;
const BLANK = 2;
const SINGLE = 3;
const DOUBLE = 4;
const UNQUOTED: Uint8Array = (() => {
  const table = new Uint8Array(128);
  const mark = (chars: string, cls: number) => {
    for (const c of chars) table[c.charCodeAt(0)] = cls;
  };
  mark("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-./:,+@%=", WORD);
  mark(" \t", BLANK);
  mark("'", SINGLE);
  mark('"', DOUBLE);
  return table;
})();
/** Printable ASCII (and tab) allowed inside double quotes: all but `"` `$` backtick `\` `!`. */
const IN_DOUBLE: Uint8Array = (() => {
  const table = new Uint8Array(128);
  for (let c = 0x20; c < 0x7f; c++) table[c] = 1;
  table[0x09] = 1;
  for (const c of '"$`\\!') table[c.charCodeAt(0)] = 0;
  return table;
})();
/** A non-ASCII character that is a letter, mark, number, punctuation or symbol. */
const PRINTABLE = /^[\p{L}\p{M}\p{N}\p{P}\p{S}]$/u;
const EQUALS = 0x3d;
const STAR = 0x2a;
const PERCENT = 0x25;
const DQ = 0x22;
const TILDE = 0x7e;

/** Whether an unquoted `~` after the character `prev` (in the same word) is literal to bash and dash. */
function isTildeLiteralAfter(prev: number): boolean {
  return prev === TILDE ||
    (prev < 128 && UNQUOTED[prev] === WORD && prev !== EQUALS && prev !== 0x3a);
}

/**
 * The shell's reserved words: a command starting with one is not a plain
 * program call (`time git status` runs `git` timed; `coproc`, `function`
 * and the compound commands are syntax).
 */
const RESERVED: ReadonlySet<string> = new Set([
  "!",
  "[[",
  "]]",
  "{",
  "}",
  "case",
  "coproc",
  "do",
  "done",
  "elif",
  "else",
  "esac",
  "fi",
  "for",
  "function",
  "if",
  "in",
  "select",
  "then",
  "time",
  "until",
  "while",
]);

/**
 * The builtins of bash and dash, less the plain ones: a builtin runs inside
 * the shell, so its arguments are not a program's argv — `eval`, `source`,
 * `exec`, `command`, `builtin`, `trap` run code, and `declare`, `export`,
 * `read`, `unset`, `let`, … evaluate `a[$(…)]` subscripts in names.
 */
const BUILTINS: ReadonlySet<string> = new Set([
  ".",
  ":",
  "[",
  "alias",
  "bg",
  "bind",
  "break",
  "builtin",
  "caller",
  "chdir",
  "command",
  "compgen",
  "complete",
  "compopt",
  "continue",
  "declare",
  "dirs",
  "disown",
  "enable",
  "eval",
  "exec",
  "exit",
  "export",
  "fc",
  "fg",
  "getopts",
  "hash",
  "help",
  "history",
  "jobs",
  "kill",
  "let",
  "local",
  "logout",
  "mapfile",
  "popd",
  "pushd",
  "read",
  "readarray",
  "readonly",
  "return",
  "set",
  "shift",
  "shopt",
  "source",
  "suspend",
  "times",
  "trap",
  "type",
  "typeset",
  "ulimit",
  "umask",
  "unalias",
  "unset",
  "wait",
]);

/**
 * The builtins a command may start with: each takes its words as plain
 * arguments and runs nothing (their options that do — `printf -v`,
 * `test -v`, `test -R` — make a command not plain words at all).
 */
export const PLAIN_BUILTINS: readonly string[] = Object.freeze([
  "cd",
  "echo",
  "false",
  "printf",
  "pwd",
  "test",
  "true",
]);

const PLAIN_BUILTIN_SET: ReadonlySet<string> = new Set(PLAIN_BUILTINS);
const DASH = 0x2d;

/**
 * Read a command as one simple command of literal words, or say it is not
 * one. The words are what bash and dash pass as the program's argv.
 *
 * @param command A shell command, as a tool call holds it.
 * @returns The words (frozen), the program first; `undefined` when the
 *   command is anything but one simple command of literal words.
 * @example
 * ```ts
 * import { shellWords } from "./shell_words.ts";
 * import { assert } from "../_assert.ts";
 *
 * assert.deepEqual(shellWords(`git commit -m "fix: parse quotes"`), ["git", "commit", "-m", "fix: parse quotes"]);
 * assert.deepEqual(shellWords("git  'status'"), ["git", "status"]);
 * assert.equal(shellWords("git --version ${x@P}"), undefined);
 * assert.equal(shellWords("GIT_PAGER=sh git log"), undefined);
 * assert.equal(shellWords("git status; id"), undefined);
 * ```
 */
export function shellWords(command: string): readonly string[] | undefined {
  if (typeof command !== "string") throw new TypeError("command must be a string");
  const words = readWords(command);
  return words === undefined ? undefined : Object.freeze(words);
}

/**
 * {@linkcode shellWords} without the freeze, for the policy's own use; with
 * `star`, an unquoted `*` is a word character too (a pattern's wildcard).
 *
 * @internal
 */
export function readWords(command: string, star = false): string[] | undefined {
  const n = command.length;
  const words: string[] = [];
  let i = 0;
  while (i < n) {
    let c = command.charCodeAt(i);
    if (c < 128 && UNQUOTED[c] === BLANK) {
      i++;
      continue;
    }
    // One word: runs of unquoted characters and quoted strings, up to a blank or the end.
    const first = words.length === 0;
    const start = i;
    let word = "";
    let from = i; // the start of the unquoted run not yet added to `word`
    while (i < n) {
      c = command.charCodeAt(i);
      if (c < 128) {
        const cls = UNQUOTED[c]!;
        if (cls === WORD) {
          if (first && (c === EQUALS || (c === PERCENT && i === start))) return undefined;
          i++;
          continue;
        }
        if (cls === BLANK) break;
        if (c === STAR && star) {
          i++;
          continue;
        }
        // `~` is literal inside a word (`HEAD~1`), after a letter, digit or `_ - . / , + @ %`:
        // never at a word's start, nor after `=` or `:` (bash expands `a=~` and `a:~` there).
        if (c === TILDE && i > start && isTildeLiteralAfter(command.charCodeAt(i - 1))) {
          i++;
          continue;
        }
        if (cls === SINGLE) {
          word += command.slice(from, i);
          const close = command.indexOf("'", i + 1);
          if (close < 0) return undefined;
          for (let k = i + 1; k < close; k++) {
            const q = command.charCodeAt(k);
            if (q < 128 ? q !== 0x09 && (q < 0x20 || q === 0x7f) : !printableAt(command, k)) {
              return undefined;
            }
            if (q >= 0xd800 && q <= 0xdbff) k++;
          }
          word += command.slice(i + 1, close);
          i = close + 1;
          from = i;
          continue;
        }
        if (cls === DOUBLE) {
          word += command.slice(from, i);
          let k = i + 1;
          for (;; k++) {
            if (k === n) return undefined;
            const q = command.charCodeAt(k);
            if (q === DQ) break;
            if (q < 128 ? IN_DOUBLE[q] === 0 : !printableAt(command, k)) return undefined;
            if (q >= 0xd800 && q <= 0xdbff) k++;
          }
          word += command.slice(i + 1, k);
          i = k + 1;
          from = i;
          continue;
        }
        return undefined;
      }
      if (!printableAt(command, i)) return undefined;
      i += c >= 0xd800 && c <= 0xdbff ? 2 : 1;
    }
    word = from === start ? command.slice(start, i) : word + command.slice(from, i);
    words.push(word);
  }
  if (words.length === 0) return undefined;
  const program = words[0]!;
  if (
    program === "" || program.charCodeAt(0) === PERCENT || RESERVED.has(program) ||
    BUILTINS.has(program)
  ) {
    return undefined;
  }
  // A builtin runs inside the shell: `printf -v 'a[$(…)]'` evaluates the subscript.
  if (PLAIN_BUILTIN_SET.has(program) && evaluatesNames(program, words)) return undefined;
  return words;
}

/**
 * Whether a plain builtin's words use an option that evaluates a name's
 * array subscript: `printf -v NAME`, `test -v NAME` and `test -R NAME` (any
 * word of short options holding the letter, as the shells read them).
 */
function evaluatesNames(program: string, words: readonly string[]): boolean {
  const letters = program === "printf" ? "v" : program === "test" ? "vR" : "";
  if (letters === "") return false;
  for (let i = 1; i < words.length; i++) {
    const w = words[i]!;
    if (w.length < 2 || w.charCodeAt(0) !== DASH || w.charCodeAt(1) === DASH) continue;
    for (let k = 1; k < w.length; k++) if (letters.includes(w[k]!)) return true;
  }
  return false;
}

/**
 * Whether a command is plain: words of unquoted ASCII word characters
 * separated by single spaces, without leading or trailing space, the first
 * without `=` and not starting with `%`. Its words are then
 * `command.split(" ")` and its text is their joining by spaces: the policy's
 * fast path. {@linkcode readWords} accepts it when its program is neither a
 * reserved word nor a builtin (a plain builtin: without its code-running
 * options) — which the policy knows of a pattern's own program beforehand.
 *
 * @internal
 */
export function isPlainCommand(command: string): boolean {
  return PLAIN_COMMAND.test(command);
}

/** A plain command: see {@linkcode isPlainCommand}. */
const PLAIN_COMMAND = /^[A-Za-z0-9_\-./:,+@][A-Za-z0-9_\-./:,+@%]*(?: [A-Za-z0-9_\-./:,+@%=]+)*$/;

/** Whether the character at `i` (non-ASCII) is printable: a letter, mark, number, punctuation or symbol. */
function printableAt(text: string, i: number): boolean {
  const code = text.charCodeAt(i);
  if (code >= 0xd800 && code <= 0xdbff) {
    const low = text.charCodeAt(i + 1);
    if (!(low >= 0xdc00 && low <= 0xdfff)) return false;
    return PRINTABLE.test(text.slice(i, i + 2));
  }
  if (code >= 0xdc00 && code <= 0xdfff) return false;
  return PRINTABLE.test(text[i]!);
}

/** Whether a word is a reserved word or a builtin a command may not start with. @internal */
export function isShellKeyword(word: string): boolean {
  return RESERVED.has(word) || BUILTINS.has(word);
}

/**
 * The policy's fast path, after a plain head: whether `command[from…]` is
 * plain words (unquoted word characters) separated by single spaces, with no
 * trailing one.
 *
 * @internal
 */
export function isPlainTail(command: string, from: number): boolean {
  const n = command.length;
  if (from >= n) return false;
  for (let i = from, start = from; i < n; i++) {
    const c = command.charCodeAt(i);
    if (c < 128 && UNQUOTED[c] === WORD) continue;
    if (c !== 0x20 || i === start || i === n - 1) return false;
    start = i + 1;
  }
  return true;
}

/**
 * Whether an ASCII character is an unquoted word character: a command
 * starting with it has a first word starting with it too, and
 * {@linkcode isPlainTail}'s words are made of these.
 *
 * @internal
 */
export function isWordStart(code: number): boolean {
  return UNQUOTED[code] === WORD;
}

/** Whether a word is one of {@linkcode PLAIN_BUILTINS}. @internal */
export function isPlainBuiltin(word: string): boolean {
  return PLAIN_BUILTIN_SET.has(word);
}
