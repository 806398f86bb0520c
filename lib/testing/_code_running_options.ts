/**
 * The testing kit's own list of options known to make a program run code of
 * the caller's choosing (`git -c alias.x='!sh' x`, `git fetch
 * --upload-pack=sh`, `find . -exec sh ;`, `tar -I sh`): what the shell law
 * looks for in the argv of a command a policy allowed. It is a list of bad
 * options, kept apart from the policy's tables of options known to be safe
 * (`lib/core/policy/option_tables.ts`) on purpose: an oracle that shared the
 * policy's table could not find a gap in it.
 *
 * | entry              | a command uses it when                                                        |
 * | ------------------ | ----------------------------------------------------------------------------- |
 * | `--name`           | a word is `--name` or `--name=…`, or an abbreviation of it (`--upload-pa`)     |
 * | `-x`               | a word of short options (`-x`, `-ax`, `-xVALUE`: one dash) holds the letter x |
 * | `-name`            | a word is exactly `-name` (find's `-exec`)                                     |
 * | `word`             | the subcommand (the first word that is not an option) is `word`               |
 * | `^opt`             | `opt` is among the options before the subcommand (git's own `-c`)             |
 * | `sub opt`          | the subcommand is `sub`, and `opt` comes after it                             |
 *
 * Folder `lib/testing/` — the testing kit behind `lib/testing.ts`: arbitraries, references, laws.
 *
 * @module
 */

/**
 * The table, by program name (the first word's last path segment).
 *
 * @example
 * ```ts
 * import { CODE_RUNNING_OPTIONS } from "./_code_running_options.ts";
 * import { assert } from "../core/_assert.ts";
 *
 * assert.ok(CODE_RUNNING_OPTIONS.get("git")!.includes("^-c"));
 * ```
 */
export const CODE_RUNNING_OPTIONS: ReadonlyMap<string, readonly string[]> = new Map<
  string,
  readonly string[]
>(
  ([
    ["git", [
      "^-c",
      "^--config-env",
      "^--exec-path",
      "--upload-pack",
      "--receive-pack",
      "--exec",
      "--extcmd",
      "--open-files-in-pager",
      // `git log --format=… --output=.git/config` writes the repository's configuration.
      "--output",
      "config",
      "filter-branch",
      "send-email",
      "bisect run",
      "submodule foreach",
      "clone -u",
      "clone -c",
      "clone --config",
      "clone --template",
      "init --template",
      "rebase -x",
      "difftool -x",
      "grep -O",
      "submodule--helper",
      "instaweb",
      "remote-ext",
      "daemon --access-hook",
    ]],
    // npm's own options may take the next word (`npm --prefix . exec -c sh`): `-c` counts anywhere.
    ["npm", ["--script-shell", "--node-options", "-c", "--call"]],
    ["npx", ["--script-shell", "--node-options", "-c", "--call"]],
    // find's -fprint* and -fls write a file the caller names (-fprintf: with the content it chooses).
    ["find", ["-exec", "-execdir", "-ok", "-okdir", "-fprint", "-fprint0", "-fprintf", "-fls"]],
    // man -H runs a browser of the caller's choosing (no terminal needed); -P a pager (with one).
    ["man", ["-H", "--html", "-P", "--pager", "-C", "--config-file"]],
    ["rsync", ["-e", "--rsh", "--rsync-path"]],
    ["tar", [
      "-I",
      "-F",
      "--use-compress-program",
      "--to-command",
      "--info-script",
      "--new-volume-script",
      "--checkpoint-action",
      "--rsh-command",
    ]],
    ["printf", ["-v"]],
    ["test", ["-v", "-R"]],
  ] as const).map(([program, entries]) => [program, Object.freeze([...entries])]),
);

/** git's own options that take the next word as their value (`git -C dir log`). */
const GIT_VALUE_OPTIONS: ReadonlySet<string> = new Set([
  "-C",
  "-c",
  "--git-dir",
  "--work-tree",
  "--namespace",
  "--config-env",
  "--super-prefix",
  "--attr-source",
]);

/** tar's first word may be a cluster of options without a dash (`tar xIf prog …`). */
const BUNDLED_FIRST: ReadonlySet<string> = new Set(["tar"]);

/**
 * npm reads a long option with one dash too (`-script-shell=sh`, as nopt does)
 * and with `_` for `-` (`--script_shell=sh`).
 */
const LOOSE_LONG: ReadonlySet<string> = new Set(["npm", "npx"]);

/** One option of the table, compiled: how a word uses it, and the entry it reports. */
interface Option {
  readonly entry: string;
  /** Its place in the program's table: what is reported comes in table order. */
  readonly rank: number;
  /** `--name` (abbreviations, `=value`), `-x` (a letter in a cluster), or an exact word. */
  readonly kind: "long" | "short" | "word";
  readonly name: string;
  /** A long option also written with one dash, or with `_` for `-` (npm). */
  readonly loose: boolean;
}

/** A program's table, by where each option counts. */
interface ProgramOptions {
  /** Before the subcommand only (`^-c`). */
  readonly global: readonly Option[];
  /** Anywhere after the program. */
  readonly anywhere: readonly Option[];
  /** After a given subcommand (`clone -u`), as pairs (compared in place, without a cut). */
  readonly scopedList: readonly (readonly [string, readonly Option[]])[];
  /** Subcommands that run code, as a list. */
  readonly subcommandList: readonly Option[];
  /** Whether the program is git (its own options may take the next word). */
  readonly git: boolean;
  /** Whether the first word may bundle letters without a dash (tar). */
  readonly bundled: boolean;
  /** Whether long options may be written loosely (npm): no quick look, every word is checked. */
  readonly loose: boolean;
}

const COMPILED: ReadonlyMap<string, ProgramOptions> = new Map(
  [...CODE_RUNNING_OPTIONS].map(([program, entries]) => {
    const global: Option[] = [];
    const anywhere: Option[] = [];
    const subcommands = new Map<string, Option>();
    const scoped = new Map<string, Option[]>();
    entries.forEach((text, rank) => {
      const entry = `${program} ${text}`;
      const space = text.indexOf(" ");
      const raw = space > 0 ? text.slice(space + 1) : text.replace(/^\^/, "");
      const option: Option = {
        entry,
        rank,
        kind: raw.startsWith("--") ? "long" : raw.length === 2 && raw[0] === "-" ? "short" : "word",
        name: raw.startsWith("--")
          ? raw.slice(2)
          : raw.length === 2 && raw[0] === "-"
          ? raw[1]!
          : raw,
        loose: LOOSE_LONG.has(program) && raw.startsWith("--"),
      };
      if (space > 0) {
        const sub = text.slice(0, space);
        const list = scoped.get(sub);
        if (list === undefined) scoped.set(sub, [option]);
        else list.push(option);
      } else if (text.startsWith("^")) global.push(option);
      else if (text.startsWith("-")) anywhere.push(option);
      else subcommands.set(text, option);
    });
    return [program, {
      global,
      anywhere,
      scopedList: [...scoped],
      subcommandList: [...subcommands.values()],
      git: program === "git",
      bundled: BUNDLED_FIRST.has(program),
      loose: LOOSE_LONG.has(program),
    }];
  }),
);

/**
 * The entries of {@linkcode CODE_RUNNING_OPTIONS} a command's words use,
 * each as `program entry` (`"git ^-c"`); none for a program without entries.
 *
 * @param words A command's words ({@linkcode shellWords}), the program first.
 * @returns The entries used, in table order (empty when none).
 * @throws {TypeError} When a word is not a string or holds NUL.
 * @example
 * ```ts
 * import { codeRunningOptions } from "./_code_running_options.ts";
 * import { assert } from "../core/_assert.ts";
 *
 * assert.deepEqual(codeRunningOptions(["git", "-c", "core.pager=sh", "log"]), ["git ^-c"]);
 * assert.deepEqual(codeRunningOptions(["git", "switch", "-c", "topic"]), []);
 * assert.deepEqual(codeRunningOptions(["find", ".", "-exec", "rm", "{}", ";"]), ["find -exec"]);
 * ```
 */
export function codeRunningOptions(words: readonly string[]): readonly string[] {
  for (const w of words) {
    if (typeof w !== "string" || w.includes(NUL)) {
      throw new TypeError("words must be strings without NUL");
    }
  }
  return codeRunningOptionsIn(words.join(NUL), NUL);
}

/**
 * {@linkcode codeRunningOptions} of words joined by one `separator` (a
 * character no word holds): the policy's own, without splitting.
 *
 * @internal
 */
export function codeRunningOptionsIn(text: string, separator: string): readonly string[] {
  const end0 = text.indexOf(separator);
  if (end0 < 0) return NONE;
  const table = COMPILED.get(text.slice(text.lastIndexOf("/", end0 - 1) + 1, end0));
  return table === undefined ? NONE : usedIn(table, text, separator, end0);
}

/**
 * The options of `table` the words of `text` after the program (which ends
 * at `end0`) use: one pass over the words, each compared in place.
 */
function usedIn(
  table: ProgramOptions,
  text: string,
  separator: string,
  end0: number,
): readonly string[] {
  const n = text.length;
  let used: Option[] | undefined;
  // Before the subcommand (the first word that is not an option, nor the value of one of git's).
  let before = true;
  let scoped: readonly Option[] | undefined;
  let skip = false;
  for (let start = end0 + 1; start <= n;) {
    let end = text.indexOf(separator, start);
    if (end < 0) end = n;
    const dashed = end > start && text.charCodeAt(start) === DASH;
    if (before && !dashed && !skip) {
      before = false;
      const length = end - start;
      for (const [word, options] of table.scopedList) {
        if (length === word.length && text.startsWith(word, start)) scoped = options;
      }
      for (const o of table.subcommandList) {
        if (length === o.name.length && text.startsWith(o.name, start)) used = add(used, o);
      }
      // tar's first word may bundle letters without a dash: `tar xIf prog a.tar`.
      if (start === end0 + 1 && table.bundled) {
        for (const o of table.anywhere) {
          if (o.kind === "short" && has(text, start, end, o.name)) used = add(used, o);
        }
      }
    } else {
      skip = before && dashed && table.git && isGitValueOption(text, start, end);
      if (dashed) {
        if (before) used = collect(text, start, end, table.global, used);
        used = collect(text, start, end, table.anywhere, used);
      }
      if (scoped !== undefined) used = collect(text, start, end, scoped, used);
    }
    start = end + 1;
  }
  if (used === undefined) return NONE;
  return used.length === 1
    ? [used[0]!.entry]
    : used.sort((a, b) => a.rank - b.rank).map((o) => o.entry);
}

function add(used: Option[] | undefined, o: Option): Option[] {
  if (used === undefined) return [o];
  if (!used.includes(o)) used.push(o);
  return used;
}

const NONE: readonly string[] = Object.freeze([]);
const DASH = 0x2d;
const EQUALS = 0x3d;
const UNDERSCORE = 0x5f;
const NUL = "\u0000";

function isGitValueOption(text: string, start: number, end: number): boolean {
  for (const o of GIT_VALUE_OPTIONS) {
    if (end - start === o.length && text.startsWith(o, start)) return true;
  }
  return false;
}

/** Whether `text[start, end)` holds the character `c`. */
function has(text: string, start: number, end: number, c: string): boolean {
  const code = c.charCodeAt(0);
  for (let i = start; i < end; i++) if (text.charCodeAt(i) === code) return true;
  return false;
}

/** Add the options the word `text[start, end)` uses to `used`, each once. */
function collect(
  text: string,
  start: number,
  end: number,
  options: readonly Option[],
  used: Option[] | undefined,
): Option[] | undefined {
  for (let k = 0; k < options.length; k++) {
    const o = options[k]!;
    if (uses(text, start, end, o)) used = add(used, o);
  }
  return used;
}

/** Whether the word `text[start, end)` uses an option. */
function uses(text: string, start: number, end: number, o: Option): boolean {
  const name = o.name;
  switch (o.kind) {
    case "long": {
      if (text.charCodeAt(start) !== DASH) return false;
      // npm: `-script-shell` too, but not a one-letter `-s` (a short option).
      const from = text.charCodeAt(start + 1) === DASH ? start + 2 : o.loose ? start + 1 : -1;
      if (from < 0) return false;
      // The name, or an abbreviation of it (a non-empty prefix), up to the end or an `=`.
      let k = from;
      for (; k < end && text.charCodeAt(k) !== EQUALS; k++) {
        const at = k - from;
        const c = text.charCodeAt(k);
        if (
          at >= name.length ||
          (c !== name.charCodeAt(at) &&
            !(o.loose && c === UNDERSCORE && name.charCodeAt(at) === DASH))
        ) return false;
      }
      return k - from >= (from === start + 1 ? 2 : 1);
    }
    case "short":
      return end - start >= 2 && text.charCodeAt(start) === DASH &&
        text.charCodeAt(start + 1) !== DASH && has(text, start + 1, end, name);
    case "word":
      return end - start === name.length && text.startsWith(name, start);
  }
}
