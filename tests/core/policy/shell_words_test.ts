import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { fc, runs, seed } from "../../_fc.ts";
import {
  compileToolPolicy,
  decideToolCall,
  matchesAllowedTool,
  parseAllowedTools,
  PLAIN_BUILTINS,
  shellWords,
  unapprovedOption,
} from "../../../mod.ts";
import { referenceShellWords, shellCommandArbitrary } from "../../../lib/testing.ts";
import { OPTION_TABLES, type OptionTableSpec } from "../../../lib/core/policy/option_tables.ts";
import { compileOptionTables } from "../../../lib/core/policy/options.ts";

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
    assert.equal(unapprovedOption(shellWords(attacks[3]!)!), "-c");
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
    ["~ after : (bash expands it in an assignment-like word)", "echo PATH=a:~/b"],
    ["~ after a quote", "echo 'a'~"],
    ["~ after a non-ASCII letter", "echo é~"],
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

  it("~ inside a word, after a word character, is literal (bash and dash leave it)", () => {
    assert.deepEqual(shellWords("git diff --stat HEAD~1"), ["git", "diff", "--stat", "HEAD~1"]);
    assert.deepEqual(shellWords("git log main~~2 a-~"), ["git", "log", "main~~2", "a-~"]);
    assert.equal(restrict("Bash(git diff:*)", "git diff --stat HEAD~1"), "allow");
  });

  it("reads a long command in one pass", () => {
    const long = `git log ${"a".repeat(1 << 20)}`;
    assert.equal(shellWords(long)?.length, 3);
    assert.equal(shellWords(`${long}$`), undefined);
  });
});

describe("unapprovedOption", () => {
  const first = (command: string, named = 1) => unapprovedOption(shellWords(command)!, named);

  it("approves git's own safe options before the subcommand, and not -c, -C or --git-dir", () => {
    assert.equal(first("git --no-pager log --oneline"), undefined);
    assert.equal(first("/usr/bin/git -P log"), undefined);
    assert.equal(first("git -c a=b log"), "-c");
    assert.equal(first("git -C dir log"), "-C");
    assert.equal(first("git --git-dir=x log"), "--git-dir=x");
    assert.equal(first("git switch -c topic"), undefined);
    assert.equal(first("git commit -c HEAD"), "-c");
    assert.equal(first("git --exec-path"), "--exec-path");
  });

  it("reads every spelling of an option the way its program does", () => {
    assert.equal(first("git log --max-count=5"), undefined);
    assert.equal(first("git log --max-count 5"), undefined);
    assert.equal(first("git log --max-c=5"), "--max-c=5"); // an abbreviation is not approved
    assert.equal(first("git log -n5"), undefined);
    assert.equal(first("git log --oneline=x"), "--oneline=x"); // a flag takes no value
    assert.equal(first("ls -lah"), undefined);
    assert.equal(first("ls -laZq"), undefined);
    assert.equal(first("sort -k2,2 -t, data.csv"), undefined);
    assert.equal(first("sort -uS 1K --compress-program=sh a"), "--compress-program=sh");
    assert.equal(first("sort -S 1K --compress-prog=sh a"), "--compress-prog=sh");
    assert.equal(first("tar czf out.tgz dir"), undefined);
    assert.equal(first("tar cIf sh out.tgz dir"), "cIf");
    assert.equal(first("tar -cf host:x dir"), "host:x");
    assert.equal(first("tar -cfhost:x dir"), "-cfhost:x");
    assert.equal(first("tar --file=host:x -c dir"), "--file=host:x");
    assert.equal(first("zip -T -TT sh out.zip a.txt"), "-T");
    assert.equal(first("zip -rq out.zip dir"), undefined);
    assert.equal(first("find src -type f -newer package.json"), undefined);
    assert.equal(first("find . -exec rm ';'"), "-exec");
    assert.equal(first("find . -name -exec"), "-exec"); // a value that looks like an option
    // find's `--` ends its own options, not the expression: `find -- . -exec` runs the command.
    assert.equal(first("find -- . -exec echo x ';'"), "-exec");
    assert.equal(first("go test -- -exec sh"), "-exec");
    assert.equal(first("zip out.zip -- -TT sh"), "-TT");
    assert.equal(first("sort -- --compress-program=sh"), undefined); // a file of that name
  });

  it("reads npm's any number of dashes, underscores and case as one name", () => {
    for (
      const option of [
        "---node-options=--import=x",
        "----script-shell=x",
        "-script-shell=x",
        "--script_shell=x",
        "--SCRIPT-SHELL=x",
        "-c",
        "--call=x",
        "--prefix=x",
        "-w",
      ]
    ) {
      assert.equal(first(`npm test ${option}`), option);
      assert.equal(first(`npm ${option} test`), option);
    }
    assert.equal(first("npm test -- --watch=false"), undefined);
    assert.equal(first("npm run build --silent"), undefined);
    assert.equal(first("npm ---silent run build"), undefined);
    assert.equal(first("npm exec sh"), "exec"); // a subcommand without a table
    // npm's --loglevel takes the next word, as nopt reads it: the subcommand is `run`.
    assert.equal(first("npm --loglevel exec run x"), undefined);
    assert.equal(first("npm --silent exec run x"), "exec");
  });

  it("a program without a table gets operands only; named words are approved as written", () => {
    assert.equal(first("rsync -e sh a b"), "-e");
    assert.equal(first("rsync a b"), undefined);
    assert.equal(first("python3 -m pytest -q -k slow"), undefined);
    assert.equal(first("python3 -m http.server"), "http.server");
    assert.equal(first("python3 -c x"), "-c");
    assert.equal(first("go test -run TestX -v ./pkg"), undefined);
    assert.equal(first("go test -exec sh ./pkg"), "-exec");
    assert.equal(first("go test -toolexec=sh ./pkg"), "-toolexec=sh");
    assert.equal(first("cargo test --release"), undefined);
    assert.equal(first("cargo test --config x"), "--config");
    assert.equal(first("git log --output=x", 3), undefined);
    assert.equal(first("git rebase -x sh", 2), "-x");
    assert.equal(first("git -c a=b log --oneline", 2), undefined);
    assert.equal(unapprovedOption(["git"]), undefined);
  });

  it("every table compiles, and every option in it is written in one of the documented forms", () => {
    const walk = (spec: OptionTableSpec, where: string) => {
      assert.doesNotThrow(() => compileOptionTables(new Map([[where, spec]])), where);
      assert.ok(spec.manual.length > 0, where);
      for (const [word, sub] of spec.subcommands ?? []) walk(sub, `${where} ${word}`);
    };
    for (const [program, spec] of OPTION_TABLES) walk(spec, program);
    assert.throws(
      () => compileOptionTables(new Map([["x", { ...OPTION_TABLES.get("ls")!, options: "-ab" }]])),
      {
        name: "RangeError",
        message: 'Invalid option "-ab" in the table of "x"',
      },
    );
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
    assert.equal(restrict("Bash(npm run test:*)", "npm run 'test' -- --watch"), "allow");
    assert.equal(restrict("Bash(npm run test:*)", "npm run 'test' --watch"), "deny"); // npm's own option
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
