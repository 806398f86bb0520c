// Issue 43: `skillset eval` — trigger evals routed through search, per skill
// recall and precision in text, JSON and JUnit, thresholds, confusable pairs.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runInProcess } from "../../_cli.ts";
import { link, put } from "../../_tree.ts";

const md = (name: string, description: string, body = "x\n") =>
  `---\nname: ${name}\ndescription: ${description}\n---\n${body}`;
const cases = (list: [string, boolean][]) =>
  JSON.stringify(list.map(([query, should_trigger]) => ({ query, should_trigger })));

let root = "";
before(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), "skillset-eval-")));
  put(root, "s/pdf/SKILL.md", md("pdf", "Fill in PDF forms", "# Stamps\nsignature stamp\n"));
  put(root, "s/csv/SKILL.md", md("csv", "Join CSV tables and sort their rows"));
  put(root, "s/xlsx/SKILL.md", md("xlsx", "Chart spreadsheet columns"));
  put(
    root,
    "s/pdf/evals/trigger-eval.json",
    cases([
      ["fill in this pdf form", true],
      ["put a signature stamp on the pdf", true],
      ["join two csv tables", false],
      ["chart the spreadsheet columns", false],
    ]),
  );
  put(
    root,
    "s/csv/evals/trigger-eval.json",
    cases([["join these csv tables", true], ["plot the spreadsheet columns", true]]),
  );
  // A skill whose evals folder leads out of it: not read.
  put(root, "outside/trigger-eval.json", cases([["anything", true]]));
  link(join(root, "outside"), join(root, "s", "xlsx", "evals"));
});
after(() => rmSync(root, { recursive: true, force: true }));

describe("skillset eval", () => {
  it("reports per skill recall and precision, each miss with winner and terms", () => {
    const run = runInProcess(["eval", join(root, "s")]);
    assert.equal(run.code, 0, run.stderr);
    const lines = run.stdout.split("\n");
    assert.equal(lines[0], "csv: recall 0.50 (1/2), precision 1.00 (1/1); TP 1 FP 0 FN 1 TN 0");
    assert.equal(
      lines[1],
      '  missed "plot the spreadsheet columns": "xlsx" won ' +
        "(spreadsheet (description), columns (description))",
    );
    assert.equal(lines[2], "pdf: recall 1.00 (2/2), precision 1.00 (2/2); TP 2 FP 0 FN 0 TN 2");
    assert.match(run.stdout, /^search: 2 skills, recall 0\.75, precision 1\.00, /m);
  });

  it("gives the same in JSON, and JUnit with a failure per miss", () => {
    const junit = join(root, "report.xml");
    const run = runInProcess(["eval", join(root, "s"), "--json", "--junit", junit]);
    const out = JSON.parse(run.stdout) as {
      reports: { skill: string; recall: number; precision: number }[];
      failing: string[];
    };
    assert.deepEqual(out.reports.map((r) => [r.skill, r.recall, r.precision]), [
      ["csv", 0.5, 1],
      ["pdf", 1, 1],
    ]);
    const xml = readFileSync(junit, "utf8");
    assert.match(xml, /<testsuite name="csv" tests="2" failures="1">/);
    assert.equal(xml.split("<failure ").length - 1, 1);
    assert.match(
      xml,
      /name="triggers on plot the spreadsheet columns"><failure message="missed: xlsx won spreadsheet \(description\), columns \(description\)"\/>/,
    );
  });

  it("exits 1 under --min-recall or --min-precision, naming the skills", () => {
    const low = runInProcess(["eval", join(root, "s"), "--min-recall", "0.6", "--json"]);
    assert.equal(low.code, 1);
    assert.deepEqual(JSON.parse(low.stdout).failing, ["csv"]);
    assert.equal(runInProcess(["eval", join(root, "s"), "--min-recall", "0.5"]).code, 0);
    assert.equal(runInProcess(["eval", join(root, "s"), "--min-precision", "1"]).code, 0);
    const bad = runInProcess(["eval", join(root, "s"), "--min-recall", "2"]);
    assert.equal(bad.code, 2);
    assert.equal(bad.stderr, 'skillset: --min-recall takes a number from 0 to 1, got "2"\n');
  });

  it("reads a top-level file mapping names to cases, and refuses a bad one", () => {
    put(
      root,
      "map.json",
      JSON.stringify({ xlsx: [{ query: "chart columns", should_trigger: true }] }),
    );
    const run = runInProcess([
      "eval",
      join(root, "s"),
      "--evals",
      join(root, "map.json"),
      "--json",
    ]);
    const skills = (JSON.parse(run.stdout).reports as { skill: string }[]).map((r) => r.skill);
    assert.deepEqual(skills, ["xlsx", "csv", "pdf"]);
    put(root, "bad.json", JSON.stringify({ xlsx: [{ query: 3 }] }));
    const bad = runInProcess(["eval", join(root, "s"), "--evals", join(root, "bad.json")]);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /Trigger eval 1 in ".*bad\.json: xlsx" must have a "query"/);
  });

  it("reports likely-confused near-duplicate descriptions with their shared terms", () => {
    const dup = realpathSync(mkdtempSync(join(tmpdir(), "skillset-dup-")));
    try {
      put(dup, "a/SKILL.md", md("pdf-forms", "Fill in PDF forms and check their fields"));
      put(dup, "b/SKILL.md", md("pdf-filler", "Fill in the fields of PDF forms"));
      put(dup, "c/SKILL.md", md("csv", "Join CSV tables"));
      put(dup, "c/evals/trigger-eval.json", cases([["join csv tables", true]]));
      const run = runInProcess(["eval", dup, "--json"]);
      const pairs = JSON.parse(run.stdout).confusable as { skills: string[]; shared: string[] }[];
      assert.deepEqual(pairs.map((p) => [p.skills, p.shared]), [
        [["pdf-filler", "pdf-forms"], ["fields", "fill", "forms", "pdf"]],
      ]);
      const text = runInProcess(["eval", dup]).stdout;
      assert.match(
        text,
        /^confusable: pdf-filler ~ pdf-forms \(shared: fields, fill, forms, pdf\)$/m,
      );
    } finally {
      rmSync(dup, { recursive: true, force: true });
    }
  });

  it("exits 1 when no skill has evals", () => {
    const run = runInProcess(["eval", join(root, "outside")]);
    assert.equal(run.code, 1);
  });
});
