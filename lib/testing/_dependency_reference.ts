/**
 * The reference for skill dependencies: the rules of `skill_dependencies.ts`
 * written as plainly as possible — names found by scanning the whole
 * catalog, the closure by naive recursion — to compare a resolver against.
 * A definition, not fast code: quadratic in the catalog and recursive.
 *
 * Folder `lib/testing/` — the testing kit behind `lib/testing.ts`: arbitraries, references, laws.
 *
 * @module
 */
import type { DependentSkill, SkillDependencyOptions } from "../core/catalog/skill_dependencies.ts";
import { type DependencyGap, skillRequirements } from "../core/catalog/skill_requirements.ts";

/** What the reference says of a skill's closure (as `DependencyClosure`, unfrozen). */
export interface ReferenceClosure {
  /** The skill. */
  readonly skill: string;
  /** No cycle and no gap. */
  readonly ok: boolean;
  /** Dependencies first, each once, the skill last; empty on a cycle. */
  readonly order: readonly string[];
  /** The skills of the closure that lack dependencies, in closure order. */
  readonly gaps: readonly DependencyGap[];
  /** The first cycle the recursion meets, first name repeated at its end, or `null`. */
  readonly cycle: readonly string[] | null;
}

const originOf = (s: DependentSkill): string => typeof s.origin === "string" ? s.origin : "";

/** The last part of a name: after its last `/`, or after `<origin>:`. */
function leafOf(s: DependentSkill): string {
  const colon = originOf(s) === "" ? -1 : s.name.indexOf(":");
  return s.name.slice(Math.max(s.name.lastIndexOf("/"), colon) + 1);
}

/**
 * A skill's dependency closure by the documented rules, computed naively.
 *
 * @param root The name of the skill (the first skill of that name counts).
 * @param skills The catalog.
 * @param options `crossOrigin`, as for `skillDependencies`.
 * @returns The closure, its gaps and its cycle.
 * @throws {RangeError} For a name the catalog lacks.
 * @example
 * ```ts
 * import { referenceDependencyClosure } from "../testing.ts";
 * import { assert } from "../core/_assert.ts";
 *
 * const skills = [
 *   { name: "a", frontmatter: { metadata: { "requires-skills": "b c" } } },
 *   { name: "b", frontmatter: { metadata: { "requires-skills": "c" } } },
 *   { name: "c" },
 * ];
 * assert.deepEqual(referenceDependencyClosure("a", skills).order, ["c", "b", "a"]);
 * ```
 */
export function referenceDependencyClosure(
  root: string,
  skills: readonly DependentSkill[],
  options: SkillDependencyOptions = {},
): ReferenceClosure {
  const { byName, edges } = model(skills, options);
  const start = byName(root);
  if (start === undefined) throw new RangeError(`Unknown skill ${JSON.stringify(root)}`);
  const order: string[] = [];
  const gaps: DependencyGap[] = [];
  let cycle: string[] | null = null;
  function visit(s: DependentSkill, path: string[]): void {
    if (cycle !== null || order.includes(s.name)) return;
    if (path.includes(s.name)) {
      cycle = [...path.slice(path.indexOf(s.name)), s.name];
      return;
    }
    const { includes, gap } = edges(s);
    for (const name of includes) visit(byName(name)!, [...path, s.name]);
    if (cycle !== null) return;
    order.push(s.name);
    if (gap !== null) gaps.push(gap);
  }
  visit(start, []);
  if (cycle !== null) return { skill: root, ok: false, order: [], gaps: [], cycle };
  return { skill: root, ok: gaps.length === 0, order, gaps, cycle: null };
}

/**
 * The skills a skill depends on directly, by the documented rules:
 * `requires-skills` as resolved, then the chosen `requires-any-skills`
 * alternative, each once.
 *
 * @param name The skill's name (the first skill of that name counts).
 * @param skills The catalog.
 * @param options `crossOrigin`, as for `skillDependencies`.
 * @returns The names, in order.
 * @throws {RangeError} For a name the catalog lacks.
 */
export function referenceDirectDependencies(
  name: string,
  skills: readonly DependentSkill[],
  options: SkillDependencyOptions = {},
): readonly string[] {
  const { byName, edges } = model(skills, options);
  const skill = byName(name);
  if (skill === undefined) throw new RangeError(`Unknown skill ${JSON.stringify(name)}`);
  return edges(skill).includes;
}

function model(skills: readonly DependentSkill[], options: SkillDependencyOptions): {
  byName: (name: string) => DependentSkill | undefined;
  edges: (s: DependentSkill) => { includes: string[]; gap: DependencyGap | null };
} {
  const firsts = skills.filter((s, i) => skills.findIndex((t) => t.name === s.name) === i);
  const byName = (name: string) => firsts.find((s) => s.name === name);
  const sorted = (list: string[]) => list.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const origins = sorted([...new Set(firsts.map(originOf))]);
  const named = (origin: string, wanted: string) =>
    sorted(firsts.filter((s) => originOf(s) === origin && leafOf(s) === wanted).map((s) => s.name));

  function resolve(from: DependentSkill, wanted: string): string | undefined {
    const own = named(originOf(from), wanted);
    if (own.length > 0) {
      const sibling = from.name.slice(0, from.name.length - leafOf(from).length) + wanted;
      return own.includes(sibling) ? sibling : own[0];
    }
    if (options.crossOrigin !== true) return undefined;
    for (const origin of ["", ...origins]) {
      const there = origin === originOf(from) ? [] : named(origin, wanted);
      if (there.length > 0) return there[0];
    }
    return undefined;
  }

  function edges(s: DependentSkill): { includes: string[]; gap: DependencyGap | null } {
    let needs;
    try {
      needs = skillRequirements(s.frontmatter?.metadata);
    } catch (e) {
      const gap = { skill: s.name, missing: [], missing_any: [], elsewhere: [] };
      return { includes: [], gap: { ...gap, problem: (e as Error).message } };
    }
    const includes: string[] = [];
    const missing: string[] = [];
    for (const wanted of needs.all) {
      const found = resolve(s, wanted);
      if (found === undefined) missing.push(wanted);
      else if (!includes.includes(found)) includes.push(found);
    }
    const chosen = needs.any.map((w) => resolve(s, w)).find((f) => f !== undefined);
    if (chosen !== undefined && !includes.includes(chosen)) includes.push(chosen);
    const missingAny = needs.any.length > 0 && chosen === undefined ? [...needs.any] : [];
    if (missing.length === 0 && missingAny.length === 0) return { includes, gap: null };
    const elsewhere = options.crossOrigin === true ? [] : sorted([
      ...new Set(
        [...missing, ...missingAny].flatMap((w) =>
          origins.filter((o) => o !== originOf(s)).flatMap((o) => named(o, w))
        ),
      ),
    ]);
    return {
      includes,
      gap: { skill: s.name, missing, missing_any: missingAny, elsewhere },
    };
  }

  return { byName, edges };
}
