// @slow: makes git repositories and fetches them (left out of `npm run test:quick`)
/**
 * `skillset add --agent`, `skillset agents` and `verify` over agent
 * targets, run in-process (`runIn`): the subprocess is not the point.
 *
 * @module
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, readdirSync, readlinkSync, rmSync } from "node:fs";
import { join } from "node:path";
import process from "node:process";
import { runIn } from "../../_cli.ts";
import { NO_GIT, Repo, tempFolder } from "../../_git.ts";

function setup(): { repo: Repo; proj: string; home: string } {
  const top = tempFolder("skillset-agents-cli-");
  const repo = new Repo(join(top, "repo"));
  repo.skill("skills/pdf", "pdf").skill("skills/web", "web");
  repo.commit();
  const proj = join(top, "proj");
  const home = join(top, "home");
  mkdirSync(proj);
  mkdirSync(home);
  return { repo, proj, home };
}

/** Run with HOME set to `home` (the agents detected there, the user scope). */
async function withHome<T>(home: string, run: () => Promise<T>): Promise<T> {
  const before = process.env["HOME"];
  process.env["HOME"] = home;
  try {
    return await run();
  } finally {
    if (before === undefined) delete process.env["HOME"];
    else process.env["HOME"] = before;
  }
}

describe("skillset add --agent", { skip: NO_GIT }, () => {
  it("puts the skill where Claude Code reads it; verify checks the target; remove removes every target", async () => {
    const { repo, proj } = setup();
    const added = await runIn(proj, "add", repo.dir, "--agent", "claude-code", "--skill", "pdf");
    assert.equal(added.code, 0, added.err);
    assert.match(added.out, /\n {2}link for claude-code: \.claude\/skills\/pdf\n/);
    const link = join(proj, ".claude", "skills", "pdf");
    assert.equal(readlinkSync(link), join("..", "..", ".agents", "skills", "pdf"));
    const ok = await runIn(proj, "verify");
    assert.deepEqual([ok.code, ok.out], [0, "OK: 1 locked skill verified\n"]);
    rmSync(link);
    const broken = await runIn(proj, "verify");
    assert.equal(broken.code, 1);
    assert.ok(
      broken.out.includes(
        'missing The claude-code target of skill "pdf" is missing: ".claude/skills/pdf"\n',
      ),
      broken.out,
    );
    const removed = await runIn(proj, "remove", "pdf");
    assert.equal(removed.code, 0, removed.err);
    assert.deepEqual(readdirSync(join(proj, ".agents", "skills")), []);
  });

  it("an unknown agent is a usage error naming the nearest known one", async () => {
    const { repo, proj } = setup();
    const result = await runIn(proj, "add", repo.dir, "--agent", "claude-code,cursr");
    assert.equal(result.code, 2);
    assert.match(result.err, /unknown agent "cursr" \(see skillset agents\).*"cursor"/);
    assert.deepEqual(readdirSync(proj), []);
  });

  it("agents lists the agents detected in the project and the home; all-detected installs for them", async () => {
    const { repo, proj, home } = setup();
    mkdirSync(join(proj, ".cursor"));
    mkdirSync(join(home, ".gemini"));
    await withHome(home, async () => {
      const listed = await runIn(proj, "agents", "--json");
      assert.equal(listed.code, 0, listed.err);
      const rows = JSON.parse(listed.out).agents as { name: string; detected: string[] }[];
      assert.deepEqual(
        rows.filter((r) => r.detected.length > 0).map((r) => [r.name, r.detected]),
        [["cursor", ["project"]], ["gemini-cli", ["user"]]],
      );
      const added = await runIn(proj, "add", repo.dir, "--agent", "all-detected");
      assert.equal(added.code, 0, added.err);
    });
    assert.deepEqual(readdirSync(join(proj, ".cursor", "skills")).sort(), ["pdf", "web"]);
    assert.deepEqual(readdirSync(proj).sort(), [
      ".agents",
      ".cursor",
      "skills.lock.json",
    ]);
  });
});
