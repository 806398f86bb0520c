/**
 * Agent targets: `skillset add` of a 1,000-skill git repository linked into
 * three agents' skills folders (Claude Code, Cursor, Windsurf) against the
 * same add linked into one (Claude Code), with the add to no agent beside
 * them, timed in interleaved rounds in one process. The target is the
 * ratio of three targets to one (≤ 1.2): a target is one link made in a
 * staging area and one rename in the transaction, against fetching,
 * hashing and moving the skill itself. Run: `npm run bench -- agent_targets`.
 *
 * @module
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { addSkills } from "../lib/fs/lifecycle/_lifecycle.ts";
import { QUICK, timeRounds } from "./_harness.ts";

const SKILLS = QUICK ? 100 : 1000;
const temp = mkdtempSync(join(tmpdir(), "skillset-targets-bench-"));
const env = {
  ...process.env,
  GIT_CONFIG_NOSYSTEM: "1",
  GIT_CONFIG_GLOBAL: "/dev/null",
  GIT_AUTHOR_NAME: "b",
  GIT_AUTHOR_EMAIL: "b@example.com",
  GIT_COMMITTER_NAME: "b",
  GIT_COMMITTER_EMAIL: "b@example.com",
};
function git(cwd: string, ...args: string[]): void {
  const r = spawnSync("git", args, { cwd, env, stdio: ["ignore", "ignore", "inherit"] });
  if (r.status !== 0) throw new Error(`git ${args.join(" ")} exited ${r.status}`);
}

// A repository of SKILLS skills, each a SKILL.md and a 2 KiB reference.
const repo = join(temp, "repo");
mkdirSync(repo);
git(repo, "init", "--quiet", "--initial-branch=main");
for (let i = 0; i < SKILLS; i++) {
  const dir = join(repo, "skills", `skill-${i}`);
  mkdirSync(join(dir, "references"), { recursive: true });
  writeFileSync(
    join(dir, "SKILL.md"),
    `---\nname: skill-${i}\ndescription: Skill number ${i}\n---\n# Skill ${i}\n`,
  );
  writeFileSync(join(dir, "references", "guide.md"), `# Guide ${i}\n`.padEnd(2048, `line ${i}\n`));
}
git(repo, "add", "-A");
git(repo, "commit", "--quiet", "-m", "skills");
const url = `file://${repo}`;

/** The workload's name: the `bench/_report.ts` target reads it. */
export const TARGETS_WORKLOAD = `add: ${
  SKILLS === 1000 ? "1,000" : SKILLS
} skills to agent targets`;
let n = 0;

function adding(agents: readonly string[]): () => Promise<void> {
  return async () => {
    const proj = join(temp, `proj-${n++}`);
    mkdirSync(proj);
    const result = await addSkills(url, { cwd: proj, agents });
    if (result.installed.length !== SKILLS) throw new Error("add failed");
    if (result.installed[0]!.targets.length !== agents.length) throw new Error("targets missing");
    rmSync(proj, { recursive: true, force: true });
  };
}

await timeRounds("agent_targets", TARGETS_WORKLOAD, SKILLS, [
  { name: "addSkills --agent claude-code (1 target)", fn: adding(["claude-code"]) },
  {
    name: "addSkills --agent claude-code,cursor,windsurf (3 targets)",
    fn: adding(["claude-code", "cursor", "windsurf"]),
  },
  { name: "addSkills (no agent)", fn: adding([]) },
], QUICK ? 3 : 5);
rmSync(temp, { recursive: true, force: true });
