/**
 * The prompt catalog of a large library (`fitSkillCatalog`, 10,000 skills,
 * a 16,000-character budget), against the same rendering before issue 34
 * (`_catalog_before.ts`) in the same run: without modes (what every caller
 * pays now) and with modes (a tenth of the skills pinned, name-only, manual
 * or disabled), 100 skills the host excluded, and the report.
 * Run: `npm run bench -- catalog`.
 *
 * @module
 */
import { type ExcludedSkill, fitSkillCatalog, type SkillMode } from "../mod.ts";
import { fitSkillCatalogBefore } from "./_catalog_before.ts";
import { QUICK, timeGroup } from "./_harness.ts";
import { CATALOG_BASELINE, CATALOG_MODES_CASE, PROMPT_CATALOG_WORKLOAD } from "./_report.ts";

const SIZE = QUICK ? 2_000 : 10_000;
const WORDS = ["fill", "forms", "join", "tables", "review", "pull", "requests", "deploy", "charts"];

const skills = Array.from({ length: SIZE }, (_, i) => ({
  name: `skill-${i}`,
  description: Array.from({ length: 6 + (i * 7919) % 60 }, (_, j) => WORDS[(i + j * 31) % 9])
    .join(" "),
  location: `/skills/skill-${i}/SKILL.md`,
}));
const CYCLE: readonly SkillMode[] = ["pinned", "name-only", "manual", "disabled"];
const modes = new Map<string, SkillMode>();
for (let i = 0; i < SIZE; i += 10) modes.set(`skill-${i}`, CYCLE[(i / 10) % 4]!);
// A few pinned skills, as a host pins a handful: the rest of that share is name-only.
for (const [name, mode] of modes) {
  if (mode === "pinned" && Number(name.slice(6)) > 200) modes.set(name, "name-only");
}
const excluded: ExcludedSkill[] = Array.from({ length: 100 }, (_, i) => ({
  name: `excluded-${i}`,
  reason: i % 2 === 0 ? "missing-tools" : "not-approved",
  detail: "needs Bash",
  description: skills[i]!.description,
}));
const budget = 16_000;

await timeGroup("catalog", PROMPT_CATALOG_WORKLOAD, SIZE, [
  {
    name: CATALOG_BASELINE,
    fn: () => fitSkillCatalogBefore(skills, { budget }),
    baseline: true,
  },
  { name: "fitSkillCatalog", fn: () => fitSkillCatalog(skills, { budget }) },
  {
    name: CATALOG_MODES_CASE,
    fn: () => fitSkillCatalog(skills, { budget, modes, excluded }),
  },
]);
