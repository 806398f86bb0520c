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

  it("an unknown profile is a usage error naming the nearest", async () => {
    const r = await runIn(project(), "to-prompt", "skills", "--profile", "reveiw");
    assert.equal(r.code, 2);
    assert.match(
      r.err,
      /--profile: unknown profile "reveiw" \(did you mean "review"\?\) \(known: base, review, nothing\)/,
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
