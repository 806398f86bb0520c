/**
 * The shell laws: a differential test of a command grammar, and of a tool
 * policy, against the real `bash` and `dash` (`_shell_oracle.ts` runs them).
 *
 * - **The grammar law**: for every generated command a parser accepts, the
 *   shell runs exactly one program, with the parser's words as its argv, and
 *   nothing else.
 * - **The policy law**: for every generated command a policy allows under a
 *   single grant `Bash(<words>:*)` in restrict mode, the shell runs exactly one
 *   program, whose argv starts with the grant's words and uses no
 *   code-running option the grant does not name, and nothing else.
 *
 * The commands cover every expansion of the bash manual (parameter forms with
 * every operator and `@` transformation, command and process substitution,
 * arithmetic, brace, tilde and pathname expansion, extended globs, ANSI-C and
 * locale quoting, backslashes), the known bypasses (`${x@P}` prompt
 * expansion, arithmetic subscripts such as `${HOME:y}`, `$'…'`, history,
 * aliases, assignments before the program, reserved words and builtins as the
 * program), operators, redirections, comments, control and non-ASCII space
 * characters, and many plain commands with quotes holding all of those.
 *
 * Folder `lib/testing/` — the testing kit behind `lib/testing.ts`: arbitraries, references, laws.
 *
 * @module
 */
import fc from "fast-check";

import { codeRunningOptions } from "./_code_running_options.ts";
import type { ToolCallQuestion } from "../core/policy/tool_policy.ts";
import { check, type InvariantOptions, type InvariantProperty, law } from "./_invariants.ts";
import {
  observeShell,
  PATH_PROGRAMS,
  RECORDED_PROGRAMS,
  type ShellName,
  type ShellObservation,
  type ShellRecord,
} from "./_shell_oracle.ts";
import type { ToolPolicyUnderTest } from "./_tool_policy.ts";

/**
 * A fast-check arbitrary (`fc.Arbitrary` of the `fast-check` peer dependency).
 *
 * @internal
 */
type Arbitrary<T> = fc.Arbitrary<T>;

/** A command grammar under test: a command in, its words out, or `undefined` when it refuses the command. */
export type ShellWordsUnderTest = (command: string) => readonly string[] | undefined;

/** Options of the shell laws. */
export interface ShellLawOptions extends InvariantOptions {
  /** The shell (default `bash`). */
  readonly shell?: ShellName;
  /** Commands per shell process (default 1,000): each run of the property is one batch. */
  readonly batch?: number;
  /** Called with the number of commands the shell ran in each batch (to count them). */
  readonly onBatch?: (ran: number) => void;
}

const PLAIN = "abcxyzABZ0129_-./:,+@%=~";
/** Characters for quoted text: everything a shell treats specially, and then some. */
const QUOTED = [
  ..."abz09 _-./:,+@%=",
  ..."$`\\!\"'*?[]~{}#;&|<>()^",
  "\t",
  "é",
  "ü",
  "\u00a0",
  "\u2028",
  "\u200b",
  "\u3000",
  "🙂",
  "$(PWNED)",
  "${HOME}",
  "`PWNED`",
  "$'\\x41'",
];

/** Expansions and syntax, each with `PWNED` as the payload where it runs something. */
const HOSTILE = [
  // Parameter expansion, every form and operator.
  "$HOME",
  "${HOME}",
  "$x",
  "${x:-PWNED}",
  "${x:=PWNED}",
  "${x:?e}",
  "${x:+w}",
  "${x-w}",
  "${HOME:1:2}",
  "${HOME: -2}",
  "${!x}",
  "${!H*}",
  "${!H@}",
  "${!a[@]}",
  "${#HOME}",
  "${HOME#/}",
  "${HOME##*/}",
  "${HOME%/*}",
  "${HOME%%/*}",
  "${HOME/s/t}",
  "${HOME//s/t}",
  "${HOME/#s/t}",
  "${HOME/%e/t}",
  "${HOME^}",
  "${HOME^^}",
  "${HOME,}",
  "${HOME,,}",
  "${HOME~}",
  "${HOME@Q}",
  "${HOME@E}",
  "${HOME@P}",
  "${HOME@A}",
  "${HOME@a}",
  "${HOME@U}",
  "${HOME@u}",
  "${HOME@L}",
  "${HOME@K}",
  "${HOME@k}",
  "$@",
  "$*",
  "$#",
  "$?",
  "$-",
  "$$",
  "$!",
  "$0",
  "$1",
  "$_",
  "${10}",
  // The bypasses of prompt expansion and arithmetic subscripts.
  "${x:=\\$\\(PWNED\\)}${x@P}",
  "${y:=a[\\$\\(PWNED\\)]}${HOME:y}",
  "${z:='$''(PWNED)'}${z@P}",
  "${a[$(PWNED)]}",
  "${HOME:a[$(PWNED)]}",
  // Command and process substitution, arithmetic.
  "$(PWNED)",
  "`PWNED`",
  "${ PWNED;}",
  "${|PWNED;}",
  "$((1+1))",
  "$[1+1]",
  "$((a[$(PWNED)]))",
  "<(PWNED)",
  ">(PWNED)",
  // Quoting forms that expand.
  "$'\\x41'",
  "$'\\u0041'",
  "$'a\\'b'",
  '$"msg"',
  "\\x",
  "\\ ",
  "\\$HOME",
  "\\",
  // Brace, tilde and pathname expansion, extended globs.
  "{a,b}",
  "{1..3}",
  "{a..c}",
  "x{,y}",
  "~",
  "~/x",
  "~root",
  "~+",
  "~-",
  "x=~/y",
  "a:~",
  "*",
  "?",
  "[ab]",
  "[!a]",
  "?(a)",
  "*(a)",
  "+(a)",
  "@(a)",
  "!(a)",
  // History, comments, operators, redirections.
  "!!",
  "!$",
  "!-1",
  "^a^b",
  "#c",
  " #c",
  ";PWNED",
  "&PWNED",
  "&&PWNED",
  "||PWNED",
  "|PWNED",
  "|&PWNED",
  ";;",
  ">f",
  "<f",
  ">>f",
  "<<E",
  "<<<w",
  "<>f",
  ">|f",
  "&>f",
  "2>&1",
  "{fd}>f",
  "(PWNED)",
  "{ PWNED; }",
  // Control and non-ASCII space characters.
  "\r",
  "\u000b",
  "\u000c",
  "\u001b",
  "\u007f",
  "\u0085",
  "\u00a0",
  "\u1680",
  "\u2000",
  "\u2028",
  "\u3000",
  "\ufeff",
  "\u200e",
  "\ud800",
];

/** Whole commands: the program position. */
const PROGRAM = [
  ...RECORDED_PROGRAMS,
  ...PATH_PROGRAMS,
  "'git'",
  'g"it"',
  "gi't'",
  "unknown-tool",
  "a.b",
  "X=1",
  "GIT_PAGER=PWNED",
  "X'=1'",
  "'X'=1",
  "a[0]=1",
  "x+=1",
  "%1",
  "'%1'",
  "''",
  "eval",
  "source",
  ".",
  ":",
  "exec",
  "command",
  "builtin",
  "declare",
  "export",
  "read",
  "let",
  "unset",
  "alias",
  "trap",
  "enable",
  "time",
  "coproc",
  "function",
  "if",
  "!",
  "[[",
  "((",
  "{",
  "fc",
  "history",
];

/** Whole commands: attacks as written (the three, and the option forms). */
const WHOLE = [
  "git --version ${x:=\\$\\(PWNED\\)}${x@P}",
  "git --version ${y:=a[\\$\\(PWNED\\)]}${HOME:y}",
  "git --version ${z:='$''(PWNED)'}${z@P}",
  "git -c alias.x='!PWNED' x",
  "git -c core.pager='PWNED' log",
  "GIT_EXTERNAL_DIFF=PWNED git diff",
  "alias git=PWNED",
  "shopt -s expand_aliases",
  "test -v 'a[$(PWNED)]'",
  "printf -v 'a[$(PWNED)]' x",
  "declare 'a[$(PWNED)]=1'",
  "git status\nPWNED",
];

const plainText = fc.string({
  unit: fc.constantFrom(...PLAIN.split("")),
  minLength: 1,
  maxLength: 6,
});
const quotedText = fc.string({ unit: fc.constantFrom(...QUOTED), maxLength: 6 });

/** One word: up to three pieces — plain, single-quoted, double-quoted, or hostile. */
const wordArbitrary: fc.Arbitrary<string> = fc.array(
  fc.oneof(
    { weight: 6, arbitrary: plainText },
    { weight: 3, arbitrary: quotedText.map((t) => `'${t}'`) },
    { weight: 3, arbitrary: quotedText.map((t) => `"${t}"`) },
    { weight: 2, arbitrary: fc.constantFrom(...HOSTILE) },
  ),
  { minLength: 1, maxLength: 3 },
).map((pieces) => pieces.join(""));

const separator = fc.constantFrom(" ", " ", " ", "\t", "  ", " \t ");

/**
 * Generated shell commands: a program (a plain one most often, else a
 * builtin, a reserved word, an assignment, a quoted or path form) and up to
 * five words built from plain text, quoted strings holding every special
 * character, and the expansions and syntax of the bash manual; and, now and
 * then, a known attack as written. Never a line break or NUL (each command is
 * one line of a batch script).
 *
 * @returns The arbitrary.
 */
export function shellCommandArbitrary(): Arbitrary<string> {
  const built = fc.tuple(
    fc.oneof(
      { weight: 8, arbitrary: fc.constantFrom(...RECORDED_PROGRAMS, ...PATH_PROGRAMS) },
      { weight: 2, arbitrary: fc.constantFrom(...PROGRAM) },
    ),
    fc.array(fc.tuple(separator, wordArbitrary), { maxLength: 5 }),
    fc.constantFrom("", "", "", " ", "\t"),
    fc.constantFrom("", "", "", " "),
  ).map(([program, words, lead, trail]) =>
    lead + program + words.map(([sep, w]) => sep + w).join("") + trail
  );
  return fc.oneof(
    { weight: 30, arbitrary: built },
    { weight: 1, arbitrary: fc.constantFrom(...WHOLE) },
  ).map((c) => c.replaceAll("\n", " ").replaceAll("\u0000", " "));
}

/** What the shell must have run for a command with these words. */
function expected(words: readonly string[], shell: ShellName): ShellRecord[] {
  const program = words[0]!;
  if (RECORDED_PROGRAMS.includes(program)) return [{ kind: "call", argv: words }];
  if (PATH_PROGRAMS.includes(program)) return [{ kind: "exec", argv: words }];
  return shell === "bash" ? [{ kind: "missing", argv: words }] : [];
}

function same(a: readonly ShellRecord[], b: readonly ShellRecord[]): boolean {
  return a.length === b.length &&
    a.every((r, i) =>
      r.kind === b[i]!.kind && r.argv.length === b[i]!.argv.length &&
      r.argv.every((w, k) => w === b[i]!.argv[k])
    );
}

function show(records: readonly ShellRecord[] | null): string {
  return JSON.stringify(records?.map((r) => [r.kind, ...r.argv]));
}

/**
 * The grammar law as a property: each run is one batch of generated commands;
 * those `parse` accepts run in the shell, and each must have run exactly one
 * program with the parsed words as argv (a plain builtin: and, run as itself,
 * nothing at all).
 *
 * @param parse The grammar under test.
 * @param options The shell, the batch size and a counter.
 * @returns The property.
 */
export function shellWordsProperty(
  parse: ShellWordsUnderTest,
  options: ShellLawOptions = {},
): InvariantProperty {
  if (typeof parse !== "function") throw new TypeError("parse must be a function");
  const shell = options.shell ?? "bash";
  const batch = options.batch ?? 1000;
  return law(
    fc.array(shellCommandArbitrary(), { minLength: batch, maxLength: batch }),
    (commands) => {
      const accepted: { command: string; words: readonly string[] }[] = [];
      for (const command of commands) {
        const words = parse(command);
        if (words !== undefined) accepted.push({ command, words });
      }
      const seen = observeShell(accepted.map((a) => a.command), shell);
      options.onBatch?.(accepted.length);
      accepted.forEach(({ command, words }, i) => {
        const o = seen[i]!;
        const want = expected(words, shell);
        if (!same(o.records, want)) {
          fail(shell, command, `parsed as ${JSON.stringify(words)}, expected ${show(want)}`, o);
        }
        if (
          o.builtinRecords !== null && words[0] === programOf(command) &&
          o.builtinRecords.length > 0
        ) {
          fail(shell, command, "the builtin ran something", o);
        }
      });
    },
  );
}

/** The program word of a command as the oracle splits it (to pair a builtin run with its words). */
function programOf(command: string): string {
  return command.trim().split(/[ \t]/)[0]!.replace(/['"]/g, "");
}

function fail(shell: ShellName, command: string, why: string, o: ShellObservation): never {
  throw new Error(
    `${shell} ran ${show(o.records)} (as builtins: ${show(o.builtinRecords)}) for ${
      JSON.stringify(command)
    }: ${why}`,
  );
}

/**
 * Check the grammar law, throwing one error with the shrunk counterexample
 * when it fails.
 *
 * @param parse The grammar under test.
 * @param options Runs (batches), a seed, the shell, the batch size.
 * @throws {InvariantViolationError} When the law fails.
 * @throws {Error} When the shell is not on this machine.
 */
export function assertShellWordsAgreeWithShell(
  parse: ShellWordsUnderTest,
  options: ShellLawOptions = {},
): void {
  check("Shell grammar", {
    "the shell runs the parsed words and nothing else": shellWordsProperty(parse, options),
  }, options);
}

/** The grants the policy law aims at: their words. */
const GRANTS: readonly (readonly string[])[] = [
  ["git"],
  ["git", "status"],
  ["git", "log"],
  ["npm", "run", "test"],
  ["python3", "scripts/fill.py"],
  ["find"],
  ["tar"],
  ["echo"],
  ["printf"],
  ["test"],
  ["./tool"],
];

/** A grant's words as a pattern head, in one of the ways an author writes them. */
function headText(words: readonly string[], quote: boolean): string {
  return words.map((w, i) => (quote && i === words.length - 1 ? `'${w}'` : w)).join(" ");
}

/** A code-running option after a grant: the table's own examples. */
const OPTION_TAILS = [
  "-c core.pager=PWNED log",
  "-c alias.x=!PWNED x",
  "--config-env=core.pager=X log",
  "--exec-path=. status",
  "fetch --upload-pack=PWNED origin",
  "fetch --upload-pa=PWNED origin",
  "push --receive-pack=PWNED",
  "clone -u PWNED x",
  "rebase -x PWNED",
  "config core.pager PWNED",
  ". -exec PWNED ;",
  "-I PWNED -xf a",
  "xIf PWNED a",
  "-v 'a[$(PWNED)]' x",
  "-v 'a[$(PWNED)]'",
];

/**
 * The policy law as a property: each run is one batch of commands aimed at
 * a grant `Bash(<words>:*)` of one trusted skill in restrict mode; those the
 * policy allows run in the shell, and each must have run exactly one program,
 * whose argv starts with the grant's words and uses no code-running option the
 * grant does not name (a plain builtin: and, run as itself, nothing at all).
 *
 * @param decide The policy under test (as `decideToolCall` takes a question).
 * @param options The shell, the batch size and a counter.
 * @returns The property.
 */
export function toolPolicyShellProperty(
  decide: ToolPolicyUnderTest,
  options: ShellLawOptions = {},
): InvariantProperty {
  if (typeof decide !== "function") throw new TypeError("decide must be a function");
  const shell = options.shell ?? "bash";
  const batch = options.batch ?? 1000;
  const aimed = fc.tuple(
    fc.constantFrom(...GRANTS),
    fc.boolean(),
    fc.boolean(),
    fc.oneof(
      {
        weight: 4,
        arbitrary: fc.array(fc.tuple(separator, wordArbitrary), { maxLength: 4 }).map((ws) =>
          ws.map(([s, w]) => s + w).join("")
        ),
      },
      { weight: 1, arbitrary: fc.constantFrom(...OPTION_TAILS).map((t) => ` ${t}`) },
      { weight: 1, arbitrary: fc.constantFrom(...HOSTILE).map((t) => ` ${t}`) },
    ),
  ).map(([words, quotePattern, quoteCommand, tail]) => ({
    words,
    pattern: `${headText(words, quotePattern)}:*`,
    command: (headText(words, quoteCommand) + tail).replaceAll("\n", " ").replaceAll("\u0000", " "),
  }));
  return law(fc.array(aimed, { minLength: batch, maxLength: batch }), (cases) => {
    const allowed = cases.filter(({ pattern, command }) => {
      const question: ToolCallQuestion = {
        call: { name: "Bash", input: { command } },
        active: [{ name: "grant", allowed_tools: `Bash(${pattern})` }],
        mode: "restrict",
        trusted: true,
      };
      return decide(question).verdict === "allow";
    });
    const seen = observeShell(allowed.map((a) => a.command), shell);
    options.onBatch?.(allowed.length);
    allowed.forEach(({ words, pattern, command }, i) => {
      const o = seen[i]!;
      const ran = o.records;
      const why = `allowed by Bash(${pattern})`;
      if (ran.length !== 1) fail(shell, command, `${why}: expected one program`, o);
      const argv = ran[0]!.argv;
      if (words.some((w, k) => argv[k] !== w)) {
        fail(shell, command, `${why}: its argv does not start with the grant's words`, o);
      }
      const named = codeRunningOptions(words);
      const extra = codeRunningOptions(argv).filter((u) => !named.includes(u));
      if (extra.length > 0) fail(shell, command, `${why}: it uses ${extra.join(", ")}`, o);
      if (
        o.builtinRecords !== null && words[0] === programOf(command) && o.builtinRecords.length > 0
      ) {
        fail(shell, command, `${why}: the builtin ran something`, o);
      }
    });
  });
}

/**
 * Check the policy law, throwing one error with the shrunk counterexample when
 * it fails.
 *
 * @param decide The policy under test.
 * @param options Runs (batches), a seed, the shell, the batch size.
 * @throws {InvariantViolationError} When the law fails.
 * @throws {Error} When the shell is not on this machine.
 */
export function assertToolPolicyAgreesWithShell(
  decide: ToolPolicyUnderTest,
  options: ShellLawOptions = {},
): void {
  check("Tool policy in the shell", {
    "an allowed command runs only the granted program, with the grant's words first":
      toolPolicyShellProperty(decide, options),
  }, options);
}
