// @slow: makes git repositories and fetches them (left out of `npm run test:quick`)
/**
 * The lifecycle over many skills at once: every stale skill of a source
 * updated by one fetch and one transaction (the `ENOTEMPTY … rename` of two
 * stale skills is gone), each skill that cannot be added or checked named
 * with its reason while the others proceed, and review pins for a folder
 * source (its skills' digest, checked by `update --commit`).
 *
 * @module
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { chmodSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { readLockfile } from "../../../lib/load.ts";
import { discoverSkills } from "../../../lib/fs/discovery/discover.ts";
import { verifySkills } from "../../../lib/fs/trust/trust.ts";
import { addSkills } from "../../../lib/fs/lifecycle/_lifecycle.ts";
import { outdatedSkills, updateSkills } from "../../../lib/fs/lifecycle/_update.ts";
import { NO_GIT, project, Repo, tempFolder } from "../../_git.ts";
import { put, write } from "../../_tree.ts";

/** `skillset verify` of the project's lockfile against its install root. */
async function verified(proj: string): Promise<boolean> {
  const lock = readLockfile(join(proj, "skills.lock.json"));
  const discovery = discoverSkills([{ scope: "project", path: join(proj, ".agents/skills") }]);
  return (await verifySkills(discovery, lock, { base: proj, frozen: true })).ok;
}

/** A git program that logs each run's arguments, and the subcommands it ran. */
function countingGit(): { git: string; calls: () => string[]; reset: () => void } {
  const log = join(tempFolder(), "log");
  writeFileSync(log, "");
  const git = write(join(tempFolder(), "git"), `#!/bin/sh\necho "$*" >> "${log}"\nexec git "$@"\n`);
  chmodSync(git, 0o755);
  return {
    git,
    calls: () =>
      readFileSync(log, "utf8").trim().split("\n").filter((l) => l !== "").map((c) =>
        c.split(" ").find((w) =>
          !w.includes("=") && w !== "-c" && w !== "-C" && !w.startsWith("/")
        )!
      ),
    reset: () => writeFileSync(log, ""),
  };
}

describe("update of many stale skills from one source", { skip: NO_GIT }, () => {
  it("replaces both of two stale skills and writes the lockfile: verify passes, the next update is up to date", async () => {
    const repo = new Repo(join(tempFolder(), "repo"));
    repo.skill("skills/a", "a").skill("skills/b", "b").commit();
    const proj = project();
    await addSkills(repo.dir, { cwd: proj });
    repo.skill("skills/a", "a", "# A two\n").skill("skills/b", "b", "# B two\n").commit();
    const result = await updateSkills([], { cwd: proj });
    assert.deepEqual(result.map((s) => [s.name, s.status]), [["a", "updated"], ["b", "updated"]]);
    assert.match(readFileSync(join(proj, ".agents/skills/b/SKILL.md"), "utf8"), /# B two/);
    assert.ok(await verified(proj));
    const again = await updateSkills([], { cwd: proj, force: true });
    assert.deepEqual(again.map((s) => s.status), ["up_to_date", "up_to_date"]);
    assert.deepEqual(readdirSync(join(proj, ".agents")), ["skills"]);
  });

  it("updates 100 stale skills from one source with one fetch", async () => {
    const repo = new Repo(join(tempFolder(), "repo"));
    for (let i = 0; i < 100; i++) repo.skill(`skills/s${i}`, `s${i}`);
    repo.commit();
    const proj = project();
    await addSkills(repo.dir, { cwd: proj });
    for (let i = 0; i < 100; i++) repo.skill(`skills/s${i}`, `s${i}`, "# Two\n");
    repo.commit();
    const { git, calls } = countingGit();
    const result = await updateSkills([], { cwd: proj, git });
    assert.equal(result.filter((s) => s.status === "updated").length, 100);
    assert.deepEqual(calls().filter((c) => c === "fetch"), ["fetch"]);
    assert.ok(await verified(proj));
  });
});

describe("each skill named with its reason, the others proceed", { skip: NO_GIT }, () => {
  it("add names a skill folder whose SKILL.md does not load, and one that loses a name clash", async () => {
    const repo = new Repo(join(tempFolder(), "repo"));
    repo.skill("skills/good", "good").put("skills/bad/SKILL.md", "no frontmatter\n");
    repo.skill("skills/twin", "good");
    repo.commit();
    const proj = project();
    const result = await addSkills(repo.dir, { cwd: proj });
    assert.deepEqual(result.installed.map((s) => s.name), ["good"]);
    assert.deepEqual(result.refused, [
      {
        path: "skills/bad",
        code: "INVALID_SKILL",
        message:
          'Skill folder "skills/bad" of the source cannot be loaded: Invalid SKILL.md: SKILL.md must start with a frontmatter block opened by "---"',
      },
      {
        path: "skills/twin",
        code: "INVALID_SKILL",
        message:
          'Skill folder "skills/twin" of the source is named "good", as "skills/good" is, which is installed instead',
      },
    ]);
  });

  it("outdated: one unloadable upstream skill is unknown alone, named by its path in the source", async () => {
    const repo = new Repo(join(tempFolder(), "repo"));
    repo.skill("skills/a", "a").skill("skills/b", "b").skill("skills/c", "c").commit();
    const proj = project();
    await addSkills(repo.dir, { cwd: proj });
    repo.skill("skills/a", "a", "# A two\n");
    repo.put("skills/c/SKILL.md", "---\nname: c\ndescription: [\n---\n").commit();
    const report = await outdatedSkills({ cwd: proj });
    assert.deepEqual(report.map((s) => [s.name, s.state, s.error?.code]), [
      ["a", "stale", undefined],
      ["b", "up_to_date", undefined],
      ["c", "unknown", "INVALID_SKILL"],
    ]);
    const message = report[2]!.error!.message;
    assert.match(message, /^Skill folder "skills\/c" of ".*" at [0-9a-f]{40} cannot be loaded: /);
    assert.match(message, /\(skills\/c\/SKILL\.md:\d+:\d+\)$/);
    assert.ok(!message.includes(".skillset-"), message);
    // update: c refused with the same reason, a and b proceed.
    const result = await updateSkills([], { cwd: proj });
    assert.deepEqual(result.map((s) => [s.name, s.status, s.error?.code]), [
      ["a", "updated", undefined],
      ["b", "up_to_date", undefined],
      ["c", "refused", "INVALID_SKILL"],
    ]);
    assert.ok(await verified(proj));
  });
});

describe("review pins for a folder source", { skip: NO_GIT }, () => {
  it("records its skills' digest as the revision; update --commit applies only that digest", async () => {
    const src = join(tempFolder(), "folder");
    put(src, "pdf/SKILL.md", "---\nname: pdf\ndescription: d\n---\n# One\n");
    put(src, "web/SKILL.md", "---\nname: web\ndescription: d\n---\n");
    const proj = project();
    const added = await addSkills(src, { cwd: proj });
    const lock = () => readLockfile(join(proj, "skills.lock.json"));
    assert.deepEqual(lock().skills.map((s) => s.installed_from?.digest), [
      added.revision,
      added.revision,
    ]);
    // Unchanged: up to date, at the same digest.
    const fresh = await outdatedSkills({ cwd: proj });
    assert.deepEqual(fresh.map((s) => [s.state, s.remote_commit]), [
      ["up_to_date", added.revision],
      ["up_to_date", added.revision],
    ]);
    // Reviewed: the preview shows the digest it would apply.
    put(src, "pdf/SKILL.md", "---\nname: pdf\ndescription: d\n---\n# Reviewed\n");
    const [seen] = await updateSkills(["pdf"], { cwd: proj, preview: true });
    assert.equal(seen!.status, "would_update");
    const reviewed = seen!.to_commit!;
    assert.match(reviewed, /^sha256:[0-9a-f]{64}$/);
    assert.equal((await outdatedSkills({ cwd: proj }))[0]!.remote_commit, reviewed);
    // Changed again after the review: --commit refuses, nothing changes.
    put(src, "pdf/SKILL.md", "---\nname: pdf\ndescription: d\n---\n# Not reviewed\n");
    const text = readFileSync(join(proj, "skills.lock.json"), "utf8");
    const [moved] = await updateSkills(["pdf"], { cwd: proj, commit: reviewed });
    assert.deepEqual([moved!.status, moved!.error?.code], ["refused", "SOURCE_MOVED"]);
    assert.match(moved!.error!.message, /^Source ".*" moved: it is at its skills' digest sha256:/);
    assert.equal(readFileSync(join(proj, "skills.lock.json"), "utf8"), text);
    assert.match(readFileSync(join(proj, ".agents/skills/pdf/SKILL.md"), "utf8"), /# One/);
    // The digest the source is at now applies, and is recorded.
    const now = (await updateSkills(["pdf"], { cwd: proj, preview: true }))[0]!.to_commit!;
    const [applied] = await updateSkills(["pdf"], { cwd: proj, commit: now });
    assert.equal(applied!.status, "updated");
    assert.match(readFileSync(join(proj, ".agents/skills/pdf/SKILL.md"), "utf8"), /# Not reviewed/);
    assert.equal(lock().skills[0]!.installed_from?.digest, now);
  });

  it("a git source's --commit is the commit, and a folder's digest does not pass for it", async () => {
    const repo = new Repo(join(tempFolder(), "repo"));
    repo.skill("skills/pdf", "pdf").commit();
    const proj = project();
    await addSkills(repo.dir, { cwd: proj });
    repo.skill("skills/pdf", "pdf", "# Two\n").commit();
    const [wrong] = await updateSkills([], { cwd: proj, commit: `sha256:${"0".repeat(64)}` });
    assert.equal(wrong!.error?.code, "SOURCE_MOVED");
    const [right] = await updateSkills([], { cwd: proj, commit: repo.head() });
    assert.equal(right!.status, "updated");
  });
});
