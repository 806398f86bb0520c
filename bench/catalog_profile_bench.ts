/**
 * The prompt catalog under a profile and path-conditional skills (issue 44):
 * 10,000 skills, a profile of 20 globs (include, exclude and pinned), 1,000
 * skills carrying `paths`, 1,000 host paths, a 16,000-character budget —
 * against today's catalog of the same skills with neither, in the same run.
 * The bar: ≤ 1.2× the baseline.
 * Run: `npm run bench -- catalog_profile`.
 *
 * @module
 */
import { fitSkillCatalog, HostPaths, resolveSkillProfile } from "../mod.ts";
import { QUICK, timeGroup } from "./_harness.ts";
import {
  PROFILE_CATALOG_ALL_CASE,
  PROFILE_CATALOG_BASELINE,
  PROFILE_CATALOG_CASE,
  PROMPT_CATALOG_WORKLOAD,
} from "./_report.ts";

const SIZE = QUICK ? 2_000 : 10_000;
const WITH_PATHS = SIZE / 10;
const WORDS = ["fill", "forms", "join", "tables", "review", "pull", "requests", "deploy", "charts"];
const AREAS = ["code", "git", "docs", "data", "ops", "web", "test", "ui", "api", "infra"];
const EXTENSIONS = ["ts", "tsx", "py", "go", "rs", "md", "json", "yaml", "sql", "css"];

const plain = Array.from({ length: SIZE }, (_, i) => ({
  name: `${AREAS[i % 10]}-skill-${i}${i % 50 === 0 ? "-experimental" : ""}`,
  description: Array.from({ length: 6 + (i * 7919) % 60 }, (_, j) => WORDS[(i + j * 31) % 9])
    .join(" "),
  location: `/skills/skill-${i}/SKILL.md`,
}));
// Every tenth skill is path-conditional, each with globs of its own.
const conditional = plain.map((s, i) =>
  i % 10 === 0
    ? {
      ...s,
      frontmatter: {
        paths: [
          `src/${AREAS[i % 7]}/mod-${i % 97}/**/*.${EXTENSIONS[i % 10]}`,
          `**/*.${i % 13}.gen`,
        ],
      },
    }
    : s
);
const profile = resolveSkillProfile(
  new Map([[
    "review",
    {
      include: AREAS.slice(0, 8).map((a) => `${a}-*`).concat(["*-skill-1?"]),
      exclude: ["*-experimental", "ops-*-9??", "web-*-1???", "*-skill-42", "infra-*"],
      pinned: [
        "code-skill-0",
        "git-skill-1",
        "docs-skill-2",
        "data-skill-3",
        "*-skill-4",
        "ui-*-7",
      ],
    },
  ]]),
  "review",
);
// 1,000 paths a host might pass: files across the source tree.
const hostPaths = Array.from(
  { length: 1_000 },
  (_, i) =>
    `src/${AREAS[i % 7]}/mod-${(i * 31) % 97}/part-${i % 17}/file-${i}.${EXTENSIONS[i % 10]}`,
);
// The same cost of matching with nothing left out: 20 globs, every skill kept (the paths all
// match), so the planner fits as many skills as the baseline does.
const keepAll = resolveSkillProfile(
  new Map([[
    "all",
    {
      include: ["*"],
      exclude: Array.from({ length: 19 }, (_, i) => `nothing-${i}-*`),
    },
  ]]),
  "all",
);
const everyPath = [...hostPaths, ...Array.from({ length: 13 }, (_, i) => `x/y.${i}.gen`)];
const budget = 16_000;
void WITH_PATHS;

await timeGroup("catalog_profile", PROMPT_CATALOG_WORKLOAD, SIZE, [
  {
    name: PROFILE_CATALOG_BASELINE,
    fn: () => fitSkillCatalog(plain, { budget }),
    baseline: true,
  },
  {
    name: PROFILE_CATALOG_CASE,
    // The host's paths are taken anew in every run: each glob is matched against all of them.
    fn: () => fitSkillCatalog(conditional, { budget, profile, paths: new HostPaths(hostPaths) }),
  },
  {
    name: PROFILE_CATALOG_ALL_CASE,
    fn: () =>
      fitSkillCatalog(conditional, { budget, profile: keepAll, paths: new HostPaths(everyPath) }),
  },
  // Runs of a tenth of a second: the default three to six samples swung the ratio 1.0-2.0x.
], { samples: 15 });
