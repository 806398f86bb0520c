/**
 * Modes on the command line (`lib/cli/catalog/_modes.ts`): `to-prompt --modes FILE
 * --report [--json]`, `activate --modes FILE`, `modes` in `skillset.json`,
 * and the report of skills kept out by `--tools`, `--approvals` and
 * dependencies that do not resolve.
 */
// @slow: runs the CLI as a subprocess (left out of `npm run test:quick`)
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { cli } from "../../_cli.ts";
import { write } from "../../_tree.ts";

let temp = "";
const t = (...parts: string[]) => join(temp, ...parts);
const skill = (name: string, extra = "") =>
  `---\nname: ${name}\ndescription: The ${name} skill does ${name} things.\n${extra}---\nBody of ${name}.\n`;

before(() => {
  temp = mkdtempSync(join(tmpdir(), "skillset-modes-cli-"));
  write(t("skills", "pdf", "SKILL.md"), skill("pdf"));
  write(t("skills", "csv", "SKILL.md"), skill("csv"));
  write(t("skills", "deploy", "SKILL.md"), skill("deploy", "disable-model-invocation: true\n"));
  write(t("skills", "web", "SKILL.md"), skill("web"));
  write(t("skills", "git", "SKILL.md"), skill("git", "metadata:\n  requires-tools: Bash\n"));
  write(
    t("modes.json"),
    JSON.stringify({ modes: { web: "name-only", pdf: "pinned", csv: "disabled" } }),
  );
  write(t("bad.json"), '{\n  "modes": { "web": "hidden" }\n}\n');
  write(t("proj", "modes.json"), readFileSync(t("modes.json"), "utf8"));
  write(t("proj", "skillset.json"), JSON.stringify({ modes: "modes.json" }));
});
after(() => rmSync(temp, { recursive: true, force: true }));

describe("skillset to-prompt --modes", () => {
  it("pins, names bare and leaves out by mode, and --report says why on stderr", () => {
    const r = cli(["to-prompt", t("skills"), "--modes", t("modes.json"), "--report"]);
    assert.equal(r.code, 0, r.stderr);
    const names = [...r.stdout.matchAll(/<name>(.*)<\/name>/g)].map((m) => m[1]);
    assert.deepEqual(names, ["pdf", "git", "web"]);
    assert.match(r.stdout, /<name>web<\/name>\n<location>/);
    const lines = r.stderr.split("\n");
    assert.match(
      lines[0]!,
      /^skillset: report: 3 skills not shown in full, \d+ characters saved:$/,
    );
    assert.ok(
      lines.some((l) => /^ {2}csv: dropped \(mode: disabled\), \d+ characters saved$/.test(l)),
      r.stderr,
    );
    assert.ok(
      lines.some((l) =>
        /^ {2}deploy: dropped \(mode: manual \(disable-model-invocation: true\)\), \d+ characters saved$/
          .test(l)
      ),
      r.stderr,
    );
    assert.ok(
      lines.some((l) => /^ {2}web: name-only \(mode: name-only\), \d+ characters saved$/.test(l)),
      r.stderr,
    );
  });

  it("reports in --json every skill not shown in full, those --tools left out included", () => {
    const r = cli([
      "to-prompt",
      t("skills"),
      "--modes",
      t("modes.json"),
      "--tools",
      "Read",
      "--json",
    ]);
    assert.equal(r.code, 0, r.stderr);
    const out = JSON.parse(r.stdout) as {
      skills: { name: string }[];
      report: { name: string; shown: string; reason: string; saved: number; detail?: string }[];
    };
    assert.deepEqual(out.skills.map((s) => s.name), ["pdf", "web"]);
    assert.deepEqual(
      out.report.map((e) => [e.name, e.shown, e.reason, e.detail]),
      [
        ["csv", "dropped", "mode", "disabled"],
        ["deploy", "dropped", "mode", "manual (disable-model-invocation: true)"],
        ["web", "name-only", "mode", "name-only"],
        ["git", "dropped", "missing-tools", "needs Bash"],
      ],
    );
    for (const e of out.report) assert.ok(e.saved > 0, JSON.stringify(e));
  });

  it("takes the modes file from skillset.json, and refuses a malformed one with its line and column", () => {
    const r = cli(["to-prompt", t("skills")], t("proj"));
    assert.equal(r.code, 0, r.stderr);
    assert.ok(!r.stdout.includes("<name>csv</name>"), r.stdout);
    const bad = cli(["to-prompt", t("skills"), "--modes", t("bad.json")]);
    assert.equal(bad.code, 1);
    assert.equal(
      bad.stderr,
      `skillset: error: ${
        t("bad.json")
      }:2:21: The mode of "web" must be one of pinned, auto, name-only, manual, disabled, not "hidden"\n`,
    );
    const missing = cli(["to-prompt", t("skills"), "--modes", t("none.json")]);
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /--modes: cannot read ".*none\.json" \(ENOENT\)/);
    const folder = cli(["to-prompt", t("skills"), "--modes", t("skills")]);
    assert.deepEqual([folder.code, folder.stderr], [
      2,
      `skillset: --modes: "${t("skills")}" is not a file\n`,
    ]);
    write(t("huge.json"), `{"modes": {}}${" ".repeat(1 << 20)}`);
    const huge = cli(["to-prompt", t("skills"), "--modes", t("huge.json")]);
    assert.deepEqual([huge.code, huge.stderr], [
      1,
      `skillset: error: ${t("huge.json")}: The file is over 1048576 bytes\n`,
    ]);
  });
});

describe("skillset to-prompt --approvals --report", () => {
  it("accounts for the skills not approved", () => {
    const approvals = t("approvals.json");
    const approve = cli([
      "approve",
      "pdf",
      "--root",
      `project=${t("skills")}`,
      "--approvals",
      approvals,
    ]);
    assert.equal(approve.code, 0, approve.stderr);
    const r = cli(["to-prompt", t("skills"), "--approvals", approvals, "--json"]);
    const out = JSON.parse(r.stdout) as {
      skills: { name: string }[];
      report: { name: string; reason: string; detail?: string }[];
    };
    assert.deepEqual(out.skills.map((s) => s.name), ["pdf"]);
    assert.deepEqual(
      out.report.map((e) => [e.name, e.reason, e.detail]).sort(),
      [["csv", "not-approved", "NEEDS_APPROVAL"], ["deploy", "not-approved", "NEEDS_APPROVAL"], [
        "git",
        "not-approved",
        "NEEDS_APPROVAL",
      ], ["web", "not-approved", "NEEDS_APPROVAL"]],
    );
  });
});

describe("skillset to-prompt --report: dependencies", () => {
  it("keeps out a skill whose dependencies do not resolve, and every one that needs it, saying why", () => {
    write(t("deps", "pdf", "SKILL.md"), skill("pdf"));
    write(
      t("deps", "forms", "SKILL.md"),
      skill("forms", "metadata:\n  requires-skills: pdf ocr\n"),
    );
    write(t("deps", "tax", "SKILL.md"), skill("tax", "metadata:\n  requires-skills: forms\n"));
    write(
      t("deps", "scan", "SKILL.md"),
      skill("scan", "metadata:\n  requires-any-skills: ocr tesseract\n"),
    );
    write(t("deps", "loop", "SKILL.md"), skill("loop", "metadata:\n  requires-skills: loop\n"));
    const r = cli(["to-prompt", t("deps"), "--json"]);
    const out = JSON.parse(r.stdout) as {
      skills: { name: string }[];
      report: { name: string; shown: string; reason: string; detail?: string; saved: number }[];
    };
    assert.deepEqual(out.skills.map((s) => s.name), ["pdf"]);
    assert.deepEqual(
      out.report.map((e) => [e.name, e.shown, e.reason, e.detail]).sort(),
      [
        ["forms", "dropped", "missing-dependency", "needs ocr"],
        ["loop", "dropped", "missing-dependency", "cycle loop → loop"],
        ["scan", "dropped", "missing-dependency", "needs one of ocr, tesseract"],
        ["tax", "dropped", "missing-dependency", "needs forms, which cannot activate"],
      ],
    );
    for (const e of out.report) assert.ok(e.saved > 0, JSON.stringify(e));
    const text = cli(["to-prompt", t("deps"), "--report"]);
    assert.match(
      text.stderr,
      /^ {2}forms: dropped \(missing-dependency: needs ocr\), \d+ characters saved$/m,
    );
    assert.doesNotMatch(text.stdout, /<name>forms<\/name>/);
  });
});

describe("skillset activate --modes", () => {
  it("activates a manual skill (you named it) and refuses a disabled one", () => {
    const manual = cli(["activate", t("skills", "deploy")]);
    assert.equal(manual.code, 0, manual.stderr);
    assert.match(manual.stdout, /Body of deploy\./);
    const disabled = cli(["activate", t("skills", "csv"), "--modes", t("modes.json")]);
    assert.equal(disabled.code, 1);
    assert.equal(
      disabled.stderr,
      `skillset: error: Skill "csv" is disabled (its mode in ${t("modes.json")})\n`,
    );
    assert.equal(cli(["activate", t("skills", "pdf"), "--modes", t("modes.json")]).code, 0);
  });
});
