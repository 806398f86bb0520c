// @slow: runs bash and dash as the oracle (left out of `npm run test:quick`)
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import process from "node:process";
import { seed } from "../../_fc.ts";
import { decideToolCall, shellWords, type ToolCallQuestion } from "../../../mod.ts";
import {
  assertShellWordsAgreeWithShell,
  assertToolPolicyAgreesWithShell,
  findShell,
  InvariantViolationError,
  observeShell,
  sandboxKind,
  type ShellName,
  type ShellWordsUnderTest,
  type ToolPolicyUnderTest,
} from "../../../lib/testing.ts";

/** Batches of 1,000 generated commands: about a third parse, so 36 batches run over 10,000 in each shell. */
const BATCHES = Number(process.env.FC_RUNS ?? 36);
/** With FC_RUNS unset, each shell must have run at least this many accepted commands. */
const LEAST = process.env.FC_RUNS === undefined ? 10_000 : 0;

/**
 * The grammar loosened to allow `${…}` as word characters: the words a
 * careless reader would take for literal.
 */
const LOOSE_WORD = /^(?:[A-Za-z0-9_\-./:,+@%=${}]|'[^'\n]*'|"[^"$`\\!\n]*")+$/;
const loosenedWords: ShellWordsUnderTest = (command) => {
  const raw = command.split(/[ \t]+/).filter((w) => w !== "");
  if (raw.length === 0 || !raw.every((w) => LOOSE_WORD.test(w))) return undefined;
  if (/=/.test(raw[0]!.replace(/'[^']*'|"[^"]*"/g, ""))) return undefined;
  const words = raw.map((w) => w.replace(/'([^']*)'|"([^"]*)"/g, (_, a, b) => a ?? b));
  return shellWords(words[0]!) === undefined ? undefined : words;
};

/** The old rule: a prefix and no character of a list (`;&|` backtick `<>` line breaks NUL `$(`). */
// deno-lint-ignore no-control-regex
const OLD_CONTROL = /[;&|`<>\n\r\u0000]|\$\(/;
const denylistPolicy: ToolPolicyUnderTest = (q) => {
  const input = q.call.input as { command: string };
  const allowed = String(q.active[Symbol.iterator]().next().value?.allowed_tools ?? "");
  const head = allowed.slice(5, -3);
  const command = input.command;
  const ok = !OLD_CONTROL.test(command) && (command === head || command.startsWith(`${head} `));
  return { verdict: ok ? "allow" : "deny" };
};

/** The policy with the table of code-running options left out: git's -c and the rest pass. */
const tablelessPolicy: ToolPolicyUnderTest = (q: ToolCallQuestion) => {
  const command = (q.call.input as { command: string }).command;
  const words = shellWords(command);
  if (words === undefined) return decideToolCall(q);
  const plain = words.filter((w) => !w.startsWith("-") && w !== "config");
  return decideToolCall({
    ...q,
    call: { ...q.call, input: { command: plain.map((w) => `'${w}'`).join(" ") } },
  });
};

function failsWith(f: () => void): string {
  try {
    f();
  } catch (e) {
    assert.ok(e instanceof InvariantViolationError, String(e));
    return e.message;
  }
  assert.fail("expected the law to fail");
}

for (const shell of ["bash", "dash"] as const satisfies readonly ShellName[]) {
  const missing = findShell(shell) === undefined ? `no ${shell} on this machine` : false;

  describe(`the real ${shell} agrees with the grammar (sandbox: ${missing ? "none" : sandboxKind()})`, () => {
    it(
      `runs the parsed words and nothing else, for ${BATCHES} batches of 1,000 generated commands (seed ${seed})`,
      {
        skip: missing,
      },
      () => {
        let ran = 0;
        assertShellWordsAgreeWithShell(shellWords, {
          shell,
          seed,
          numRuns: BATCHES,
          onBatch: (n) => (ran += n),
        });
        assert.ok(ran >= LEAST, `only ${ran} commands parsed and ran`);
      },
    );

    it(`runs only the granted program for every command decideToolCall allows (seed ${seed})`, {
      skip: missing,
    }, () => {
      let ran = 0;
      assertToolPolicyAgreesWithShell(decideToolCall, {
        shell,
        seed,
        numRuns: 6,
        onBatch: (n) => (ran += n),
      });
      assert.ok(ran > 0);
    });

    it("fails for a grammar loosened to allow `${`", { skip: missing }, () => {
      const message = failsWith(() =>
        assertShellWordsAgreeWithShell(loosenedWords, { shell, seed, numRuns: 3, batch: 300 })
      );
      assert.match(message, /\$/);
    });

    it(
      "fails for the old rule (a prefix and a list of bad characters), and for a policy without the table of options",
      {
        skip: missing,
      },
      () => {
        failsWith(() =>
          assertToolPolicyAgreesWithShell(denylistPolicy, { shell, seed, numRuns: 3, batch: 300 })
        );
        const message = failsWith(() =>
          assertToolPolicyAgreesWithShell(tablelessPolicy, { shell, seed, numRuns: 6, batch: 300 })
        );
        // Whatever program the seed picks, the failure is a code-running option the table names.
        assert.match(message, /: it uses \S+ \S/);
      },
    );
  });
}

describe("observeShell", () => {
  it("refuses a command that would split the batch script", {
    skip: findShell("bash") === undefined && "no bash",
  }, () => {
    assert.throws(() => observeShell(["git\nid"]), {
      name: "RangeError",
      message: 'A command holds a line break or NUL: "git\\nid"',
    });
  });

  it("sees a command substitution run, and bash's argv for a plain one", {
    skip: findShell("bash") === undefined && "no bash",
  }, () => {
    const [sub, plain, unknown] = observeShell([
      "git $(PWNED)",
      "git 'a b' \"c\"",
      "nothing-here x",
    ]);
    assert.deepEqual(sub!.records.map((r) => r.kind), ["exec", "call"]);
    assert.deepEqual(plain!.records, [{ kind: "call", argv: ["git", "a b", "c"] }]);
    assert.deepEqual(unknown!.records, [{ kind: "missing", argv: ["nothing-here", "x"] }]);
  });
});
