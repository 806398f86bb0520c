/**
 * The table "What wins when" of docs/large-libraries.md, row by row: each
 * row's case is run through `skillset to-prompt --json` (in-process) and its
 * "listed" and "reason" columns are checked against what the command did.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ROOT, runIn } from "../../_cli.ts";
import { write } from "../../_tree.ts";

const PAGE = readFileSync(join(ROOT, "docs", "large-libraries.md"), "utf8");

function rows(): string[][] {
  const at = PAGE.indexOf("### What wins when");
  assert.ok(at >= 0);
  const lines = PAGE.slice(at).split("\n");
  const start = lines.findIndex((l) => l.startsWith("|"));
  const out: string[][] = [];
  for (const line of lines.slice(start + 2)) {
    if (!line.startsWith("|")) break;
    out.push(line.slice(1, -1).split("|").map((c) => c.trim().replace(/^`(.*)`$/, "$1")));
  }
  return out;
}

const SUBJECT = "code-subject";

/** Run to-prompt over a project of the subject and a few others, with these files and flags. */
async function run(
  frontmatter: string,
  profile: Record<string, unknown>,
  flags: string[] = [],
  setup?: (dir: string) => Promise<void>,
): Promise<{ listed: boolean; reason: string }> {
  const dir = mkdtempSync(join(tmpdir(), "skillset-wins-"));
  const skill = (name: string, extra = "", body = "Do it.\n") =>
    write(
      join(dir, "skills", name, "SKILL.md"),
      `---\nname: ${name}\ndescription: The ${name} skill, described at some length ${
        "so that a tight budget has to leave something out ".repeat(3)
      }\n${extra}---\n${body}`,
    );
  skill(SUBJECT, frontmatter);
  for (let i = 0; i < 30; i++) skill(`code-other-${i}`);
  writeFileSync(
    join(dir, "skillset.json"),
    JSON.stringify({ profiles: { p: profile } }),
  );
  await setup?.(dir);
  const r = await runIn(dir, "to-prompt", "skills", "--profile", "p", "--json", ...flags);
  const json = JSON.parse(r.out) as {
    skills: { name: string }[];
    report: { name: string; reason: string; shown: string }[];
  };
  const entry = json.report.find((e) => e.name === SUBJECT && e.shown === "dropped");
  return {
    listed: json.skills.some((s) => s.name === SUBJECT),
    reason: entry?.reason ?? "",
  };
}

const modesFile = (dir: string, modes: Record<string, string>) =>
  writeFileSync(join(dir, "modes.json"), JSON.stringify({ modes }));

/** One case per row of the table, by its order. */
const CASES: ReadonlyMap<string, () => Promise<{ listed: boolean; reason: string }>> = new Map([
  [
    "1",
    () =>
      run(
        "",
        { pinned: [SUBJECT] },
        ["--modes", "modes.json"],
        (dir) => Promise.resolve(modesFile(dir, { [SUBJECT]: "disabled" })),
      ),
  ],
  ["2", () =>
    run("", { pinned: [SUBJECT] }, ["--approvals", "approvals.json"], async (dir) => {
      const approved = await runIn(
        dir,
        "approve",
        "--all",
        "--root",
        "p=skills",
        "--approvals",
        "approvals.json",
      );
      assert.equal(approved.code, 0, approved.err);
      write(
        join(dir, "skills", SUBJECT, "SKILL.md"),
        readFileSync(join(dir, "skills", SUBJECT, "SKILL.md"), "utf8") + "Changed.\n",
      );
    })],
  ["3", () => run("", { include: ["code-*"], pinned: [SUBJECT], exclude: ["*-subject"] })],
  [
    "4",
    () =>
      run(
        "",
        { modes: { [SUBJECT]: "auto" } },
        ["--modes", "modes.json"],
        (dir) => Promise.resolve(modesFile(dir, { [SUBJECT]: "manual" })),
      ),
  ],
  [
    "5",
    () =>
      run(
        "",
        { pinned: [SUBJECT] },
        ["--modes", "modes.json", "--budget", "2000"],
        (dir) => Promise.resolve(modesFile(dir, { [SUBJECT]: "name-only" })),
      ),
  ],
  ["6", () => run("", { include: ["git-*", "code-other-*"] })],
  ["7", () => run('paths: ["**/*.tsx"]\n', { pinned: [SUBJECT] }, ["--paths", "README.md"])],
  ["8", () => run("disable-model-invocation: true\n", {})],
  ["9", () => run("metadata:\n  requires-skills: missing-one\n", {})],
  ["10", () => run("", {}, ["--budget", "1500"])],
]);

describe("what wins when (docs/large-libraries.md), row by row", () => {
  const table = rows();

  it("every row has a case and every case a row", () => {
    assert.deepEqual(table.map((r) => r[0]), [...CASES.keys()]);
  });

  for (const [order, when, listed, reason] of table) {
    it(`${order}: a skill that ${when}`, async () => {
      const got = await CASES.get(order!)!();
      assert.equal(got.listed, listed === "yes", `listed: ${JSON.stringify(got)}`);
      assert.equal(got.reason, reason ?? "", `reason: ${JSON.stringify(got)}`);
    });
  }
});
