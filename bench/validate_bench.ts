/**
 * The skill library workloads: `validate` and a name+description index of
 * 5,000 Agent Skill folders against a bare script that only reads every
 * SKILL.md; and the split between parsing and resolving when a 10,000-skill
 * catalog folder is loaded and its top skill resolved.
 * Run: `npm run bench -- validate`.
 *
 * @module
 */
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { resolveTools } from "../mod.ts";
import { findSkillMd, loadCatalog, parseSkillMd, validatePaths } from "../lib/load.ts";
import { QUICK, timeGroup } from "./_harness.ts";
import {
  BARE_READ_CASE,
  CATALOG_WORKLOAD,
  FS_FLOOR_CASE,
  INDEX_CASE,
  LISTING_CASE,
  PARSE_CASE,
  RESOLVE_CASE,
  SKILLS_WORKLOAD,
  VALIDATE_CASE,
} from "./_report.ts";

const SKILLS = QUICK ? 500 : 5000;
/** A second bound, beside the listing: all the file-system work validate cannot skip. */
const CATALOG_SKILLS = QUICK ? 1000 : 10_000;
const temp = mkdtempSync(join(tmpdir(), "skillset-validate-"));

// Agent Skills: SKILL.md (with a metadata mapping) plus a reference, an asset and a script each.
const skills = join(temp, "skills");
for (let i = 0; i < SKILLS; i++) {
  const dir = join(skills, `skill-${i}`);
  mkdirSync(join(dir, "references"), { recursive: true });
  mkdirSync(join(dir, "assets"));
  mkdirSync(join(dir, "scripts"));
  writeFileSync(
    join(dir, "SKILL.md"),
    `---\nname: skill-${i}\ndescription: "Skill number ${i}: use it for task ${i}."\n` +
      `license: MIT\nmetadata:\n  author: bench\n  version: "1.${i % 10}"\n---\n` +
      `# Skill ${i}\n\nRead [the guide](references/guide.md) and fill \`assets/template.txt\`.\n`,
  );
  writeFileSync(join(dir, "references", "guide.md"), "# Guide\n");
  writeFileSync(join(dir, "assets", "template.txt"), "Name: ____\n");
  writeFileSync(join(dir, "scripts", "run.py"), "print('hi')\n");
}

/** The bare baseline: list the folder and read every SKILL.md, nothing else. */
function readEverySkillMd(root: string): number {
  let bytes = 0;
  for (const name of readdirSync(root)) bytes += readFileSync(join(root, name, "SKILL.md")).length;
  return bytes;
}

/** What a prompt needs of each skill: its name and description, through the public API. */
function nameDescriptionIndex(root: string): Map<string, string> {
  const index = new Map<string, string>();
  for (const folder of readdirSync(root)) {
    const file = findSkillMd(join(root, folder));
    if (file === null) continue;
    const { frontmatter } = parseSkillMd(readFileSync(file, "utf8"), { file, folder });
    index.set(frontmatter.name, frontmatter.description);
  }
  return index;
}

/**
 * `validate skills/*`: every skill folder named on its own. Given the parent
 * folder instead, validate scans it like discovery and stops at 2,000 listed
 * folders (a warning), so it would check only 1,999 of the 5,000 skills.
 */
function validateEverySkill(root: string): number {
  return validatePaths(readdirSync(root).map((name) => join(root, name))).length;
}

const findings = validatePaths(readdirSync(skills).map((name) => join(skills, name)));
if (findings.length > 0) {
  throw new Error(`the generated skills should be valid: ${findings[0]!.message}`);
}
if (nameDescriptionIndex(skills).size !== SKILLS) {
  throw new Error("the index should hold every skill");
}

/**
 * What bounds validate: checking a skill's links needs its file listing, and
 * listing the four folders of each skill alone costs several bare reads.
 */
function listEveryFolder(root: string): number {
  let entries = 0;
  for (const name of readdirSync(root)) {
    entries += readdirSync(join(root, name), { withFileTypes: true }).length;
    for (const sub of ["references", "assets", "scripts"]) {
      entries += readdirSync(join(root, name, sub), { withFileTypes: true }).length;
    }
  }
  return entries;
}

/**
 * The least file-system work validate can do and still report what it
 * reports: list the four folders of each skill, stat each file (its size,
 * and its link count for the hard-link warning) and read each SKILL.md.
 * Each `readdir` costs about one bare read of a file, so this is at least
 * five bare reads per skill.
 */
function listStatAndRead(root: string): number {
  let bytes = 0;
  for (const name of readdirSync(root)) {
    const skill = join(root, name);
    for (const entry of readdirSync(skill, { withFileTypes: true })) {
      if (!entry.isDirectory()) continue;
      for (const file of readdirSync(join(skill, entry.name), { withFileTypes: true })) {
        bytes += statSync(join(skill, entry.name, file.name)).size;
      }
    }
    bytes += statSync(join(skill, "SKILL.md")).size;
    bytes += readFileSync(join(skill, "SKILL.md")).length;
  }
  return bytes;
}

await timeGroup("validate", SKILLS_WORKLOAD, SKILLS, [
  { name: BARE_READ_CASE, fn: () => readEverySkillMd(skills), baseline: true },
  { name: INDEX_CASE, fn: () => nameDescriptionIndex(skills) },
  { name: VALIDATE_CASE, fn: () => validateEverySkill(skills) },
  { name: LISTING_CASE, fn: () => listEveryFolder(skills) },
  { name: FS_FLOOR_CASE, fn: () => listStatAndRead(skills) },
]);

// A catalog folder: files of 100 skills; a chain of includes with fan-out.
const catalog = join(temp, "catalog");
mkdirSync(catalog);
for (let f = 0; f < CATALOG_SKILLS / 100; f++) {
  const lines: string[] = [];
  for (let k = 0; k < 100; k++) {
    const i = f * 100 + k;
    const includes = [i + 1, i + 2, i + 50].filter((j) => j < CATALOG_SKILLS).map((j) =>
      `cat/s${j}`
    );
    lines.push(
      `- name: cat/s${i}`,
      `  description: Skill ${i}`,
      `  includes: [${includes.join(", ")}]`,
      `  tool_refs: [tool_${i % 997}, shared]`,
      `  inline_tools:`,
      `    - { description: Tool ${i}, read_only: true }`,
      ...(i % 10 === 0
        ? [`  mcp_servers:`, `    - server: github`, `      tools: [create_issue]`]
        : []),
    );
  }
  writeFileSync(join(catalog, `part-${String(f).padStart(3, "0")}.yaml`), lines.join("\n") + "\n");
}
const loaded = loadCatalog(catalog);
const top = loaded.skills.get("cat/s0")!;
if (resolveTools(top, loaded.skills).size < 1000) throw new Error("the catalog should resolve");

await timeGroup("validate", CATALOG_WORKLOAD, CATALOG_SKILLS, [
  { name: RESOLVE_CASE, fn: () => resolveTools(top, loaded.skills), baseline: true },
  { name: PARSE_CASE, fn: () => loadCatalog(catalog) },
]);

rmSync(temp, { recursive: true, force: true });
