// @slow: makes git repositories and fetches them (left out of `npm run test:quick`)
/**
 * The lifecycle against a hostile project: a lockfile (it comes with a
 * cloned project) whose entries name folders outside the install root, an
 * install root that is a link out, a skill folder swapped for a link, a
 * locally edited skill. Each test names the defence it proves; each fails
 * with that defence removed.
 *
 * @module
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { addSkills, removeSkills } from "../../../lib/fs/lifecycle/_lifecycle.ts";
import { outdatedSkills, updateSkills } from "../../../lib/fs/lifecycle/_update.ts";
import { SkillSourceError } from "../../../lib/fs/lifecycle/skill_source_error.ts";
import { NO_GIT, pdfAndWeb, type Repo } from "../../_git.ts";
import { contents, put } from "../../_tree.ts";

/** A project with pdf and web installed from a git repository, and a victim folder beside it. */
async function installed(): Promise<{ repo: Repo; proj: string; victim: string; lock: string }> {
  const { repo, proj, top } = pdfAndWeb();
  await addSkills(repo.dir, { cwd: proj });
  const victim = join(top, "home", ".ssh");
  put(victim, "id_ed25519", "PRIVATE KEY\n");
  put(victim, "SKILL.md", "---\nname: pdf\ndescription: bait\n---\n");
  return { repo, proj, victim, lock: join(proj, "skills.lock.json") };
}

/** The lockfile with pdf's entry pointing at `source`. */
function steer(lock: string, source: string): string {
  const text = readFileSync(lock, "utf8").replace('".agents/skills/pdf"', JSON.stringify(source));
  writeFileSync(lock, text);
  return text;
}

describe("a lockfile cannot steer the lifecycle outside its install root", { skip: NO_GIT }, () => {
  it("remove: an entry whose source is ../anything deletes nothing outside (even with --force)", async () => {
    const { proj, victim, lock } = await installed();
    const text = steer(lock, "../home/.ssh");
    const before = contents(join(proj, ".."));
    for (const force of [false, true]) {
      const result = await removeSkills(["pdf"], { cwd: proj, force });
      assert.deepEqual(result.removed, []);
      assert.deepEqual(result.refused, [{
        name: "pdf",
        code: "OUTSIDE_ROOT",
        message:
          'Skill "pdf" is locked at "../home/.ssh" of scope "project", not ".agents/skills/pdf" of scope "project": skillset changes only <install root>/<name>',
      }]);
    }
    assert.deepEqual(contents(join(proj, "..")), before);
    assert.equal(readFileSync(join(victim, "id_ed25519"), "utf8"), "PRIVATE KEY\n");
    assert.equal(readFileSync(lock, "utf8"), text);
  });

  it("update --force: an entry whose source is ../home/.ssh writes nothing there", async () => {
    const { repo, proj, victim, lock } = await installed();
    repo.skill("skills/pdf", "pdf", "# Version two\n").commit();
    steer(lock, "../home/.ssh");
    const before = contents(victim);
    const result = await updateSkills([], { cwd: proj, force: true });
    assert.deepEqual(result.map((s) => [s.name, s.status, s.error?.code]), [
      ["pdf", "refused", "OUTSIDE_ROOT"],
      ["web", "up_to_date", undefined],
    ]);
    assert.deepEqual(contents(victim), before);
    // outdated reads nothing there either: the entry is unknown, with the reason.
    const report = await outdatedSkills({ cwd: proj });
    assert.deepEqual(report.map((s) => [s.name, s.state, s.error?.code]), [
      ["pdf", "unknown", "OUTSIDE_ROOT"],
      ["web", "up_to_date", undefined],
    ]);
  });

  it("an entry's name cannot climb: a name with a slash, or of another scope, is refused", async () => {
    const { proj, victim, lock } = await installed();
    const text = readFileSync(lock, "utf8")
      .replace('"name": "pdf"', '"name": "../../home/.ssh"')
      .replace('".agents/skills/pdf"', '"../home/.ssh"');
    writeFileSync(lock, text);
    const result = await removeSkills(["../../home/.ssh"], { cwd: proj, force: true });
    assert.deepEqual(result.refused.map((r) => r.code), ["OUTSIDE_ROOT"]);
    assert.ok(existsSync(join(victim, "id_ed25519")));
    writeFileSync(
      lock,
      readFileSync(lock, "utf8").replace('"name": "../../home/.ssh"', '"name": "pdf"').replace(
        '"scope": "project",\n      "source": "../home/.ssh"',
        '"scope": "user",\n      "source": ".agents/skills/pdf"',
      ),
    );
    const other = await removeSkills(["pdf"], { cwd: proj, force: true });
    assert.deepEqual(other.refused.map((r) => r.code), ["OUTSIDE_ROOT"]);
    assert.ok(existsSync(join(proj, ".agents/skills/pdf/SKILL.md")));
  });

  it("an install root that is a link out: add, update and remove write nothing through it", async () => {
    const { repo, proj, victim } = await installed();
    const outside = join(victim, "..", "elsewhere");
    mkdirSync(outside);
    // .agents/skills swapped for a link to a folder outside the project.
    rmSync(join(proj, ".agents/skills"), { recursive: true });
    symlinkSync(outside, join(proj, ".agents/skills"));
    const refused = async (p: Promise<unknown>) =>
      await assert.rejects(p, (e: unknown) => {
        assert.ok(e instanceof SkillSourceError && e.code === "OUTSIDE_ROOT", String(e));
        assert.match(e.message, /passes through ".*\.agents(\/skills)?", a link or not a folder/);
        return true;
      });
    await refused(addSkills(repo.dir, { cwd: proj }));
    await refused(updateSkills([], { cwd: proj, force: true }));
    await refused(removeSkills(["pdf"], { cwd: proj, force: true }));
    assert.deepEqual(readdirSync(outside), []);
    // .agents itself a link.
    const proj2 = join(victim, "..", "proj2");
    mkdirSync(proj2);
    symlinkSync(outside, join(proj2, ".agents"));
    await refused(addSkills(repo.dir, { cwd: proj2 }));
    assert.deepEqual(readdirSync(outside), []);
  });

  it("a skill folder swapped for a link: remove refuses it unless --force, then removes the link and not its target", async () => {
    const { proj, victim, lock } = await installed();
    const text = readFileSync(lock, "utf8");
    // The link's target is an exact copy of the skill: still a local change, never read through.
    const copy = join(victim, "pdf");
    cpSync(join(proj, ".agents/skills/pdf"), copy, { recursive: true });
    rmSync(join(proj, ".agents/skills/pdf"), { recursive: true });
    symlinkSync(copy, join(proj, ".agents/skills/pdf"));
    const kept = await removeSkills(["pdf"], { cwd: proj });
    assert.deepEqual(kept.refused.map((r) => r.code), ["LOCALLY_MODIFIED"]);
    assert.equal(readFileSync(lock, "utf8"), text);
    const forced = await removeSkills(["pdf"], { cwd: proj, force: true });
    assert.deepEqual(forced.removed, [join(proj, ".agents/skills/pdf")]);
    assert.ok(!existsSync(join(proj, ".agents/skills/pdf")));
    assert.equal(readFileSync(join(victim, "id_ed25519"), "utf8"), "PRIVATE KEY\n");
    assert.ok(existsSync(join(copy, "SKILL.md")));
  });

  it("update --force replaces a skill folder swapped for a link without writing through it", async () => {
    const { repo, proj, victim } = await installed();
    rmSync(join(proj, ".agents/skills/pdf"), { recursive: true });
    symlinkSync(victim, join(proj, ".agents/skills/pdf"));
    repo.skill("skills/pdf", "pdf", "# Version two\n").commit();
    const before = contents(victim);
    const refused = await updateSkills(["pdf"], { cwd: proj });
    assert.deepEqual(refused.map((s) => s.error?.code), ["LOCALLY_MODIFIED"]);
    const forced = await updateSkills(["pdf"], { cwd: proj, force: true });
    assert.deepEqual(forced.map((s) => s.status), ["updated"]);
    assert.deepEqual(contents(victim), before);
    assert.match(readFileSync(join(proj, ".agents/skills/pdf/SKILL.md"), "utf8"), /Version two/);
  });
});

describe("remove checks for a local change before deleting", { skip: NO_GIT }, () => {
  it("refuses a locally edited skill without --force (the lockfile and the others untouched), deletes it with", async () => {
    const { proj, lock } = await installed();
    put(proj, ".agents/skills/pdf/notes.md", "my notes\n");
    const text = readFileSync(lock, "utf8");
    const kept = await removeSkills(["pdf", "web"], { cwd: proj });
    assert.deepEqual(kept, {
      removed: [join(proj, ".agents/skills/web")],
      refused: [{
        name: "pdf",
        code: "LOCALLY_MODIFIED",
        message: 'Skill "pdf" changed here since it was locked: remove --force deletes it',
      }],
    });
    assert.equal(readFileSync(join(proj, ".agents/skills/pdf/notes.md"), "utf8"), "my notes\n");
    assert.notEqual(readFileSync(lock, "utf8"), text);
    assert.match(readFileSync(lock, "utf8"), /"pdf"/);
    const forced = await removeSkills(["pdf"], { cwd: proj, force: true });
    assert.deepEqual(forced.refused, []);
    assert.ok(!existsSync(join(proj, ".agents/skills/pdf")));
  });
});
