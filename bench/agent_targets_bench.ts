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
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { addSkills } from "../lib/fs/lifecycle/_lifecycle.ts";
import { QUICK, timeRounds } from "./_harness.ts";
import { skillRepository } from "./_git_repo.ts";

const SKILLS = QUICK ? 100 : 1000;
const temp = mkdtempSync(join(tmpdir(), "skillset-targets-bench-"));
// A repository of SKILLS skills, each a SKILL.md and a 2 KiB reference.
const url = skillRepository(join(temp, "repo"), SKILLS, (dir, i) => {
  mkdirSync(join(dir, "references"));
  writeFileSync(join(dir, "references", "guide.md"), `# Guide ${i}\n`.padEnd(2048, `line ${i}\n`));
});

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
