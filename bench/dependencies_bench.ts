/**
 * Skill dependencies on a 10,000-skill catalog (each skill requires one to
 * three earlier ones, every fifth names alternatives, one in a hundred a
 * skill that does not exist): splitting the catalog
 * (`skillsWithDependencies`) against splitting it by tool requirements
 * (`skillsAvailable`, which reads the same kind of metadata for every
 * skill), and the closure of the deepest skill against `resolveTools` over
 * the same graph written as includes (the engine both use), and the split
 * of a catalog whose skills all lie on one cycle. Run:
 * `npm run bench -- dependencies`.
 *
 * @module
 */
import {
  resolveTools,
  type Skill,
  skillDependencies,
  skillsAvailable,
  skillsWithDependencies,
} from "../mod.ts";
import { QUICK, timeGroup } from "./_harness.ts";

const N = QUICK ? 2_000 : 10_000;
const name = (i: number) => `s${i}`;
const picks = (i: number): number[] =>
  i === 0 ? [] : [...new Set([i - 1, (i * 7) % i, (i * 13) % i])].slice(0, 1 + (i % 3));

const catalog = Array.from({ length: N }, (_, i) => {
  const metadata: Record<string, string> = {
    "requires-tools": "Read Grep",
    "requires-skills": picks(i).map(name).join(" ") + (i % 100 === 99 ? " gone" : ""),
  };
  if (i % 5 === 0 && i > 0) metadata["requires-any-skills"] = `nope ${name(i - 1)}`;
  return { name: name(i), frontmatter: { metadata } };
});
// The same graph as includes (no missing names: the engine's own cost).
const includes = new Map<string, Skill>(
  catalog.map((s, i) => [s.name, { name: s.name, includes: picks(i).map(name) }]),
);
const deepest = catalog[N - 2]!; // N - 1 names "gone" when N ends in 00

await timeGroup("dependencies", `dependencies: split ${N.toLocaleString("en")} skills`, N, [
  {
    name: "skillsAvailable (tool requirements)",
    fn: () => skillsAvailable(catalog, ["Read", "Grep"]),
    baseline: true,
  },
  { name: "skillsWithDependencies", fn: () => skillsWithDependencies(catalog) },
]);

await timeGroup(
  "dependencies",
  `dependencies: closure of a skill reaching ${N.toLocaleString("en")}`,
  N,
  [
    {
      name: "resolveTools over the same includes",
      fn: () => resolveTools(includes.get(deepest.name)!, includes),
      baseline: true,
    },
    {
      name: "skillDependencies(catalog).closure",
      fn: () => skillDependencies(catalog).closure(deepest.name),
    },
  ],
);

// Every skill on one cycle: each hidden skill's cycle is made only when read, so the split
// and its diagnostics stay linear (a copy per skill was quadratic: 1.3 GB at 8,000 skills).
const ring = Array.from({ length: N }, (_, i) => ({
  name: name(i),
  frontmatter: {
    metadata: { "requires-tools": "Read Grep", "requires-skills": name((i + 1) % N) },
  },
}));
await timeGroup(
  "dependencies",
  `dependencies: split ${N.toLocaleString("en")} skills on one cycle`,
  N,
  [
    {
      name: "skillsAvailable (tool requirements)",
      fn: () => skillsAvailable(ring, ["Read", "Grep"]),
      baseline: true,
    },
    { name: "skillsWithDependencies", fn: () => skillsWithDependencies(ring) },
  ],
);
