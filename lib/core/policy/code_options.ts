/**
 * Options that make a program run code of the caller's choosing, for the
 * programs whose ordinary use does not: `git -c alias.x='!sh' x`,
 * `git fetch --upload-pack=sh`, `find . -exec sh ;`, `tar -I sh`. A pattern
 * such as `Bash(git:*)` approves git, not these: a command using one matches
 * a pattern only when the pattern names the option itself
 * (`Bash(git -c:*)`, `Bash(git config:*)`).
 *
 * How an entry is written (per program):
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
 * The table is not a sandbox: a pattern approves a program, and the program
 * still does what it does — `git:*` approves `git commit`, which runs the
 * repository's hooks; `sed:*` approves a sed script's `e` command; an
 * interpreter or a runner (`python3`, `node`, `make`, `env`, `xargs`) runs
 * what it is given.
 *
 * @module
 */

/**
 * The table, by program name (the first word's last path segment).
 *
 * @example
 * ```ts
 * import { CODE_RUNNING_OPTIONS } from "./code_options.ts";
 * import { assert } from "../_assert.ts";
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
      "config",
      "filter-branch",
      "send-email",
      "bisect run",
      "submodule foreach",
      "clone -u",
      "clone --template",
      "init --template",
      "rebase -x",
      "difftool -x",
      "grep -O",
    ]],
    ["npm", ["--script-shell", "--node-options", "exec -c", "exec --call", "x -c", "x --call"]],
    ["npx", ["--script-shell", "--node-options", "-c", "--call"]],
    ["find", ["-exec", "-execdir", "-ok", "-okdir"]],
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

/** One option of the table, compiled: how a word uses it, and the entry it reports. */
interface Option {
  readonly entry: string;
  /** Its place in the program's table: what is reported comes in table order. */
  readonly rank: number;
  /** `--name` (abbreviations, `=value`), `-x` (a letter in a cluster), or an exact word. */
  readonly kind: "long" | "short" | "word";
  readonly name: string;
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
  /**
   * A quick test every command using one of the options passes (more pass
   * too): a command that fails it uses none. `null` for a bundling program.
   */
  readonly maybe: RegExp | null;
  /** The source of `maybe` for one word, at its start; `null` for a bundling program. */
  readonly guard: string | null;
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
    const guard = BUNDLED_FIRST.has(program)
      ? null
      : superset([...global, ...anywhere, ...[...scoped.values()].flat(), ...subcommands.values()]);
    return [program, {
      global,
      anywhere,
      scopedList: [...scoped],
      subcommandList: [...subcommands.values()],
      git: program === "git",
      bundled: BUNDLED_FIRST.has(program),
      maybe: guard === null ? null : new RegExp(`[ \\0](?:${guard})`),
      guard,
    }];
  }),
);

/**
 * One regular expression that every word using one of the options matches
 * (as a word between separators: a space or NUL): a long option or a prefix
 * of it, a cluster of short options holding one of the letters, an exact word.
 */
function superset(options: readonly Option[]): string {
  const long = new Set<string>();
  let letters = "";
  const dashed = new Set<string>();
  const words = new Set<string>();
  for (const o of options) {
    if (o.kind === "long") {
      let nested = "";
      for (let i = o.name.length - 1; i > 0; i--) nested = `(?:${o.name[i]}${nested})?`;
      long.add(o.name[0] + nested);
    } else if (o.kind === "short") letters += o.name;
    else if (o.name.startsWith("-")) dashed.add(o.name.slice(1));
    else words.add(o.name);
  }
  const end = "(?:[ \\0]|$)";
  const afterDash = [
    ...(long.size > 0 ? [`-(?:${[...long].join("|")})(?:=|[ \\0]|$)`] : []),
    ...(letters !== "" ? [`[^- \\0][^ \\0]*?[${letters}]`, `[${letters}]`] : []),
    ...[...dashed].map((d) => `${d}${end}`),
  ];
  const alternatives = [
    ...(afterDash.length > 0 ? [`-(?:${afterDash.join("|")})`] : []),
    ...(words.size > 0 ? [`(?:${[...words].join("|")})${end}`] : []),
  ];
  return alternatives.join("|");
}

/**
 * The entries of {@linkcode CODE_RUNNING_OPTIONS} a command's words use,
 * each as `program entry` (`"git ^-c"`); none for a program without entries.
 *
 * @param words A command's words ({@linkcode shellWords}), the program first.
 * @returns The entries used, in table order (empty when none).
 * @throws {TypeError} When a word is not a string or holds NUL.
 * @example
 * ```ts
 * import { codeRunningOptions } from "./code_options.ts";
 * import { assert } from "../_assert.ts";
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
 * For a program: the source of a regular expression that matches, at the
 * start of a word, every word that may use one of its code-running options
 * (and more); `""` for a program without any; `undefined` for one whose
 * first word may bundle options without a dash (tar).
 *
 * @internal
 */
export function optionGuard(program: string): string | undefined {
  const table = COMPILED.get(program.slice(program.lastIndexOf("/") + 1));
  if (table === undefined) return "";
  return table.guard ?? undefined;
}

/**
 * The test of one program's options, for a pattern that fixes the program:
 * `undefined` when the table has no entry for it.
 *
 * @internal
 */
export function optionsOf(
  program: string,
): ((text: string, separator: string) => readonly string[]) | undefined {
  const table = COMPILED.get(program.slice(program.lastIndexOf("/") + 1));
  if (table === undefined) return undefined;
  return (text, separator) => {
    const end0 = text.indexOf(separator);
    return end0 < 0 ? NONE : usedIn(table, text, separator, end0);
  };
}

/** The options of `table` the words of `text` after the program (which ends at `end0`) use. */
function usedIn(
  table: ProgramOptions,
  text: string,
  separator: string,
  end0: number,
): readonly string[] {
  if (table.maybe !== null && !table.maybe.test(text)) return NONE;
  const n = text.length;
  // The subcommand: the first word that is not an option (nor the value of one of git's own).
  let subStart = -1;
  let subEnd = -1;
  for (let start = end0 + 1, skip = false; start <= n;) {
    let end = text.indexOf(separator, start);
    if (end < 0) end = n;
    if (skip) skip = false;
    else if (end === start || text.charCodeAt(start) !== DASH) {
      subStart = start;
      subEnd = end;
      break;
    } else if (table.git) skip = isGitValueOption(text, start, end);
    start = end + 1;
  }
  let used: Option[] | undefined;
  let scoped: readonly Option[] | undefined;
  if (subStart >= 0) {
    const length = subEnd - subStart;
    for (const [word, options] of table.scopedList) {
      if (length === word.length && text.startsWith(word, subStart)) scoped = options;
    }
    for (const o of table.subcommandList) {
      if (length === o.name.length && text.startsWith(o.name, subStart)) used = [o];
    }
  }
  for (let start = end0 + 1; start <= n;) {
    let end = text.indexOf(separator, start);
    if (end < 0) end = n;
    const dashed = end > start && text.charCodeAt(start) === DASH;
    if (start !== subStart && dashed) {
      if (subStart < 0 || start < subStart) used = collect(text, start, end, table.global, used);
      used = collect(text, start, end, table.anywhere, used);
    }
    if (scoped !== undefined && subStart >= 0 && start > subStart) {
      used = collect(text, start, end, scoped, used);
    }
    // tar's first word may bundle letters without a dash: `tar xIf prog a.tar`.
    if (start === end0 + 1 && !dashed && table.bundled) {
      for (const o of table.anywhere) {
        if (o.kind === "short" && has(text, start, end, o.name)) used = add(used, o);
      }
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
const NUL = "\u0000";

function isGitValueOption(text: string, start: number, end: number): boolean {
  for (const o of GIT_VALUE_OPTIONS) {
    if (end - start === o.length && text.startsWith(o, start)) return true;
  }
  return false;
}

/** Whether `text[start, end)` holds the character `c`. */
function has(text: string, start: number, end: number, c: string): boolean {
  const at = text.indexOf(c, start);
  return at >= 0 && at < end;
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
      if (text.charCodeAt(start) !== DASH || text.charCodeAt(start + 1) !== DASH) return false;
      // The name, or an abbreviation of it (a non-empty prefix), up to the end or an `=`.
      let k = start + 2;
      for (; k < end && text.charCodeAt(k) !== EQUALS; k++) {
        const at = k - start - 2;
        if (at >= name.length || text.charCodeAt(k) !== name.charCodeAt(at)) return false;
      }
      return k > start + 2;
    }
    case "short":
      return end - start >= 2 && text.charCodeAt(start) === DASH &&
        text.charCodeAt(start + 1) !== DASH && has(text, start + 1, end, name);
    case "word":
      return end - start === name.length && text.startsWith(name, start);
  }
}
