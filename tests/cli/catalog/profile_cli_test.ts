/**
 * Profiles and paths on the command line (`lib/cli/catalog/_profile.ts`):
 * `to-prompt --profile NAME [--profiles FILE]`, `"profiles"` in
 * `skillset.json`, an unknown profile, an empty one, `--paths`, and the
 * report's `profile` and `paths` reasons. The CLI runs in-process.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runIn } from "../../_cli.ts";
import { write } from "../../_tree.ts";

function project(): string {
  const dir = mkdtempSync(join(tmpdir(), "skillset-profile-cli-"));
  const skill = (name: string, extra = "") =>
    write(
      join(dir, "skills", name, "SKILL.md"),
      `---\nname: ${name}\ndescription: The ${name} skill.\n${extra}---\nDo ${name}.\n`,
    );
  for (const name of ["code-review", "code-experimental", "git-log", "pdf"]) skill(name);
  skill("ui", 'paths: ["**/*.tsx"]\n');
  write(
    join(dir, "skillset.json"),
    JSON.stringify({
      profiles: {
        base: { exclude: ["*-experimental"] },
        review: { include: ["code-*", "git-*"], pinned: ["code-review"], extends: "base" },
        nothing: { include: ["zzz-*"] },
      },
    }),
  );
  return dir;
}

const names = (out: string) => [...out.matchAll(/<name>(.*?)<\/name>/g)].map((m) => m[1]);

describe("to-prompt --profile", () => {
  it("lists only the profile's skills, from skillset.json's profiles, and reports the rest", async () => {
    const dir = project();
    const r = await runIn(dir, "to-prompt", "skills", "--profile", "review", "--report");
    assert.equal(r.code, 0, r.err);
    assert.deepEqual(names(r.out), ["code-review", "git-log"]);
    assert.match(
      r.err,
      /^ {2}code-experimental: dropped \(profile: review\), \d+ characters saved$/m,
    );
    assert.match(r.err, /^ {2}pdf: dropped \(profile: review\)/m);
    assert.match(r.err, /^ {2}ui: dropped \(profile: review\)/m);
  });

  it("an unknown profile, asked for or in extends, is a usage error in the one unknown-name shape", async () => {
    const dir = project();
    const r = await runIn(dir, "to-prompt", "skills", "--profile", "reveiw");
    assert.equal(r.code, 2);
    assert.equal(
      r.err,
      'skillset: unknown profile "reveiw" in skillset.json (did you mean "review"?)\n',
    );
    const far = await runIn(dir, "to-prompt", "skills", "--profile", "zzzzzz");
    assert.equal(far.code, 2);
    assert.match(
      far.err,
      /unknown profile "zzzzzz" in \S+ \(one of "base", "review" or "nothing"\)\n$/,
    );
    write(join(dir, "p.json"), JSON.stringify({ profiles: { r: { extends: "bse" }, base: {} } }));
    const extended = await runIn(
      dir,
      "to-prompt",
      "skills",
      "--profiles",
      "p.json",
      "--profile",
      "r",
    );
    assert.equal(extended.code, 2);
    assert.equal(
      extended.err,
      'skillset: unknown profile "bse" in the "extends" of profile "r" in p.json (did you mean "base"?)\n',
    );
  });

  it("a profile that matches no skill is an error unless --allow-empty", async () => {
    const dir = project();
    const r = await runIn(dir, "to-prompt", "skills", "--profile", "nothing");
    assert.equal(r.code, 1);
    assert.match(
      r.err,
      /Profile "nothing" matches none of the 5 skills found \(pass --allow-empty/,
    );
    const allowed = await runIn(
      dir,
      "to-prompt",
      "skills",
      "--profile",
      "nothing",
      "--allow-empty",
    );
    assert.equal(allowed.code, 0, allowed.err);
    assert.deepEqual(names(allowed.out), []);
  });

  it("a profiles file given with --profiles", async () => {
    const dir = project();
    write(join(dir, "p.json"), JSON.stringify({ profiles: { pdfs: { include: ["pdf"] } } }));
    const r = await runIn(dir, "to-prompt", "skills", "--profiles", "p.json", "--profile", "pdfs");
    assert.equal(r.code, 0, r.err);
    assert.deepEqual(names(r.out), ["pdf"]);
  });
});

describe("to-prompt --paths", () => {
  it("lists a skill with paths only for a matching path, with reason paths otherwise", async () => {
    const dir = project();
    const without = await runIn(dir, "to-prompt", "skills", "--report");
    assert.ok(!names(without.out).includes("ui"));
    assert.match(without.err, /^ {2}ui: dropped \(paths: no path given\)/m);
    const other = await runIn(dir, "to-prompt", "skills", "--paths", "README.md", "--report");
    assert.match(other.err, /^ {2}ui: dropped \(paths: no path given matches\)/m);
    const matching = await runIn(
      dir,
      "to-prompt",
      "skills",
      "--paths",
      "README.md",
      "--paths",
      "src/App.tsx",
    );
    assert.ok(names(matching.out).includes("ui"));
  });

  it("activate works on a skill with paths either way", async () => {
    const r = await runIn(project(), "activate", "skills/ui");
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, /Do ui\./);
  });
});

describe("list, search, eval and run under --profile and --paths", () => {
  const listed = (json: string) =>
    (JSON.parse(json) as { skills: { status: string; name: string }[] }).skills
      .filter((s) => s.status === "loaded").map((s) => s.name);

  it("list shows only the profile's skills and names the rest", async () => {
    const dir = project();
    const r = await runIn(dir, "list", "skills", "--profile", "review", "--json");
    assert.equal(r.code, 0, r.err);
    assert.deepEqual(listed(r.out).sort(), ["code-review", "git-log"]);
    assert.deepEqual(
      (JSON.parse(r.out) as { left_out: unknown[] }).left_out,
      [
        { name: "code-experimental", reason: "profile", detail: "review" },
        { name: "pdf", reason: "profile", detail: "review" },
        { name: "ui", reason: "profile", detail: "review" },
      ],
    );
    const text = await runIn(dir, "list", "skills", "--profile", "review");
    assert.match(
      text.out,
      /^2 loaded, 0 shadowed, 0 skipped, 3 left out \(profile review: code-experimental, pdf, ui\)/m,
    );
    // Without the flags, every skill, as before.
    assert.equal(listed((await runIn(dir, "list", "skills", "--json")).out).length, 5);
  });

  it("list --paths leaves out a skill with paths only when none matches", async () => {
    const dir = project();
    const other = await runIn(dir, "list", "skills", "--paths", "README.md", "--json");
    assert.ok(!listed(other.out).includes("ui"));
    const tsx = await runIn(dir, "list", "skills", "--paths", "src/App.tsx", "--json");
    assert.ok(listed(tsx.out).includes("ui"));
  });

  it("search finds only the profile's skills", async () => {
    const dir = project();
    const all = await runIn(dir, "search", "pdf skill", "--root", "p=skills", "--json");
    assert.equal(all.code, 0, all.err);
    const under = await runIn(
      dir,
      "search",
      "pdf skill",
      "--root",
      "p=skills",
      "--profile",
      "review",
      "--json",
    );
    const found = (out: string) =>
      (JSON.parse(out) as { results: { name: string }[] }).results.map((r) => r.name);
    assert.ok(found(all.out).includes("pdf"));
    assert.ok(!found(under.out).includes("pdf"));
    assert.equal((JSON.parse(under.out) as { skills: number }).skills, 2);
  });

  it("every command refuses an unknown profile (exit 2, nearest named) and an empty one", async () => {
    const dir = project();
    write(join(dir, "skills", "pdf", "scripts", "x.sh"), "echo hi\n");
    const commands = [
      ["list", "skills"],
      ["search", "pdf", "--root", "p=skills"],
      ["eval", "skills"],
      ["run", "skills/pdf", "scripts/x.sh"],
    ];
    for (const command of commands) {
      const r = await runIn(dir, ...command, "--profile", "reveiw");
      assert.equal(r.code, 2, `${command[0]}: ${r.err}`);
      assert.match(
        r.err,
        /^skillset: unknown profile "reveiw" in \S+ \(did you mean "review"\?\)$/m,
      );
    }
    for (const command of commands.slice(0, 3)) {
      const r = await runIn(dir, ...command, "--profile", "nothing");
      assert.equal(r.code, 1, `${command[0]}: ${r.err}`);
      assert.match(r.err, /Profile "nothing" matches none of the 5 skills found/);
      const allowed = await runIn(dir, ...command, "--profile", "nothing", "--allow-empty");
      assert.doesNotMatch(allowed.err, /matches none/);
    }
  });

  it("eval runs only the cases of the profile's skills", async () => {
    const dir = project();
    const cases = (name: string) =>
      write(
        join(dir, "skills", name, "evals", "trigger-eval.json"),
        JSON.stringify([{ query: `the ${name} skill`, should_trigger: true }]),
      );
    cases("pdf");
    cases("code-review");
    // An evals file naming a skill the profile leaves out: its cases are not run, nor unknown.
    write(
      join(dir, "more.json"),
      JSON.stringify({ "pdf": [{ query: "fill a pdf", should_trigger: true }] }),
    );
    const r = await runIn(
      dir,
      "eval",
      "skills",
      "--evals",
      "more.json",
      "--profile",
      "review",
      "--json",
    );
    const report = JSON.parse(r.out) as {
      skills: number;
      reports: { skill: string }[];
      unknown_skills: string[];
    };
    assert.deepEqual(report.reports.map((x) => x.skill), ["code-review"]);
    assert.equal(report.skills, 2);
    assert.deepEqual(report.unknown_skills, []);
  });

  it("run refuses a skill the profile leaves out, before anything runs", async () => {
    const dir = project();
    write(join(dir, "skills", "pdf", "scripts", "x.sh"), "echo ran > /dev/null\n");
    const r = await runIn(dir, "run", "skills/pdf", "scripts/x.sh", "--profile", "review");
    assert.equal(r.code, 1);
    assert.match(
      r.err,
      /Profile "review" leaves out skill "pdf" \(run it without --profile, or add it to the profile\)/,
    );
    assert.doesNotMatch(r.err, /skillset run: pdf/);
  });
});
