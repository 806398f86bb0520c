/**
 * Discovery of 5,000 skills spread over 3 roots at depths 2 to 4, against a
 * bare recursive `readdir` of the same trees plus a read of each SKILL.md.
 * Run: `npm run bench -- discover`.
 *
 * @module
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { discoverSkills } from "../lib/load.ts";
import { skillFolder, skillRoots } from "./_skill_roots.ts";
import { QUICK, timeGroup } from "./_harness.ts";
import { DISCOVER_BARE_CASE, DISCOVER_CASE, DISCOVER_WORKLOAD } from "./_report.ts";

const temp = mkdtempSync(join(tmpdir(), "skillset-discover-"));
const SKILLS = QUICK ? 500 : 5000;

// Three roots; skills at depth 2 (root/skills/x), 3 (root/skills/group/x) and 4
// (root/skills/group/sub/x), each with a references/ folder.
const roots = skillRoots(temp);
for (let i = 0; i < SKILLS; i++) {
  const name = `skill-${i}`;
  const dir = skillFolder(roots, i);
  mkdirSync(join(dir, "references"), { recursive: true });
  writeFileSync(
    join(dir, "SKILL.md"),
    `---\nname: ${name}\ndescription: Skill number ${i}; use it for task ${i}.\nlicense: MIT\n---\n` +
      `# Skill ${i}\n\nRead [the guide](references/guide.md).\n`,
  );
  writeFileSync(join(dir, "references", "guide.md"), "# Guide\n");
}

/** The bare baseline: list every folder recursively and read every SKILL.md. */
function bareScan(root: string): number {
  let bytes = 0;
  const stack = [root];
  while (stack.length > 0) {
    const dir = stack.pop()!;
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) stack.push(path);
      else if (entry.name === "SKILL.md") bytes += readFileSync(path).length;
    }
  }
  return bytes;
}

const options = { maxFolders: 10_000 };
const check = discoverSkills(roots, options);
if (check.skills.length !== SKILLS || check.diagnostics.length > 0) {
  throw new Error(`expected ${SKILLS} skills, found ${check.skills.length}`);
}

await timeGroup("discover", DISCOVER_WORKLOAD, SKILLS, [
  {
    name: DISCOVER_BARE_CASE,
    fn: () => roots.reduce((bytes, root) => bytes + bareScan(root.path), 0),
    baseline: true,
  },
  { name: DISCOVER_CASE, fn: () => discoverSkills(roots, options) },
]);

rmSync(temp, { recursive: true, force: true });
