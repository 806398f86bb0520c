// Attacks on the tool policy from outside (issue 29 review): commands that
// `decideToolCall` allowed in restrict mode from a broad pattern and that make
// the approved program run code of the caller's choosing. Each was checked
// against the real program (git 2.39, npm 11, GNU find) before it went here.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { compileToolPolicy, decideToolCall, unapprovedOption } from "../../../mod.ts";
import { referenceShellWords } from "../../../lib/testing.ts";
import { fc, runs } from "../../_fc.ts";

const restrict = (allowed: string, command: string, name = "Bash") =>
  decideToolCall({
    call: { name, input: { command } },
    active: [{ name: "s", allowed_tools: allowed }],
    mode: "restrict",
    trusted: true,
  }).verdict;

describe("tool policy attacks", () => {
  it("git clone's own -c/--config sets core.sshCommand before it fetches", () => {
    for (
      const command of [
        "git clone -c core.sshCommand=id ssh://x/y",
        "git clone -qc core.sshCommand=id ssh://x/y",
        "git clone --config core.sshCommand=id ssh://x/y",
        "git clone --config=core.sshCommand=id ssh://x/y",
        "git clone --conf core.sshCommand=id ssh://x/y",
      ]
    ) {
      assert.equal(restrict("Bash(git:*)", command), "deny", command);
      assert.notEqual(unapprovedOption(command.split(" ")), undefined, command);
    }
    assert.equal(restrict("Bash(git clone -c:*)", "git clone -c a=b ssh://x/y"), "allow");
    // clone is not in git's table: a pattern names it, and then its operands only.
    assert.equal(restrict("Bash(git:*)", "git clone ssh://x/y"), "deny");
    assert.equal(restrict("Bash(git clone:*)", "git clone ssh://x/y"), "allow");
    assert.equal(restrict("Bash(git:*)", "git switch -c topic"), "allow");
  });

  it("git's internal and server commands that run a given command", () => {
    for (
      const command of [
        "git submodule--helper foreach id",
        "git instaweb --httpd=id",
        "git remote-ext origin id",
        "git daemon --access-hook=id",
        "git daemon --access-h=id",
      ]
    ) {
      assert.equal(restrict("Bash(git:*)", command), "deny", command);
    }
    assert.equal(restrict("Bash(git:*)", "git daemon --export-all"), "deny"); // not in the table
    assert.equal(restrict("Bash(git daemon --export-all:*)", "git daemon --export-all"), "allow");
  });

  it("git log --output writes .git/config, which the next git status runs (core.fsmonitor)", () => {
    for (
      const command of [
        "git log -1 --format=[core]%n%x09fsmonitor=id --output=.git/config",
        "git diff --output .git/config",
        "git log --outp=.git/config",
      ]
    ) {
      assert.equal(restrict("Bash(git:*)", command), "deny", command);
    }
    assert.equal(restrict("Bash(git:*)", "git diff --output-indicator-new=+"), "deny");
    assert.equal(restrict("Bash(git:*)", "git diff --stat HEAD~1"), "allow");
    assert.equal(restrict("Bash(git log --output:*)", "git log --output x"), "allow");
  });

  it("man runs the browser -H/--html names, and the pager -P names (man-db's --help)", () => {
    for (
      const command of [
        "man --html=id ls",
        "man -Hid ls",
        "man -P id ls",
        "man --pager=id ls",
        "man -C ./man.conf ls",
      ]
    ) {
      assert.equal(restrict("Bash(man:*)", command), "deny", command);
    }
    assert.equal(restrict("Bash(man:*)", "man -k printf"), "deny"); // man has no table: operands only
    assert.equal(restrict("Bash(man:*)", "man 3 printf"), "allow");
  });

  it("the kit's reference grammar reads a long word that fails at its end in linear time", () => {
    // A run of runs backtracked exponentially: 24 letters took 0.6 s, 40 would take hours.
    assert.equal(referenceShellWords("git " + "a".repeat(5000) + "$"), undefined);
    assert.equal(referenceShellWords("git 'b'" + "a".repeat(5000) + "$", true), undefined);
    assert.deepEqual(referenceShellWords("git a'b'c\"d\" e"), ["git", "abcd", "e"]);
  });

  it("Bash(git:*) no longer approves the steps of writing a hook; git commit still runs one", () => {
    // Checked on git 2.39: the four steps write .git/hooks/pre-commit and the commit runs CMD.
    // notes, update-index and checkout-index are not in git's table; commit is (a documented limit).
    for (
      const command of [
        "git notes add -m '#!/bin/sh' -m 'CMD'",
        "git update-index --add --cacheinfo 100755,4e1d98d6165dc1a75c199cb4bae12b1fc6b2cd0e,pre-commit",
        "git checkout-index --prefix=.git/hooks/ -f pre-commit",
      ]
    ) {
      assert.equal(restrict("Bash(git:*)", command), "deny", command);
    }
    assert.equal(restrict("Bash(git:*)", "git commit -m x"), "allow");
  });

  it("npm reads a long option with one dash, and with underscores", () => {
    for (
      const command of [
        "npm run build -script-shell=/tmp/x",
        "npm run build -script-shell /tmp/x",
        "npm run build --script_shell=/tmp/x",
        "npm run build -node-options=--require=/tmp/x",
        "npm run build --node_options=--require=/tmp/x",
        "npx -script-shell=/tmp/x foo",
        "npx --script_shell=/tmp/x foo",
      ]
    ) {
      assert.equal(restrict(`Bash(${command.split(" ")[0]}:*)`, command), "deny", command);
    }
    // npm's own options may take the next word: the subcommand is not known, `-c` counts anywhere.
    for (
      const command of [
        "npm --loglevel silent exec -c id",
        "npm --prefix . x -c id",
        "npm -w a exec --call id",
      ]
    ) {
      assert.equal(restrict("Bash(npm:*)", command), "deny", command);
    }
    assert.equal(restrict("Bash(npm:*)", "npm run build -s"), "allow");
    assert.equal(restrict("Bash(npm:*)", "npm run build --silent"), "allow");
    assert.equal(restrict("Bash(npm run build)", "npm run build"), "allow");
  });

  it("find's -fprintf and kin write a file the caller names, with content it chooses", () => {
    for (
      const command of [
        "find . -maxdepth 0 -fprintf /home/u/.bashrc id",
        "find . -fprint /tmp/x",
        "find . -fprint0 /tmp/x",
        "find . -fls /tmp/x",
      ]
    ) {
      assert.equal(restrict("Bash(find:*)", command), "deny", command);
    }
    assert.equal(restrict("Bash(find:*)", "find . -name '*.ts' -print"), "allow");
    assert.equal(restrict("Bash(find -fls:*)", "find -fls /tmp/x"), "allow");
  });

  it("tool names differ by case, in either order of calls, the cache included (held)", () => {
    const pairs: readonly (readonly [string, string])[] = [
      ["Bash", "bash"],
      ["bash", "Bash"],
      ["Bash", "BASH"],
    ];
    for (const [granted, called] of pairs) {
      for (const calledFirst of [false, true]) {
        const policy = compileToolPolicy({
          active: [{ name: "s", allowed_tools: `${granted}(git:*)` }],
          mode: "restrict",
          trusted: true,
        });
        const call = (name: string) =>
          policy.decide({ name, input: { command: "git status" } }).verdict;
        if (calledFirst) assert.equal(call(called), "deny");
        assert.equal(call(granted), "allow");
        assert.equal(call(called), "deny");
        assert.equal(call(granted), "allow");
      }
    }
  });
});

describe("options are code (issue 39): every spelling of a code-running option", () => {
  /** [pattern, the words before the option, long name, short letter, value]. */
  const families: readonly (readonly [string, string, string, string, string])[] = [
    ["npm:*", "npm test", "node-options", "", "--import=data:x"],
    ["npm test:*", "npm test", "script-shell", "", "sh"],
    ["npm run:*", "npm run build", "prefix", "C", "/tmp/evil"],
    ["pnpm:*", "pnpm test", "script-shell", "", "sh"],
    ["zip:*", "zip out.zip a.txt", "unzip-command", "", "sh"],
    ["sort:*", "sort -S 1K", "compress-program", "", "sh"],
    ["tar:*", "tar -cf a.tar", "to-command", "", "sh"],
    ["tar:*", "tar -cf a.tar", "use-compress-program", "I", "sh"],
    ["tar:*", "tar -cf a.tar", "checkpoint-action", "", "exec=sh"],
    ["tar:*", "tar -cf a.tar", "rsh-command", "", "sh"],
    ["tar:*", "tar -cf a.tar", "info-script", "F", "sh"],
    ["rg:*", "rg x", "pre", "", "sh"],
    ["git:*", "git fetch", "upload-pack", "", "sh"],
    ["git:*", "git push", "receive-pack", "", "sh"],
    ["git:*", "git log", "output", "", ".git/config"],
    ["git:*", "git grep x", "open-files-in-pager", "O", "sh"],
    ["git:*", "git", "exec-path", "", "."],
    ["git:*", "git", "config-env", "c", "core.pager=sh"],
    ["go test:*", "go test", "toolexec", "", "sh"],
    ["go test:*", "go test", "exec", "", "sh"],
    ["cargo test:*", "cargo test", "config", "Z", "x"],
    ["python3 -m pytest:*", "python3 -m pytest", "pdbcls", "p", "x"],
  ];
  const npmLike = (head: string) => head.startsWith("npm") || head.startsWith("pnpm");

  it("none is allowed by a prefix pattern of its program, however it is written", () => {
    const spelled = fc.constantFrom(...families).chain(([pattern, head, long, short, value]) =>
      fc.record({
        pattern: fc.constant(pattern),
        head: fc.constant(head),
        option: fc.oneof(
          // An abbreviation (or the whole name), `=value` or the next word; one letter is npm's `-s`.
          fc.tuple(fc.integer({ min: 2, max: long.length }), fc.boolean()).map(([n, eq]) =>
            eq ? `--${long.slice(0, n)}=${value}` : `--${long.slice(0, n)} ${value}`
          ),
          // npm: any number of dashes, `_` for `-`, any case.
          fc.tuple(fc.integer({ min: 1, max: 5 }), fc.boolean(), fc.boolean()).map(([d, u, up]) => {
            let name = u ? long.replaceAll("-", "_") : long;
            if (up) name = name.toUpperCase();
            return npmLike(head) ? `${"-".repeat(d)}${name}=${value}` : `--${long}=${value}`;
          }),
          // A short letter alone, attached, or last in a cluster of safe flags.
          fc.constantFrom("", "v", "q").map((flags) =>
            short === "" ? `--${long}=${value}` : `-${flags}${short} ${value}`
          ),
        ),
        operand: fc.constantFrom("", " a.txt", " -- x"),
      })
    );
    fc.assert(
      fc.property(spelled, ({ pattern, head, option, operand }) => {
        const command = `${head} '${option.split(" ")[0]}'${
          option.includes(" ") ? ` ${option.split(" ").slice(1).join(" ")}` : ""
        }${operand}`;
        assert.notEqual(restrict(`Bash(${pattern})`, command), "allow", command);
      }),
      runs(300),
    );
  });

  it("tar's dashless first word, find's and test's whole words", () => {
    for (
      const command of ["tar cIf sh a.tar b", "tar xf a.tar --to-command=sh", "tar cFf sh a.tar b"]
    ) {
      assert.equal(restrict("Bash(tar:*)", command), "deny", command);
    }
    for (
      const primary of [
        "-exec",
        "-execdir",
        "-ok",
        "-okdir",
        "-fprint",
        "-fprintf",
        "-fls",
        "-delete",
      ]
    ) {
      assert.equal(restrict("Bash(find:*)", `find . ${primary} sh ';'`), "deny", primary);
    }
    assert.equal(restrict("Bash(test:*)", "test -f a.txt"), "allow");
  });

  it("the everyday commands of the issue are allowed", () => {
    const everyday: readonly (readonly [string, string])[] = [
      ["git:*", "git log --oneline -5"],
      ["git diff:*", "git diff --stat HEAD~1"],
      ["npm test:*", "npm test -- --watch=false"],
      ["tar:*", "tar -czf out.tgz dir"],
      ["sort:*", "sort -k 2,2 -t , data.csv"],
      ["find:*", "find src -type f -newer package.json"],
      ["rg:*", "rg -n TODO src"],
      ["go test:*", "go test -run TestX -v ./pkg"],
      ["cargo test:*", "cargo test --release"],
      ["ls:*", "ls -la"],
      ["grep:*", "grep -rn x src"],
      ["python3 -m pytest:*", "python3 -m pytest -q -k slow"],
    ];
    for (const [pattern, command] of everyday) {
      assert.equal(restrict(`Bash(${pattern})`, command), "allow", command);
    }
  });
});
