// Attacks on the tool policy from outside (issue 29 review): commands that
// `decideToolCall` allowed in restrict mode from a broad pattern and that make
// the approved program run code of the caller's choosing. Each was checked
// against the real program (git 2.39, npm 11, GNU find) before it went here.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { compileToolPolicy, decideToolCall, unapprovedOption } from "../../../mod.ts";
import { referenceShellWords } from "../../../lib/testing.ts";

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
