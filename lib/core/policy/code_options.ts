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

/**
 * The entries of {@linkcode CODE_RUNNING_OPTIONS} a command's words use,
 * each as `program entry` (`"git ^-c"`); none for a program without entries.
 *
 * @param words A command's words ({@linkcode shellWords}), the program first.
 * @returns The entries used, in table order (empty when none).
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
  if (words.length < 2) return NONE;
  const first = words[0]!;
  const program = first.slice(first.lastIndexOf("/") + 1);
  const entries = CODE_RUNNING_OPTIONS.get(program);
  if (entries === undefined) return NONE;
  // The subcommand: the first word that is not an option (nor the value of one of git's own).
  let sub = words.length;
  for (let i = 1; i < words.length; i++) {
    const w = words[i]!;
    if (!w.startsWith("-")) {
      sub = i;
      break;
    }
    if (program === "git" && GIT_VALUE_OPTIONS.has(w)) i++;
  }
  const subcommand = sub < words.length ? words[sub]! : undefined;
  const used: string[] = [];
  for (const entry of entries) {
    const space = entry.indexOf(" ");
    let option = entry;
    let from = 1;
    let to = words.length;
    if (space > 0) {
      if (entry.slice(0, space) !== subcommand) continue;
      option = entry.slice(space + 1);
      from = sub + 1;
    } else if (entry.startsWith("^")) {
      option = entry.slice(1);
      to = sub;
    } else if (!entry.startsWith("-")) {
      if (entry === subcommand) used.push(`${program} ${entry}`);
      continue;
    }
    let hit = false;
    for (let i = from; i < to && !hit; i++) hit = uses(words[i]!, option);
    if (!hit && BUNDLED_FIRST.has(program) && option.length === 2 && words[1]![0] !== "-") {
      hit = words[1]!.includes(option[1]!);
    }
    if (hit) used.push(`${program} ${entry}`);
  }
  return used.length === 0 ? NONE : used;
}

const NONE: readonly string[] = Object.freeze([]);

/** Whether a word uses an option written as the table writes it. */
function uses(word: string, option: string): boolean {
  if (!option.startsWith("-")) return word === option;
  if (option.startsWith("--")) {
    if (!word.startsWith("--")) return false;
    const eq = word.indexOf("=");
    const name = word.slice(2, eq < 0 ? word.length : eq);
    return name !== "" && option.startsWith(name, 2);
  }
  if (option.length === 2) {
    return word.length >= 2 && word[0] === "-" && word[1] !== "-" && word.includes(option[1]!, 1);
  }
  return word === option;
}
