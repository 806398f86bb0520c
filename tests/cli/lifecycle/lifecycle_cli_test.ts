// @slow: makes git repositories and runs the CLI as a subprocess (left out of `npm run test:quick`)
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { cli } from "../../_cli.ts";
import { NO_GIT, Repo, tempFolder } from "../../_git.ts";
import { put } from "../../_tree.ts";
import { main } from "../../../lib/cli.ts";
import { readLockfile } from "../../../lib/load.ts";

function setup(): { repo: Repo; proj: string; home: string } {
  const repo = new Repo(join(tempFolder("skillset-life-cli-"), "repo"));
  repo.skill("skills/pdf", "pdf").put("skills/pdf/references/a.md", "one\ntwo\n");
  repo.skill("skills/web", "web");
  repo.commit();
  const proj = join(tempFolder("skillset-life-cli-"), "proj");
  const home = join(tempFolder("skillset-life-cli-"), "home");
  mkdirSync(proj);
  mkdirSync(home);
  return { repo, proj, home };
}

describe("skillset add, outdated, update, remove", { skip: NO_GIT }, () => {
  it("installs, reports, previews, updates and removes, with --json for outdated and update", () => {
    const { repo, proj, home } = setup();
    const env = { HOME: home };
    const added = cli(["add", repo.dir, "--json"], proj, undefined, env);
    assert.equal(added.code, 0, added.stderr);
    assert.deepEqual(JSON.parse(added.stdout).installed.map((s: { name: string }) => s.name), [
      "pdf",
      "web",
    ]);
    const fresh = cli(["outdated"], proj, undefined, env);
    assert.deepEqual([fresh.code, fresh.stdout], [0, "up to date     pdf\nup to date     web\n"]);
    repo.put("skills/pdf/references/a.md", "one\n2\n").commit();
    put(proj, ".agents/skills/web/extra.md", "mine\n");
    const report = cli(["outdated", "--json"], proj, undefined, env);
    assert.equal(report.code, 1);
    assert.deepEqual(
      JSON.parse(report.stdout).skills.map((
        s: { name: string; state: string },
      ) => [s.name, s.state]),
      [["pdf", "stale"], ["web", "modified"]],
    );
    const preview = cli(["update", "pdf", "--preview"], proj, undefined, env);
    assert.equal(preview.code, 0, preview.stderr);
    assert.match(preview.stdout, /^would update pdf -> [0-9a-f]{12}\n/);
    assert.ok(
      preview.stdout.includes(
        "  changed references/a.md (8 -> 6 bytes)\n    --- a/references/a.md\n    +++ b/references/a.md\n    @@ -1,2 +1,2 @@\n     one\n    -two\n    +2\n",
      ),
      preview.stdout,
    );
    const json = cli(["update", "--json"], proj, undefined, env);
    assert.equal(json.code, 1); // web is modified here
    assert.deepEqual(
      JSON.parse(json.stdout).skills.map((
        s: { name: string; status: string },
      ) => [s.name, s.status]),
      [["pdf", "updated"], ["web", "refused"]],
    );
    assert.equal(
      readFileSync(join(proj, ".agents/skills/pdf/references/a.md"), "utf8"),
      "one\n2\n",
    );
    const verify = cli(["verify"], proj, undefined, env);
    assert.equal(verify.code, 1); // web's local change shows in verify too
    const kept = cli(["remove", "web"], proj, undefined, env);
    assert.deepEqual([kept.code, kept.stderr], [
      1,
      'skillset: refused: LOCALLY_MODIFIED: Skill "web" changed here since it was locked: remove --force deletes it\n',
    ]);
    assert.ok(existsSync(join(proj, ".agents/skills/web/extra.md")));
    const removed = cli(["remove", "web", "--force"], proj, undefined, env);
    assert.equal(removed.code, 0, removed.stderr);
    assert.ok(!existsSync(join(proj, ".agents/skills/web")));
    assert.equal(cli(["verify"], proj, undefined, env).code, 0);
  });

  it("records metadata.version (or a top-level version) and shows it in list, outdated and update", () => {
    const repo = new Repo(join(tempFolder("skillset-life-cli-"), "repo"));
    const md = (name: string, version: string) =>
      `---\nname: ${name}\ndescription: The ${name} skill\n${version}---\n# ${name}\n`;
    repo.put("skills/pdf/SKILL.md", md("pdf", "metadata:\n  version: 1.0.0\n"));
    repo.put("skills/web/SKILL.md", md("web", "version: 2\n")).commit();
    const proj = join(tempFolder("skillset-life-cli-"), "proj");
    mkdirSync(proj);
    assert.equal(cli(["add", repo.dir], proj).code, 0);
    const lock = readLockfile(join(proj, "skills.lock.json"));
    assert.deepEqual(lock.skills.map((s) => [s.name, s.version]), [["pdf", "1.0.0"], ["web", "2"]]);
    const listed = cli(["list", "--json", ".agents/skills"], proj);
    assert.deepEqual(
      JSON.parse(listed.stdout).skills.map((s: { name: string; version?: string }) => [
        s.name,
        s.version,
      ]),
      [["pdf", "1.0.0"], ["web", "2"]],
    );
    repo.put("skills/pdf/SKILL.md", md("pdf", "metadata:\n  version: 1.1.0\n")).commit();
    const outdated = cli(["outdated"], proj);
    assert.match(
      outdated.stdout,
      /^stale {10}pdf 1\.0\.0 -> 1\.1\.0 \([0-9a-f]{12} -> [0-9a-f]{12}\)\n/,
    );
    assert.match(outdated.stdout, /\nup to date {5}web 2\n$/);
    const json = JSON.parse(cli(["outdated", "--json"], proj).stdout).skills[0];
    assert.deepEqual([json.version, json.remote_version], ["1.0.0", "1.1.0"]);
    const preview = cli(["update", "--preview"], proj);
    assert.match(preview.stdout, /^would update pdf 1\.0\.0 -> 1\.1\.0 -> [0-9a-f]{12}\n/);
    const previewJson = JSON.parse(cli(["update", "--preview", "--json"], proj).stdout).skills[0];
    assert.deepEqual([previewJson.version, previewJson.to_version], ["1.0.0", "1.1.0"]);
    assert.equal(cli(["update"], proj).code, 0);
    assert.equal(readLockfile(join(proj, "skills.lock.json")).skills[0]!.version, "1.1.0");
    // skillset lock keeps the version of an installed skill while it is unchanged.
    assert.equal(cli(["lock"], proj).code, 0);
    assert.deepEqual(
      readLockfile(join(proj, "skills.lock.json")).skills.map((s) => s.version),
      ["1.1.0", "2"],
    );
  });

  it("skillset lock keeps where installed skills came from", () => {
    const { repo, proj } = setup();
    assert.equal(cli(["add", repo.dir, "--skill", "pdf"], proj).code, 0);
    const before = readLockfile(join(proj, "skills.lock.json"));
    const locked = cli(["lock"], proj);
    assert.equal(locked.code, 0, locked.stderr);
    assert.deepEqual(readLockfile(join(proj, "skills.lock.json")).skills, before.skills);
    assert.equal(before.skills[0]!.installed_from?.path, "skills/pdf");
  });

  it("--scope user installs under the home folder", () => {
    const { repo, proj, home } = setup();
    const r = cli(["add", repo.dir, "--scope", "user", "--skill", "web"], proj, undefined, {
      HOME: home,
    });
    assert.equal(r.code, 0, r.stderr);
    assert.ok(existsSync(join(home, ".agents/skills/web/SKILL.md")));
    assert.ok(existsSync(join(home, ".agents/skills.lock.json")));
    assert.ok(!existsSync(join(proj, ".agents")));
  });

  it("names each refused skill on stderr and exits 1", () => {
    const { repo, proj } = setup();
    repo.put("skills/web/references/a\u0007.md", "x").commit();
    const r = cli(["add", repo.dir], proj);
    assert.equal(r.code, 1);
    assert.match(
      r.stderr,
      /refused: CONTROL_CHARACTER: Skill folder "skills\/web" of the source holds a name with a control character or not in UTF-8: "references\/a\\u0007\.md"/,
    );
    assert.match(r.stdout, /^added pdf /);
  });

  it("says clearly when git is missing (SKILLSET_GIT names the program)", () => {
    const { repo, proj } = setup();
    const r = cli(["add", repo.dir], proj, undefined, { SKILLSET_GIT: "/nonexistent/git" });
    assert.deepEqual([r.code, r.stderr], [
      1,
      'skillset: error: The git program "/nonexistent/git" cannot be started: add, outdated and update need git installed\n',
    ]);
  });
});

describe("the lifecycle commands' usage", () => {
  it("are in the help, and refuse a bad --scope", () => {
    let out = "";
    const io = { stdout: (t: string) => (out += t), stderr: () => {}, color: false };
    assert.equal(main(["help", "update"], io), 0);
    assert.match(out, /^usage: skillset update \[NAME\]\.\.\. \[--preview\] \[--force\]/);
    const r = cli(["outdated", "--scope", "team"], tempFolder());
    assert.deepEqual([r.code, r.stderr], [
      2,
      'skillset: --scope takes project or user, got "team"\n',
    ]);
  });

  it("update --commit takes a full commit or a folder's digest", () => {
    const r = cli(["update", "--commit", "main"], tempFolder());
    assert.deepEqual([r.code, r.stderr], [
      2,
      'skillset: --commit takes a full commit (40 or 64 hexadecimal digits) or a folder\'s digest (sha256:<64 hex>), got "main"\n',
    ]);
  });

  it("outdated without a lockfile fails with a clear message", () => {
    const r = cli(["outdated"], tempFolder());
    assert.equal(r.code, 1);
    assert.match(r.stderr, /No lockfile here/);
  });
});
