// @slow: makes git repositories and fetches them (left out of `npm run test:quick`)
/**
 * Agent targets (`addSkills(…, { agents })`): each skill installed once in
 * `.agents/skills` and linked (or copied) into each agent's folder; the
 * lockfile records the targets; outdated, update and remove cover them.
 * The hostile cases are built as attacks: an agent folder that is a link
 * out of the project, a foreign folder at a target's name, a lockfile
 * steering a target elsewhere, a failure midway. Each fails with its
 * defence removed.
 *
 * @module
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { readLockfile } from "../../../lib/load.ts";
import { addSkills, removeSkills } from "../../../lib/fs/lifecycle/_lifecycle.ts";
import { entryAt } from "../../../lib/fs/lifecycle/_installed.ts";
import { targetProblems } from "../../../lib/fs/lifecycle/_targets.ts";
import { outdatedSkills, updateSkills } from "../../../lib/fs/lifecycle/_update.ts";
import { type LifecycleFs, nodeLifecycleFs } from "../../../lib/fs/lifecycle/_transaction.ts";
import { SkillSourceError } from "../../../lib/fs/lifecycle/skill_source_error.ts";
import { NO_GIT, pdfAndWeb as fixture, tempFolder } from "../../_git.ts";
import { contents, put } from "../../_tree.ts";

describe("add --agent", { skip: NO_GIT }, () => {
  it("links each skill where Claude Code reads it, records the target, and remove takes every target", async () => {
    const { repo, proj } = fixture();
    const result = await addSkills(repo.dir, { cwd: proj, agents: ["claude-code", "cursor"] });
    assert.deepEqual(result.refused, []);
    for (const name of ["pdf", "web"]) {
      for (const agent of [".claude", ".cursor"]) {
        const link = join(proj, agent, "skills", name);
        assert.equal(readlinkSync(link), join("..", "..", ".agents", "skills", name));
        assert.match(readFileSync(join(link, "SKILL.md"), "utf8"), new RegExp(`name: ${name}`));
      }
    }
    const pdf = readLockfile(join(proj, "skills.lock.json")).skills.find((s) => s.name === "pdf")!;
    assert.deepEqual(pdf.targets, [
      { agent: "claude-code", path: ".claude/skills/pdf", mode: "link" },
      { agent: "cursor", path: ".cursor/skills/pdf", mode: "link" },
    ]);
    assert.deepEqual((await outdatedSkills({ cwd: proj })).map((s) => s.state), [
      "up_to_date",
      "up_to_date",
    ]);
    const removed = await removeSkills(["pdf"], { cwd: proj });
    assert.deepEqual(removed.refused, []);
    for (const agent of [".claude", ".cursor", ".agents"]) {
      assert.deepEqual(readdirSync(join(proj, agent, "skills")), ["web"]);
    }
  });

  it("an agent reading the canonical folder gets no target", async () => {
    const { repo, proj } = fixture();
    const result = await addSkills(repo.dir, { cwd: proj, agents: ["codex", "goose"] });
    assert.deepEqual(result.installed.map((s) => s.targets), [[], []]);
    assert.deepEqual(readdirSync(proj).sort(), [".agents", "skills.lock.json"]);
  });

  it("an unknown agent is a typed error before anything is fetched or written", async () => {
    const { repo, proj } = fixture();
    await assert.rejects(addSkills(repo.dir, { cwd: proj, agents: ["claude"] }), {
      name: "SkillSourceError",
      code: "UNKNOWN_AGENT",
      message:
        'Unknown agent "claude": skillset knows "claude-code", "codex", "cursor", "github-copilot", "gemini-cli", "opencode", "goose", "windsurf"',
    });
    assert.deepEqual(readdirSync(proj), []);
  });

  it("--copy copies; an edited copy is reported, refused by remove, and removed with force", async () => {
    const { repo, proj } = fixture();
    await addSkills(repo.dir, { cwd: proj, agents: ["windsurf"], copy: true });
    const copy = join(proj, ".windsurf", "skills", "pdf");
    assert.ok(lstatSync(copy).isDirectory() && !lstatSync(copy).isSymbolicLink());
    put(copy, "SKILL.md", "---\nname: pdf\ndescription: edited\n---\n");
    const report = await outdatedSkills({ cwd: proj });
    const pdf = report.find((s) => s.name === "pdf")!;
    assert.equal(pdf.state, "modified");
    assert.deepEqual(pdf.targets.map((t) => [t.agent, t.state]), [["windsurf", "edited"]]);
    const refused = await removeSkills(["pdf"], { cwd: proj });
    assert.deepEqual(refused.refused.map((r) => r.code), ["LOCALLY_MODIFIED"]);
    assert.ok(existsSync(copy));
    await removeSkills(["pdf"], { cwd: proj, force: true });
    assert.ok(!existsSync(copy));
    assert.ok(!existsSync(join(proj, ".agents", "skills", "pdf")));
  });

  it("a missing or retargeted link is reported, refused by update, and put back by update --force", async () => {
    const { repo, proj, top } = fixture();
    await addSkills(repo.dir, { cwd: proj, agents: ["claude-code"] });
    const pdfLink = join(proj, ".claude", "skills", "pdf");
    const webLink = join(proj, ".claude", "skills", "web");
    rmSync(pdfLink);
    const elsewhere = join(top, "elsewhere");
    put(elsewhere, "SKILL.md", "---\nname: web\ndescription: theirs\n---\n");
    rmSync(webLink);
    symlinkSync(elsewhere, webLink);
    const report = await outdatedSkills({ cwd: proj });
    assert.deepEqual(
      report.map((s) => [s.name, s.state, s.targets.map((t) => t.state)]),
      [["pdf", "modified", ["missing"]], ["web", "modified", ["retargeted"]]],
    );
    const refused = await updateSkills([], { cwd: proj });
    assert.deepEqual(refused.map((s) => s.status), ["refused", "refused"]);
    assert.match(
      refused[1]!.error!.message,
      /is a link pointing elsewhere: "\.claude\/skills\/web"/,
    );
    const forced = await updateSkills([], { cwd: proj, force: true });
    assert.deepEqual(forced.map((s) => s.status), ["updated", "updated"]);
    assert.equal(readlinkSync(webLink), join("..", "..", ".agents", "skills", "web"));
    assert.equal(readlinkSync(pdfLink), join("..", "..", ".agents", "skills", "pdf"));
    assert.ok(
      existsSync(join(elsewhere, "SKILL.md")),
      "the folder a retargeted link named is kept",
    );
    assert.deepEqual((await outdatedSkills({ cwd: proj })).map((s) => s.state), [
      "up_to_date",
      "up_to_date",
    ]);
  });

  it("an update replaces each copy with the new version", async () => {
    const { repo, proj } = fixture();
    await addSkills(repo.dir, { cwd: proj, agents: ["gemini-cli"], copy: true });
    repo.skill("skills/pdf", "pdf", "# pdf v2\n").commit();
    const result = await updateSkills(["pdf"], { cwd: proj });
    assert.deepEqual(result.map((s) => s.status), ["updated"]);
    assert.match(readFileSync(join(proj, ".gemini/skills/pdf/SKILL.md"), "utf8"), /# pdf v2/);
    assert.deepEqual((await outdatedSkills({ cwd: proj })).map((s) => s.state), [
      "up_to_date",
      "up_to_date",
    ]);
  });
});

describe("agent targets against a hostile project", { skip: NO_GIT }, () => {
  it("an agent folder that is a link out of the project: OUTSIDE_ROOT, nothing written anywhere", async () => {
    const { repo, proj, top } = fixture();
    const outside = join(top, "outside");
    mkdirSync(join(outside, "skills"), { recursive: true });
    symlinkSync(outside, join(proj, ".claude"));
    const before = contents(top);
    await assert.rejects(
      addSkills(repo.dir, { cwd: proj, agents: ["claude-code"] }),
      (e: unknown) => e instanceof SkillSourceError && e.code === "OUTSIDE_ROOT",
    );
    assert.deepEqual(contents(top), before);
  });

  it("a foreign folder or file at a target's name is never overwritten: FOREIGN_FILE, the skill not installed", async () => {
    const { repo, proj } = fixture();
    put(proj, ".claude/skills/pdf/SKILL.md", "mine\n");
    writeFileSync(join(proj, ".claude/skills/web"), "a file of mine\n");
    const result = await addSkills(repo.dir, { cwd: proj, agents: ["claude-code"] });
    assert.deepEqual(result.installed, []);
    assert.deepEqual(result.refused.map((r) => [r.code, r.message]), [
      [
        "FOREIGN_FILE",
        'Skill "pdf" cannot be installed for claude-code: ".claude/skills/pdf" is already there, and skillset never overwrites what it did not install',
      ],
      [
        "FOREIGN_FILE",
        'Skill "web" cannot be installed for claude-code: ".claude/skills/web" is already there, and skillset never overwrites what it did not install',
      ],
    ]);
    assert.equal(readFileSync(join(proj, ".claude/skills/pdf/SKILL.md"), "utf8"), "mine\n");
    assert.equal(readFileSync(join(proj, ".claude/skills/web"), "utf8"), "a file of mine\n");
    assert.ok(!existsSync(join(proj, ".agents/skills/pdf")));
    assert.ok(!existsSync(join(proj, "skills.lock.json")));
  });

  it("a lockfile steering a target elsewhere deletes nothing there, even with --force", async () => {
    const { repo, proj, top } = fixture();
    await addSkills(repo.dir, { cwd: proj, agents: ["claude-code"] });
    const victim = join(top, "victim");
    put(victim, "SKILL.md", "---\nname: pdf\ndescription: bait\n---\n");
    const lock = join(proj, "skills.lock.json");
    writeFileSync(
      lock,
      readFileSync(lock, "utf8").replace('".claude/skills/pdf"', '"../victim"'),
    );
    const before = contents(top);
    for (const force of [false, true]) {
      const result = await removeSkills(["pdf"], { cwd: proj, force });
      assert.deepEqual(result.refused.map((r) => [r.code, r.message]), [[
        "OUTSIDE_ROOT",
        'The claude-code target of skill "pdf" is recorded at "../victim", not the folder skillset gives that agent: left alone',
      ]]);
      assert.deepEqual(contents(top), before);
    }
    const report = await outdatedSkills({ cwd: proj });
    assert.deepEqual(report.map((s) => [s.name, s.state]), [["pdf", "unknown"], [
      "web",
      "up_to_date",
    ]]);
  });

  it("a lockfile naming an agent that climbs is refused when read", () => {
    const { proj } = fixture();
    const d = `sha256:${"0".repeat(64)}`;
    const lock = join(proj, "skills.lock.json");
    writeFileSync(
      lock,
      `{ "version": 2, "skills": [{ "name": "pdf", "scope": "project", "source": ".agents/skills/pdf", "installed_from": { "url": "x", "path": "." }, "targets": [{ "agent": "../../x", "path": "x", "mode": "link" }], "digest": "${d}", "frontmatter_digest": "${d}", "files": [] }] }`,
    );
    assert.throws(() => readLockfile(lock), {
      name: "TrustFileError",
      message:
        /Field "agent" of the "targets" of skill "pdf" must be a lowercase name, got "\.\.\/\.\.\/x"/,
    });
  });

  it("a failure midway undoes every target and the skills with them", async () => {
    const { repo, proj } = fixture();
    await addSkills(repo.dir, { cwd: proj, skills: ["web"] });
    const before = contents(proj);
    // Fail each step of the change in turn: a rename of a skill, of a target, or the lockfile's write.
    for (let failAt = 1; failAt <= 5; failAt++) {
      let calls = 0;
      const fs: LifecycleFs = {
        rename(from, to) {
          if (++calls === failAt) throw new Error(`Injected failure at step ${calls}`);
          renameSync(from, to);
        },
        writeFile(path, text) {
          if (++calls === failAt) throw new Error(`Injected failure at step ${calls}`);
          nodeLifecycleFs.writeFile(path, text);
        },
      };
      await assert.rejects(
        addSkills(repo.dir, { cwd: proj, skills: ["pdf"], agents: ["claude-code", "cursor"], fs }),
        { name: "SkillSourceError", code: "APPLY_FAILED" },
      );
      assert.deepEqual(contents(proj), before, `failure at step ${failAt}`);
    }
  });
});

describe("a lockfile's target named by a skill name that climbs", () => {
  it("is recorded outside and never read, even where the folder it names would match (verify)", async () => {
    const top = tempFolder();
    const proj = join(top, "proj");
    mkdirSync(proj);
    // A folder outside the project that happens to be (or is guessed to be) a skill.
    const victim = join(top, "victim");
    put(victim, "SKILL.md", "---\nname: victim\ndescription: Outside\n---\nSecret.\n");
    const lockfile = join(proj, "skills.lock.json");
    const now = await entryAt(victim, "project", "x", undefined);
    const entry = {
      ...now,
      name: "../../../victim",
      installed_from: { url: join(top, "src"), digest: now.digest, path: "victim" },
      targets: [{ agent: "claude-code", path: "../victim", mode: "copy" as const }],
    };
    const problems = await targetProblems([entry], lockfile, join(top, "home"));
    assert.deepEqual(problems.map((p) => [p.target.state, p.target.dir]), [["outside", undefined]]);
  });
});
