/**
 * The prompt catalog of a large library (`fitSkillCatalog`, 10,000 skills,
 * a 16,000-character budget), against the same rendering before issue 34
 * (`_catalog_before.ts`) in the same run: without modes (what every caller
 * pays now) and with modes (a tenth of the skills pinned, name-only, manual
 * or disabled), 100 skills the host excluded, and the report; and all of
 * that ranked by use — with the rank a host tallies once from its log, and
 * with the rank tallied inside every timed run from 100,000 activation
 * events (issue 34's bar: ≤ 2× before).
 * Run: `npm run bench -- catalog`.
 *
 * @module
 */
import {
  type ActivationEvent,
  activationEvent,
  type ExcludedSkill,
  fitSkillCatalog,
  type SkillMode,
  usageRank,
} from "../mod.ts";
import { fitSkillCatalogBefore } from "./_catalog_before.ts";
import { QUICK, timeGroup } from "./_harness.ts";
import {
  CATALOG_ALL_CASE,
  CATALOG_BASELINE,
  CATALOG_MODES_CASE,
  CATALOG_RANKED_CASE,
  PROMPT_CATALOG_WORKLOAD,
} from "./_report.ts";

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
// 100,000 activations over 90 days, skewed towards the low-numbered skills (as real use is).
const NOW = Date.UTC(2026, 11, 1);
const EVENTS = QUICK ? 20_000 : 100_000;
const events: ActivationEvent[] = Array.from({ length: EVENTS }, (_, i) => {
  const skill = Math.floor(SIZE * ((i * 2654435761) % 2 ** 32 / 2 ** 32) ** 3);
  return activationEvent(
    { name: `skill-${skill}`, origin: "local", trigger: i % 5 === 0 ? "user" : "model" },
    NOW - (i * 7919 % 90) * 86_400_000,
  );
});

// A host tallies its log once and renders with that rank; the last case tallies in every run.
const rank = usageRank(events, { now: NOW });

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
  {
    name: CATALOG_RANKED_CASE,
    fn: () => fitSkillCatalog(skills, { budget, modes, excluded, rank }),
  },
  {
    name: CATALOG_ALL_CASE,
    fn: () =>
      fitSkillCatalog(skills, { budget, modes, excluded, rank: usageRank(events, { now: NOW }) }),
  },
]);
