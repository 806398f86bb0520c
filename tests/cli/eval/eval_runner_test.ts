// @slow: runs a fake runner command as a subprocess per query (left out of `npm run test:quick`)
// Issue 43: `skillset eval --runner CMD`, the live tier, with a fake runner.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runInProcess } from "../../_cli.ts";
import { put } from "../../_tree.ts";

const md = (name: string, description: string) =>
  `---\nname: ${name}\ndescription: ${description}\n---\nx\n`;

let root = "";
before(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), "skillset-runner-")));
  put(root, "s/pdf/SKILL.md", md("pdf", "Fill in PDF forms"));
  put(root, "s/csv/SKILL.md", md("csv", "Join CSV tables"));
  put(
    root,
    "s/csv/evals/trigger-eval.json",
    JSON.stringify([
      { query: "join csv tables", should_trigger: true },
      { query: "merge two tables", should_trigger: true },
      { query: "fill a form", should_trigger: false },
    ]),
  );
  // The fake model: keeps what it was sent, picks csv when the query says "csv" or "merge".
  put(
    root,
    "runner.sh",
    `input=$(cat)\nprintf '%s\\n' "$input" >> "${join(root, "seen.jsonl")}"\n` +
      `case "$input" in *'"query":"'*csv*|*'"query":"merge'*) echo csv ;; esac\n`,
  );
});
after(() => rmSync(root, { recursive: true, force: true }));

describe("skillset eval --runner", () => {
  it("asks the command for each query with the catalog, and scores what it picks", () => {
    const run = runInProcess([
      "eval",
      join(root, "s"),
      "--runner",
      `sh ${join(root, "runner.sh")}`,
      "--json",
    ]);
    assert.equal(run.code, 0, run.stderr);
    const out = JSON.parse(run.stdout);
    assert.equal(out.tier, "runner");
    const [csv] = out.reports;
    assert.deepEqual(
      [csv.true_positives, csv.false_negatives, csv.true_negatives, csv.false_positives],
      [2, 0, 1, 0],
    );
    const seen = readFileSync(join(root, "seen.jsonl"), "utf8").trim().split("\n")
      .map((l) => JSON.parse(l));
    assert.deepEqual(seen.map((s) => s.query), [
      "join csv tables",
      "merge two tables",
      "fill a form",
    ]);
    assert.deepEqual(seen[0].catalog, [
      { name: "csv", description: "Join CSV tables" },
      { name: "pdf", description: "Fill in PDF forms" },
    ]);
    // Search alone misses "merge two tables"? It finds csv by "tables"; the runner decided here.
  });

  it("fails with exit 2 naming the query when the runner fails", () => {
    const run = runInProcess(["eval", join(root, "s"), "--runner", "exit 3"]);
    assert.equal(run.code, 2);
    assert.equal(run.stderr, 'skillset: --runner failed for "join csv tables": exit 3\n');
  });
});
