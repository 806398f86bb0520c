// Issue 43: `validate --max-body-tokens N` (a real BPE count) and `validate --collisions`.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runInProcess } from "../../_cli.ts";
import { put } from "../../_tree.ts";
import { bodyTokens } from "../../../lib/cli/eval/_budgets.ts";

const md = (name: string, description: string, body: string) =>
  `---\nname: ${name}\ndescription: ${description}\n---\n${body}`;

let root = "";
before(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), "skillset-budget-")));
  const words = Array.from({ length: 2000 }, (_, i) => ["form", "field", "stamp", "page"][i % 4]);
  put(root, "s/big/SKILL.md", md("big", "A long skill", `${words.join(" ")}\n`));
  put(root, "s/small/SKILL.md", md("small", "A short skill", "Short body.\n"));
});
after(() => rmSync(root, { recursive: true, force: true }));

describe("validate --max-body-tokens", () => {
  it("fails on a 2,000-word body, naming the skill and its count", () => {
    const run = runInProcess(["validate", join(root, "s"), "--max-body-tokens", "100"]);
    assert.equal(run.code, 1);
    assert.equal(
      run.stdout,
      `${join(root, "s", "big", "SKILL.md")}: error: The body of skill "big" is 2001 tokens ` +
        "(o200k_base), over the budget of 100\n1 error, 0 warnings\n",
    );
    assert.equal(runInProcess(["validate", join(root, "s"), "--max-body-tokens", "2001"]).code, 0);
    assert.equal(runInProcess(["validate", join(root, "s")]).code, 0);
  });

  it("counts BPE tokens, not characters or words", () => {
    assert.equal(bodyTokens(""), 0);
    assert.equal(bodyTokens("hello world"), 2);
    // Characters ÷ 4 would say 3; a rare word splits into several tokens.
    assert.ok(bodyTokens("supercalifragilisticexpialidocious") > 3);
  });
});

describe("validate --collisions", () => {
  it("warns of near-duplicate descriptions with the shared terms", () => {
    const dup = realpathSync(mkdtempSync(join(tmpdir(), "skillset-collide-")));
    try {
      put(
        dup,
        "pdf-forms/SKILL.md",
        md("pdf-forms", "Fill in PDF forms and check their fields", "x\n"),
      );
      put(dup, "pdf-filler/SKILL.md", md("pdf-filler", "Fill in the fields of PDF forms", "x\n"));
      put(dup, "csv/SKILL.md", md("csv", "Join CSV tables", "x\n"));
      const run = runInProcess(["validate", dup, "--collisions"]);
      assert.equal(run.code, 0);
      assert.match(
        run.stdout,
        /: warning: Skills "pdf-filler" and "pdf-forms" have descriptions likely to be confused \(shared: fields, fill, forms, pdf\)\n/,
      );
      assert.equal(runInProcess(["validate", dup]).stdout, "0 errors, 0 warnings\n");
    } finally {
      rmSync(dup, { recursive: true, force: true });
    }
  });
});

describe("activate --max-body-tokens", () => {
  it("shows at most N o200k_base tokens of the body and names the read of SKILL.md that continues it", () => {
    const run = runInProcess([
      "activate",
      join(root, "s", "big"),
      "--max-body-tokens",
      "100",
      "--json",
    ]);
    assert.equal(run.code, 0, run.stderr);
    const activation = JSON.parse(run.stdout);
    // One line of 2,000 words: cut inside it, by the real tokenizer, not by characters ÷ 4.
    assert.equal(bodyTokens(activation.instructions), 100);
    assert.deepEqual(activation.instructions_cut, {
      max_tokens: 100,
      tokens: 2001,
      shown_tokens: 100,
      counted_by: "counter",
      rest: { line: 0, byte: activation.instructions.length },
      continue: { resource: "SKILL.md", offset: `4+${activation.instructions.length}` },
    });
    const whole = JSON.parse(
      runInProcess(["activate", join(root, "s", "small"), "--max-body-tokens", "100", "--json"])
        .stdout,
    );
    assert.deepEqual([whole.instructions, whole.instructions_cut], ["Short body.\n", undefined]);
  });

  it("refuses a budget of 0", () => {
    const run = runInProcess(["activate", join(root, "s", "big"), "--max-body-tokens", "0"]);
    assert.equal(run.code, 2);
    assert.match(run.stderr, /--max-body-tokens/);
  });
});
