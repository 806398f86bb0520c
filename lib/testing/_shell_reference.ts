/**
 * A reference for the policy's shell grammar, by regular expressions: what
 * `shellWords` must return, written the plain way.
 *
 * Folder `lib/testing/` — the testing kit behind `lib/testing.ts`: arbitraries, references, laws.
 *
 * @module
 */
import { isShellKeyword } from "../core/policy/shell_words.ts";

/**
 * One piece of a word: an unquoted character, a single-quoted or a
 * double-quoted string. One character, not a run: a word is a run of pieces,
 * and a run of runs backtracks exponentially on a line that does not match
 * (`git aaaaaaaaaaaaaaaaaaaaaaaa$`).
 */
const PIECE = String.raw`[A-Za-z0-9_\-./:,+@%=STAR]|(?<=[A-Za-z0-9_\-./,+@%~])~` +
  String.raw`|(?![\x00-\x7f])[\p{L}\p{M}\p{N}\p{P}\p{S}]` +
  String.raw`|'(?:[\t\x20-\x26\x28-\x7e]|(?![\x00-\x7f])[\p{L}\p{M}\p{N}\p{P}\p{S}])*'` +
  String
    .raw`|"(?:[\t\x20\x23\x25-\x5b\x5d-\x5f\x61-\x7e]|(?![\x00-\x7f])[\p{L}\p{M}\p{N}\p{P}\p{S}])*"`;

function wordsRegExp(star: boolean): { line: RegExp; word: RegExp } {
  const piece = PIECE.replace("STAR", star ? "*" : "");
  const word = `(?:${piece})+`;
  return {
    line: new RegExp(`^[ \\t]*(?:${word}(?:[ \\t]+${word})*)?[ \\t]*$`, "u"),
    word: new RegExp(word, "gu"),
  };
}
const COMMAND_WORDS = wordsRegExp(false);
const PATTERN_WORDS = wordsRegExp(true);

/**
 * The words of a command under the policy's shell grammar, by regular
 * expressions (the reference for `shellWords`): `undefined` for anything but
 * one simple command of literal words.
 *
 * @param command A command.
 * @param star Whether an unquoted `*` is a word character (a pattern's wildcard).
 * @returns The words, or `undefined`.
 * @example
 * ```ts
 * import { referenceShellWords } from "../testing.ts";
 * import { assert } from "../core/_assert.ts";
 *
 * assert.deepEqual(referenceShellWords(`git commit -m "a b"`), ["git", "commit", "-m", "a b"]);
 * assert.equal(referenceShellWords("git ${x@P}"), undefined);
 * ```
 */
export function referenceShellWords(command: string, star = false): string[] | undefined {
  const { line, word } = star ? PATTERN_WORDS : COMMAND_WORDS;
  if (!line.test(command)) return undefined;
  const raw = command.match(word) ?? [];
  if (raw.length === 0) return undefined;
  const words = raw.map((w) =>
    [...w.matchAll(/'([^']*)'|"([^"]*)"|([^'"]+)/gu)].map((m) => m[1] ?? m[2] ?? m[3]).join("")
  );
  const program = words[0]!;
  // An unquoted `=` in the program word is an assignment; `%` starts a job.
  const bare = raw[0]!.replace(/'[^']*'|"[^"]*"/gu, "");
  if (program === "" || program.startsWith("%") || bare.includes("=")) return undefined;
  if (isShellKeyword(program)) return undefined;
  // `printf -v NAME`, `test -v NAME`, `test -R NAME` evaluate the name's subscript.
  const evaluating = program === "printf" ? /^-[^-]*v/ : program === "test" ? /^-[^-]*[vR]/ : null;
  if (evaluating !== null && words.slice(1).some((w) => evaluating.test(w))) return undefined;
  return words;
}
