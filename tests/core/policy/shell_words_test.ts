import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { fc, runs, seed } from "../../_fc.ts";
import {
  CODE_RUNNING_OPTIONS,
  codeRunningOptions,
  compileToolPolicy,
  decideToolCall,
  matchesAllowedTool,
  parseAllowedTools,
  PLAIN_BUILTINS,
  shellWords,
} from "../../../mod.ts";
import { referenceShellWords, shellCommandArbitrary } from "../../../lib/testing.ts";

const restrict = (allowed: string, command: string) =>
  decideToolCall({
    call: { name: "Bash", input: { command } },
    active: [{ name: "s", allowed_tools: allowed }],
    mode: "restrict",
    trusted: true,
  }).verdict;

describe("shellWords: one simple command of literal words", () => {
  it("reads the ordinary commands skills run, and the policy allows them", () => {
    const table: [string, string, string[]][] = [
      ["Bash(git:*)", "git status", ["git", "status"]],
      ["Bash(git:*)", "git log --oneline -5", ["git", "log", "--oneline", "-5"]],
      ["Bash(git commit:*)", 'git commit -m "fix: parse quotes"', [
        "git",
        "commit",
        "-m",
        "fix: parse quotes",
      ]],
      ["Bash(git diff:*)", "git diff -- 'a b.txt'", ["git", "diff", "--", "a b.txt"]],
      ["Bash(npm run build)", "npm run build", ["npm", "run", "build"]],
      ["Bash(python3 scripts/fill.py:*)", "python3 scripts/fill.py --in form.pdf", [
        "python3",
        "scripts/fill.py",
        "--in",
        "form.pdf",
      ]],
      ["Bash(git switch:*)", "git switch -c topic", ["git", "switch", "-c", "topic"]],
      ["Bash(date:*)", "date +%Y-%m-%d", ["date", "+%Y-%m-%d"]],
      ["Bash(echo:*)", "echo 'a  b' \"c*d\" é", ["echo", "a  b", "c*d", "é"]],
      ["Bash(ls:*)", "\tls -la\t", ["ls", "-la"]],
      ["Bash(./tool:*)", "./tool x", ["./tool", "x"]],
    ];
    for (const [allowed, command, words] of table) {
      assert.deepEqual(shellWords(command), words, command);
      assert.equal(restrict(allowed, command), "allow", `${allowed} ${command}`);
    }
  });

  it("refuses the bypasses that hold no control character, and the option and assignment forms", () => {
    const attacks = [
      "git --version ${x:=\\$\\(CMD\\)}${x@P}",
      "git --version ${y:=a[\\$\\(CMD\\)]}${HOME:y}",
      "git --version ${z:='$''(CMD)'}${z@P}",
      "git -c alias.x='!CMD' x",
      "git -c core.pager='CMD' log",
      "git --config-env=core.pager=CMD_VAR log",
      "git --exec-path=/tmp/x status",
      "git fetch --upload-pack=CMD origin",
      "git fetch --upload-pa=CMD origin",
      "git push --receive-pack=CMD",
      "GIT_EXTERNAL_DIFF=CMD git diff",
      "GIT_PAGER=CMD git log",
      "git config core.pager CMD",
    ];
    for (const command of attacks) {
      assert.equal(restrict("Bash(git:*) Bash(*)", command), "deny", command);
      assert.equal(restrict("Bash(git:*)", command), "deny", command);
    }
    // The first three are not plain words at all; the rest are, with an option that runs code.
    for (const command of attacks.slice(0, 3)) assert.equal(shellWords(command), undefined);
    assert.deepEqual(codeRunningOptions(shellWords(attacks[3]!)!), ["git ^-c"]);
    // A pattern that names the option approves it.
    assert.equal(restrict("Bash(git -c:*)", "git -c core.pager=less log"), "allow");
    assert.equal(restrict("Bash(git config:*)", "git config user.name x"), "allow");
  });

  const refused: [string, string][] = [
    ["$", "git $HOME"],
    ["${", "git ${HOME}"],
    ["$( in double quotes", 'git "$(id)"'],
    ["a backtick", "git `id`"],
    ["a backslash", "git a\\ b"],
    ["a backslash in double quotes", 'git "a\\b"'],
    ["! in double quotes", 'git "a!b"'],
    ["$'…'", "git $'\\x41'"],
    ['$"…"', 'git $"x"'],
    ["a glob *", "git add *.ts"],
    ["a glob ?", "ls ?"],
    ["a glob [", "ls [ab]"],
    ["]", "ls a]"],
    ["~ at a word start", "ls ~/x"],
    ["~ after =", "git --dir=~/x"],
    ["braces", "echo {a,b}"],
    ["a comment", "git status #x"],
    ["history", "git !!"],
    ["^", "^a^b"],
    [";", "git status; id"],
    ["&", "git status & id"],
    ["|", "git log | sh"],
    ["<", "git log < x"],
    [">", "git log > x"],
    ["(", "(git status)"],
    ["process substitution", "diff <(id) x"],
    ["a line break", "git status\nid"],
    ["a CR", "git status\r"],
    ["NUL", "git\u0000"],
    ["a control character in quotes", "git '\u001b'"],
    ["a line break in quotes", "git 'a\nb'"],
    ["a no-break space", "git\u00a0status"],
    ["U+2028", "git\u2028status"],
    ["U+3000 in quotes", "git '\u3000'"],
    ["a BOM", "\ufeffgit status"],
    ["a zero-width space", "git\u200bstatus"],
    ["a lone surrogate", "git \ud800"],
    ["an unclosed single quote", "git 'status"],
    ["an unclosed double quote", 'git "status'],
    ["an empty command", "  \t "],
    ["an assignment", "X=1 git status"],
    ["an assignment with a quoted value", "X='1' git status"],
    ["= in the program word", "a=b"],
    ["a reserved word", "time git status"],
    ["coproc", "coproc git"],
    ["a quoted reserved word", "'if' x"],
    ["eval", "eval git status"],
    ["source", "source x"],
    [".", ". x"],
    [":", ": x"],
    ["exec", "exec git"],
    ["command", "command git"],
    ["declare", "declare a=1"],
    ["a quoted builtin", "'eval' x"],
    ["a job", "%1"],
    ["an empty program", "'' x"],
    ["printf -v", "printf -v 'a[$(id)]' x"],
    ["test -v", "test -v 'a[$(id)]'"],
  ];
  for (const [what, command] of refused) {
    it(`refuses ${what}: ${JSON.stringify(command)}`, () => {
      assert.equal(shellWords(command), undefined);
      assert.equal(referenceShellWords(command), undefined);
      assert.equal(restrict("Bash(*)", command), "deny");
    });
  }

  it("quotes hold what is special outside them", () => {
    assert.deepEqual(shellWords(`echo '$HOME' "*?[]~{}#;&|<>()" 'a"b' "a'b" '\\'`), [
      "echo",
      "$HOME",
      "*?[]~{}#;&|<>()",
      'a"b',
      "a'b",
      "\\",
    ]);
    assert.deepEqual(shellWords(`git a'b'"c"d ''`), ["git", "abcd", ""]);
    assert.deepEqual(shellWords("'X=1' y"), ["X=1", "y"]);
  });

  it(`agrees with the regular-expression reference on generated commands (seed ${seed})`, () => {
    const anyText = fc.string({
      unit: fc.constantFrom(..." \t'\"$`\\!*?[]~{}#;&|<>()=%ab-é\u00a0\n".split("")),
      maxLength: 12,
    });
    fc.assert(
      fc.property(fc.oneof(shellCommandArbitrary(), anyText), (command) => {
        assert.deepEqual(shellWords(command), referenceShellWords(command));
      }),
      runs(3000),
    );
  });

  it("leaves the plain builtins only: the others never start a matching command", () => {
    assert.deepEqual(PLAIN_BUILTINS, ["cd", "echo", "false", "printf", "pwd", "test", "true"]);
    for (const b of PLAIN_BUILTINS) assert.deepEqual(shellWords(`${b} x`), [b, "x"]);
    assert.throws(() => shellWords(3 as unknown as string), {
      name: "TypeError",
      message: "command must be a string",
    });
  });

  it("reads a long command in one pass", () => {
    const long = `git log ${"a".repeat(1 << 20)}`;
    assert.equal(shellWords(long)?.length, 3);
    assert.equal(shellWords(`${long}$`), undefined);
  });
});

describe("codeRunningOptions", () => {
  const uses = (command: string) => codeRunningOptions(shellWords(command)!);

  it("finds git's own options before the subcommand only", () => {
    assert.deepEqual(uses("git -c a=b log"), ["git ^-c"]);
    assert.deepEqual(uses("git -C dir -c a=b log"), ["git ^-c"]);
    assert.deepEqual(uses("/usr/bin/git -c a=b log"), ["git ^-c"]);
    assert.deepEqual(uses("git switch -c topic"), []);
    assert.deepEqual(uses("git commit -c HEAD"), []);
    assert.deepEqual(uses("git -C -c log"), ["git ^-c"]);
    assert.deepEqual(uses("git --exec-path"), ["git ^--exec-path"]);
  });

  it("finds long options, abbreviated or with a value, and scoped ones after their subcommand", () => {
    assert.deepEqual(uses("git fetch --upload-pack=x"), ["git --upload-pack"]);
    assert.deepEqual(uses("git fetch --upload-p x"), ["git --upload-pack"]);
    assert.deepEqual(uses("git clone -q -u x url"), ["git clone -u"]);
    assert.deepEqual(uses("git add -u"), []);
    assert.deepEqual(uses("git rebase -ix x"), ["git rebase -x"]);
    assert.deepEqual(uses("git cherry-pick -x a"), []);
    assert.deepEqual(uses("git config core.pager x"), ["git config"]);
    assert.deepEqual(uses("git log --oneline --ext-diff"), []);
    assert.deepEqual(uses("git bisect run x"), ["git bisect run"]);
  });

  it("finds find's -exec, tar's bundled letters, rsync's -e in a cluster", () => {
    assert.deepEqual(uses("find . -name x -exec rm"), ["find -exec"]);
    assert.deepEqual(uses("find . -name exec"), []);
    assert.deepEqual(uses("tar xIf prog a.tar"), ["tar -I"]);
    assert.deepEqual(uses("tar -xzf a.tar"), []);
    assert.deepEqual(uses("rsync -avze ssh a b"), ["rsync -e"]);
    assert.deepEqual(uses("rsync -avz a b"), []);
    assert.deepEqual(uses("ls -c"), []);
    assert.deepEqual(codeRunningOptions(["git"]), []);
  });

  it("every entry is written in one of the documented forms", () => {
    for (const [program, entries] of CODE_RUNNING_OPTIONS) {
      for (const entry of entries) {
        assert.match(
          entry,
          /^(\^?-{1,2}[A-Za-z][\w-]*|[a-z][\w-]*( -{0,2}[A-Za-z][\w-]*)?)$/,
          program,
        );
      }
    }
  });

  it("a pattern naming the option approves it; one naming another does not", () => {
    const [c] = parseAllowedTools("Bash(git -c core.pager=less:*)");
    const call = (command: string) => ({ name: "Bash", input: command });
    assert.equal(matchesAllowedTool(c!, call("git -c core.pager=less log")), true);
    assert.equal(matchesAllowedTool(c!, call("git -c core.pager=sh log")), false);
    assert.equal(restrict("Bash(git fetch --upload-pack:*)", "git fetch --upload-pack x"), "allow");
    assert.equal(restrict("Bash(git fetch --upload-pack:*)", "git fetch --receive-pack x"), "deny");
    assert.equal(restrict("Bash(find:*)", "find . -name '*.ts'"), "allow");
    assert.equal(restrict("Bash(find:*)", "find . -exec sh ';'"), "deny");
  });
});

describe("patterns match words, not text", () => {
  it("`git  status` and `git 'status'` are one command; `cmd:*` means the first word is cmd", () => {
    for (
      const command of ["git status", "git  status", "git 'status'", '"git" status', "git\tstatus"]
    ) {
      assert.equal(restrict("Bash(git status)", command), "allow", command);
    }
    assert.equal(restrict("Bash(git:*)", "'git status'"), "deny");
    assert.equal(restrict("Bash(ls -la)", "'ls -la'"), "deny");
    assert.equal(restrict("Bash(git:*)", "gitk"), "deny");
    assert.equal(restrict("Bash(git diff -- 'a b.txt')", "git diff -- 'a b.txt'"), "allow");
    assert.equal(restrict("Bash(git diff -- 'a b.txt')", "git diff -- a b.txt"), "deny");
    assert.equal(restrict("Bash(npm run test:*)", "npm run 'test' --watch"), "allow");
    assert.equal(restrict("Bash(npm run test:*)", "npm run testing"), "deny");
  });

  it("`*` is any run, across words; a pattern that is not plain words matches nothing", () => {
    assert.equal(restrict("Bash(mkdir*)", "mkdir -p 'a b'"), "allow");
    assert.equal(restrict("Bash(mkdir*)", "mkdirx"), "allow");
    assert.equal(restrict("Bash(*)", "anything at all"), "allow");
    assert.equal(restrict("Bash(echo $(date))", "echo $(date)"), "deny");
    assert.equal(restrict("Bash(echo $(date))", "echo '$(date)'"), "deny");
    assert.equal(restrict("Bash(:*)", "git"), "deny");
    assert.equal(restrict("Bash(X=1 git:*)", "X=1 git"), "deny");
  });
});

describe("tool names are case-sensitive", () => {
  it("Bash allowed does not allow bash, in either order of calls, memo included", () => {
    const policy = () =>
      compileToolPolicy({
        active: [{ name: "s", allowed_tools: "Bash Read(x:*)" }],
        mode: "restrict",
        trusted: true,
      });
    const upperFirst = policy();
    assert.equal(upperFirst.decide({ name: "Bash", input: "id" }).verdict, "allow");
    assert.equal(upperFirst.decide({ name: "bash", input: "id" }).verdict, "deny");
    assert.equal(upperFirst.decide({ name: "BASH" }).verdict, "deny");
    assert.equal(upperFirst.decide({ name: "Bash" }).verdict, "allow");
    const lowerFirst = policy();
    assert.equal(lowerFirst.decide({ name: "bash", input: "id" }).verdict, "deny");
    assert.equal(lowerFirst.decide({ name: "Bash", input: "id" }).verdict, "allow");
    assert.equal(lowerFirst.decide({ name: "bash" }).verdict, "deny");
    assert.equal(lowerFirst.decide({ name: "read", input: "x" }).verdict, "deny");
    assert.equal(lowerFirst.decide({ name: "Read", input: "x" }).verdict, "allow");
    for (const mode of ["preapprove", "restrict"] as const) {
      const q = { active: [{ name: "s", allowed_tools: "Bash" }], mode, trusted: true };
      assert.equal(
        decideToolCall({ ...q, call: { name: "bash" } }).verdict,
        mode === "restrict" ? "deny" : "ask",
      );
    }
  });
});

describe("the policy's fast paths agree with the full match", () => {
  const WORDS = [
    "git",
    "log",
    "status",
    "-c",
    "-C",
    "a=b",
    "--oneline",
    "-5",
    "--upload-pack=x",
    "--up",
    "--u",
    "--exec-path",
    "--config-env",
    "config",
    "clone",
    "-u",
    "-qu",
    "rebase",
    "-x",
    "-ix",
    "grep",
    "-O",
    "bisect",
    "run",
    "submodule",
    "foreach",
    "switch",
    "--",
    "npm",
    "exec",
    "x",
    "--call",
    "find",
    "-exec",
    "tar",
    "xIf",
    "-I",
    "rsync",
    "-avze",
    "printf",
    "-v",
    "test",
    "echo",
    "'q w'",
    '"-c"',
    "time",
    "eval",
    "X=1",
    "%1",
    "./tool",
    "ls",
    "-la",
  ];
  const PROGRAMS = ["git", "npm", "find", "tar", "rsync", "printf", "test", "echo", "./tool", "ls"];
  const PATTERNS = [
    "git:*",
    "git log:*",
    "git -c:*",
    "git config:*",
    "git clone:*",
    "npm:*",
    "npm exec:*",
    "find:*",
    "tar:*",
    "rsync:*",
    "printf:*",
    "test:*",
    "echo:*",
    "git*",
    "*",
    "ls -la",
    "git * log",
    "./tool:*",
    "X=1:*",
    "'X=1':*",
  ];
  it(`decide allows exactly what matchesAllowedTool covers (seed ${seed})`, () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...PATTERNS),
        fc.constantFrom(...PROGRAMS),
        fc.array(fc.constantFrom(...WORDS), { maxLength: 5 }),
        fc.constantFrom(" ", " ", " ", "  ", "\t"),
        (pattern, program, words, sep) => {
          const [entry] = parseAllowedTools(`Bash(${pattern})`);
          const command = [program, ...words].join(sep);
          const policy = compileToolPolicy({
            active: [{ name: "s", allowed_tools: `Bash(${pattern})` }],
            mode: "restrict",
            trusted: true,
          });
          const want = matchesAllowedTool(entry!, { name: "Bash", input: command });
          assert.equal(policy.decide({ name: "Bash", input: command }).verdict === "allow", want);
        },
      ),
      runs(5000),
    );
  });
});
