/**
 * Skill dependencies, resolved like includes: a skill's `requires-skills`
 * (all of) and `requires-any-skills` (one of) become include edges, and the
 * resolver's walk (`_include_walk.ts`) gives the dependency closure —
 * depth-first in declaration order, each skill once at its first position,
 * dependencies before the skills that need them (the resolver's convention:
 * includes first), the skill itself last — or the cycle, as a path whose
 * first name is repeated at its end. The whole catalog is split in one pass
 * over the include graph (`include_graph.ts`).
 *
 * Which skill a name means:
 *
 * - A name resolves in the skill's own origin first (local skills are one
 *   origin; an MCP server's skills, named `<origin>:<path>`, another each):
 *   to the skill of that name in the same folder (`docs:acme/ledger` for
 *   `docs:acme/refunds`), else the first of that name in code-unit order.
 * - Only with `crossOrigin: true` does a name missing there resolve
 *   elsewhere: to a local skill, then to the first origin (in code-unit
 *   order of labels) that has one. By default a server cannot satisfy a
 *   local skill's dependency, nor a local skill a server's.
 * - `requires-any-skills` resolves to its first alternative that resolves —
 *   that exists for the skill, whatever its own dependencies: the choice
 *   depends on names alone, so it is visible from the skill's own line and
 *   never changes with the state of another skill's dependencies. When that
 *   alternative cannot activate, neither can the skill.
 * - A skill's dependencies come in that order: `requires-skills` as written,
 *   then the chosen alternative.
 *
 * | operation | cost |
 * |---|---|
 * | {@linkcode skillDependencies} | O(skills) (a map of names; nothing is parsed yet) |
 * | `closure(skill)` | O(closure + its dependency names) |
 * | `split()`, {@linkcode skillsWithDependencies} | O(skills + dependency names) |
 *
 * Folder `lib/core/catalog/` — the prompt catalog: budget, modes, usage ranking, requirements, dependencies.
 *
 * @module
 */
import { walkIncludes } from "../resolver/_include_walk.ts";
import { SkillCycleError } from "../errors.ts";
import { includeGraph } from "../resolver/include_graph.ts";
import type { Skill } from "../resolver/skill.ts";
import {
  declaresSkillRequirements,
  type DependencyGap,
  quote,
  showCycle,
  showGaps,
  SkillDependencyError,
  skillRequirements,
} from "./skill_requirements.ts";

/** A skill as dependency resolution reads it: a bundle, a discovered skill, or `{ name, frontmatter }`. */
export interface DependentSkill {
  /** The skill's name (`pdf`; `<origin>:<path>` for a skill served over MCP). */
  readonly name: string;
  /** Its frontmatter: `metadata` holds `requires-skills` and `requires-any-skills`. */
  readonly frontmatter?: { readonly metadata?: Readonly<Record<string, string>> };
  /** The MCP origin it came from; absent (or empty) for a local skill. */
  readonly origin?: string;
}

/** Options of {@linkcode skillDependencies}. */
export interface SkillDependencyOptions {
  /**
   * Whether a dependency the skill's own origin lacks may resolve in another
   * (a local skill first, then the origins in code-unit order). Default
   * false: a skill depends only on skills of its own origin.
   */
  readonly crossOrigin?: boolean;
}

/** A skill's dependency closure, or why it has none (frozen). */
export interface DependencyClosure {
  /** The skill. */
  readonly skill: string;
  /** Whether it may activate: no cycle and no gap. */
  readonly ok: boolean;
  /** The closure: dependencies first, each once, the skill itself last; empty on a cycle. */
  readonly order: readonly string[];
  /** The skills of the closure that lack dependencies, in closure order. */
  readonly gaps: readonly DependencyGap[];
  /** The first cycle the walk meets, its first name repeated at its end; `null` when none. */
  readonly cycle: readonly string[] | null;
}

/** A skill that cannot activate for its dependencies, and why (frozen). */
export interface DependencyHiddenSkill<T> {
  /** The skill as given. */
  readonly skill: T;
  /** Its name. */
  readonly name: string;
  /** Its `requires-skills` that no skill available to it provides, in order. */
  readonly missing: readonly string[];
  /** Its whole `requires-any-skills` list when none resolves; otherwise empty. */
  readonly missing_any: readonly string[];
  /** Skills of other origins that carry a missing name, when the host does not let it cross. */
  readonly elsewhere: readonly string[];
  /** Its dependencies that cannot activate themselves, in its order. */
  readonly blocked_by: readonly string[];
  /** A cycle through it (first name repeated at the end), when it lies on the one reported for its group. */
  readonly cycle: readonly string[] | null;
  /** When a requirement could not be read: the parser's message. */
  readonly problem?: string;
}

/** What {@linkcode skillsWithDependencies} returns (frozen). */
export interface DependencyAvailability<T> {
  /** The skills whose whole closure resolves, in the given order. */
  readonly available: readonly T[];
  /** The others, in the given order. */
  readonly hidden: readonly DependencyHiddenSkill<T>[];
}

/** A skill's dependencies as include edges, and its gap. */
interface Node {
  readonly name: string;
  readonly includes: readonly string[];
  readonly gap: DependencyGap | null;
}

const NONE: readonly never[] = Object.freeze([]);
/** The origin key of local skills (an MCP origin label is never empty). */
const LOCAL = "";

/**
 * A catalog's dependency resolver: the closure of any skill, the check
 * activation runs, and the split of the catalog into skills that can
 * activate and skills that cannot. Built by {@linkcode skillDependencies}.
 */
export class SkillDependencies<T extends DependentSkill = DependentSkill> {
  readonly #skills: readonly T[];
  readonly #byName = new Map<string, T>();
  /** Names by origin, then by the last part of the name, each list in code-unit order. */
  #leaves: Map<string, Map<string, string[]>> | undefined;
  #origins: readonly string[] | undefined;
  readonly #cross: boolean;
  readonly #nodes = new Map<string, Node>();

  /**
   * Index a catalog (see {@linkcode skillDependencies}).
   *
   * @param skills The catalog; of two skills with one name, the first counts.
   * @param options Whether dependencies may cross origins.
   */
  constructor(skills: Iterable<T>, options: SkillDependencyOptions = {}) {
    if (typeof options !== "object" || options === null) {
      throw new TypeError("options must be an object");
    }
    const list: T[] = [];
    for (const skill of skills) {
      if (typeof skill !== "object" || skill === null || typeof skill.name !== "string") {
        throw new TypeError("Each skill must be an object with a string name");
      }
      list.push(skill);
      if (!this.#byName.has(skill.name)) this.#byName.set(skill.name, skill);
    }
    this.#skills = list;
    this.#cross = options.crossOrigin === true;
  }

  /** The index of names by origin and last part, built when a name is first resolved. */
  #index(): { leaves: Map<string, Map<string, string[]>>; origins: readonly string[] } {
    if (this.#leaves !== undefined) return { leaves: this.#leaves, origins: this.#origins! };
    const leaves = new Map<string, Map<string, string[]>>();
    for (const [name, skill] of this.#byName) {
      const origin = originOf(skill);
      let byLeaf = leaves.get(origin);
      if (byLeaf === undefined) leaves.set(origin, byLeaf = new Map());
      const leaf = name.slice(cut(name, origin));
      const names = byLeaf.get(leaf);
      if (names === undefined) byLeaf.set(leaf, [name]);
      else names.push(name);
    }
    for (const byLeaf of leaves.values()) {
      for (const names of byLeaf.values()) if (names.length > 1) names.sort(compare);
    }
    this.#leaves = leaves;
    this.#origins = [...leaves.keys()].sort(compare);
    return { leaves, origins: this.#origins };
  }

  /** The skill of a name in this catalog (of two with one name, the first), or `undefined`. */
  skill(name: string): T | undefined {
    return this.#byName.get(name);
  }

  /**
   * A skill's dependency closure, without throwing for a gap or a cycle.
   *
   * @param skill The skill, or the name of one in the catalog.
   * @returns The closure (dependencies first, the skill last), its gaps and its cycle.
   * @throws {RangeError} For a name the catalog lacks.
   */
  closure(skill: string | DependentSkill): DependencyClosure {
    const root = this.#root(skill);
    const find = (name: string): Skill | undefined => {
      const found = this.#byName.get(name);
      return found === undefined ? undefined : this.#node(found) as unknown as Skill;
    };
    let graph;
    try {
      graph = walkIncludes(this.#node(root) as unknown as Skill, find);
    } catch (e) {
      if (!(e instanceof SkillCycleError)) throw e;
      // The walk's path runs from the root; the cycle starts where its last name first appears.
      const path = e.path;
      const cycle = Object.freeze(path.slice(path.indexOf(path.at(-1)!)));
      return Object.freeze({ skill: root.name, ok: false, order: NONE, gaps: NONE, cycle });
    }
    const order = graph.postOrder.map((id) => graph.names[id]!);
    const gaps: DependencyGap[] = [];
    for (const id of graph.postOrder) {
      const gap = (graph.skills[id] as unknown as Node).gap;
      if (gap !== null) gaps.push(gap);
    }
    return Object.freeze({
      skill: root.name,
      ok: gaps.length === 0,
      order: Object.freeze(order),
      gaps: Object.freeze(gaps),
      cycle: null,
    });
  }

  /**
   * The check activation runs: the skill's dependencies in closure order, or
   * a typed error.
   *
   * @param skill The skill, or the name of one in the catalog.
   * @returns Its dependencies, first to activate first; the skill itself is not among them.
   * @throws {SkillDependencyError} `DEPENDENCY_CYCLE` with the cycle, or
   *   `MISSING_DEPENDENCY` with every skill of the closure that lacks dependencies.
   * @throws {RangeError} For a name the catalog lacks.
   */
  require(skill: string | DependentSkill): readonly string[] {
    const closure = this.closure(skill);
    if (closure.cycle !== null) {
      throw new SkillDependencyError(
        "DEPENDENCY_CYCLE",
        `Skill ${quote(closure.skill)} cannot activate: its dependencies form a cycle: ${
          showCycle(closure.cycle)
        }`,
        { skill: closure.skill, path: closure.cycle },
      );
    }
    if (!closure.ok) {
      throw new SkillDependencyError(
        "MISSING_DEPENDENCY",
        `Skill ${quote(closure.skill)} cannot activate: ${showGaps(closure.gaps)}`,
        { skill: closure.skill, gaps: closure.gaps },
      );
    }
    return Object.freeze(closure.order.slice(0, -1));
  }

  /**
   * Split the catalog into the skills that can activate and those that
   * cannot: a skill is hidden when a requirement does not parse, a name it
   * needs does not resolve, it lies on a cycle, or a dependency of it is
   * hidden.
   *
   * @returns The available skills and the hidden ones with why, each in the given order.
   */
  split(): DependencyAvailability<T> {
    const nodes = new Map<string, Node>();
    let edges = 0;
    for (const [name, skill] of this.#byName) {
      const node = this.#node(skill);
      nodes.set(name, node);
      edges += node.includes.length + (node.gap === null ? 0 : 1);
    }
    // Nothing to resolve, unless a later skill of a taken name declares what it needs.
    if (edges === 0 && !this.#skills.some((s) => this.#byName.get(s.name) !== s && hasNeeds(s))) {
      return Object.freeze({ available: Object.freeze([...this.#skills]), hidden: NONE });
    }
    const graph = includeGraph(nodes as unknown as ReadonlyMap<string, Skill>);
    const hidden = new Set<string>();
    // Each skill's place on its group's cycle: the cycle turned to start there is made only
    // when asked for, so a cycle of n skills costs O(n), not n copies of it.
    const cycles = new Map<string, CyclePlace>();
    for (const cycle of graph.cycles) {
      for (let at = 0; at < cycle.length - 1; at++) {
        if (!cycles.has(cycle[at]!)) cycles.set(cycle[at]!, { cycle, at });
      }
    }
    const needers = new Map<string, string[]>();
    for (const edge of graph.edges) {
      if (edge.cycle) hidden.add(edge.from);
      const list = needers.get(edge.to);
      if (list === undefined) needers.set(edge.to, [edge.from]);
      else list.push(edge.from);
    }
    for (const node of nodes.values()) if (node.gap !== null) hidden.add(node.name);
    // Whoever needs a hidden skill is hidden: backward over the edges, each skill once.
    const todo = [...hidden];
    while (todo.length > 0) {
      for (const from of needers.get(todo.pop()!) ?? NONE) {
        if (!hidden.has(from)) {
          hidden.add(from);
          todo.push(from);
        }
      }
    }
    const available: T[] = [];
    const out: DependencyHiddenSkill<T>[] = [];
    for (const skill of this.#skills) {
      const name = skill.name;
      const first = this.#byName.get(name) === skill;
      if (first ? !hidden.has(name) : this.closure(skill).ok) {
        available.push(skill);
        continue;
      }
      const node = first ? nodes.get(name)! : this.#node(skill);
      const gap = node.gap;
      // A later skill of a taken name walks from itself: a cycle through it starts at it.
      const own = first ? undefined : this.closure(skill).cycle;
      const place = first
        ? cycles.get(name)
        : own === null || own![0] !== name
        ? undefined
        : { cycle: own!, at: 0 };
      let turned: readonly string[] | undefined;
      const entry: DependencyHiddenSkill<T> = Object.freeze({
        skill,
        name,
        missing: gap?.missing ?? NONE,
        missing_any: gap?.missing_any ?? NONE,
        elsewhere: gap?.elsewhere ?? NONE,
        blocked_by: Object.freeze(node.includes.filter((d) => d !== name && hidden.has(d))),
        get cycle(): readonly string[] | null {
          return place === undefined ? null : turned ??= turn(place);
        },
        ...(gap?.problem === undefined ? {} : { problem: gap.problem }),
      });
      if (place !== undefined) PLACES.set(entry, place);
      out.push(entry);
    }
    return Object.freeze({ available: Object.freeze(available), hidden: Object.freeze(out) });
  }

  #root(skill: string | DependentSkill): DependentSkill {
    if (typeof skill === "string") {
      const found = this.#byName.get(skill);
      if (found === undefined) throw new RangeError(`Unknown skill ${quote(skill)}`);
      return found;
    }
    if (typeof skill !== "object" || skill === null || typeof skill.name !== "string") {
      throw new TypeError("skill must be a name or an object with a string name");
    }
    return skill;
  }

  /** The skill's edges and gap (kept for the catalog's own skills). */
  #node(skill: DependentSkill): Node {
    const own = this.#byName.get(skill.name) === skill;
    const cached = own ? this.#nodes.get(skill.name) : undefined;
    if (cached !== undefined) return cached;
    const node = this.#build(skill);
    if (own) this.#nodes.set(skill.name, node);
    return node;
  }

  #build(skill: DependentSkill): Node {
    const name = skill.name;
    const metadata = skill.frontmatter?.metadata;
    if (!declaresSkillRequirements(metadata)) return { name, includes: NONE, gap: null };
    let needs;
    try {
      needs = skillRequirements(metadata);
    } catch (e) {
      if (!(e instanceof SkillDependencyError)) throw e;
      const gap = Object.freeze({
        skill: name,
        missing: NONE,
        missing_any: NONE,
        elsewhere: NONE,
        problem: e.message,
      });
      return { name, includes: NONE, gap };
    }
    const includes = new Set<string>();
    const missing: string[] = [];
    for (const wanted of needs.all) {
      const found = this.#resolve(skill, wanted);
      if (found === undefined) missing.push(wanted);
      else includes.add(found);
    }
    let missingAny: readonly string[] = NONE;
    if (needs.any.length > 0) {
      let chosen: string | undefined;
      for (const wanted of needs.any) {
        if ((chosen = this.#resolve(skill, wanted)) !== undefined) break;
      }
      if (chosen === undefined) missingAny = needs.any;
      else includes.add(chosen);
    }
    let gap: DependencyGap | null = null;
    if (missing.length > 0 || missingAny.length > 0) {
      const elsewhere = new Set<string>();
      for (const wanted of [...missing, ...missingAny]) {
        for (const other of this.#elsewhere(skill, wanted)) elsewhere.add(other);
      }
      gap = Object.freeze({
        skill: name,
        missing: Object.freeze(missing),
        missing_any: Object.freeze([...missingAny]),
        elsewhere: Object.freeze([...elsewhere].sort(compare)),
      });
    }
    // Private to this object (never handed out), so not frozen: a freeze per skill costs.
    return { name, includes: [...includes], gap };
  }

  /** The skill a name means for `from`, or `undefined`. */
  #resolve(from: DependentSkill, wanted: string): string | undefined {
    const { leaves, origins } = this.#index();
    const origin = originOf(from);
    const own = leaves.get(origin)?.get(wanted);
    if (own !== undefined) {
      const sibling = from.name.slice(0, cut(from.name, origin)) + wanted;
      return own.length > 1 && own.includes(sibling) ? sibling : own[0];
    }
    if (!this.#cross) return undefined;
    if (origin !== LOCAL) {
      const local = leaves.get(LOCAL)?.get(wanted);
      if (local !== undefined) return local[0];
    }
    for (const other of origins) {
      const names = other === origin ? undefined : leaves.get(other)!.get(wanted);
      if (names !== undefined) return names[0];
    }
    return undefined;
  }

  /** The skills of other origins that carry the name (when crossing is not allowed). */
  #elsewhere(from: DependentSkill, wanted: string): readonly string[] {
    if (this.#cross) return NONE;
    const { leaves, origins } = this.#index();
    const origin = originOf(from);
    const out: string[] = [];
    for (const other of origins) {
      if (other !== origin) out.push(...(leaves.get(other)!.get(wanted) ?? NONE));
    }
    return out;
  }
}

/**
 * Index a catalog for dependency resolution (see the module's notes for
 * which skill a name means). Requirements are parsed when a skill is first
 * needed, once.
 *
 * @param skills The catalog: bundles, discovered skills, MCP bundles, or
 *   `{ name, frontmatter, origin? }`; of two with one name, the first counts.
 * @param options `crossOrigin: true` lets a dependency resolve in another origin.
 * @returns The resolver.
 * @throws {TypeError} When a skill is not an object with a string name.
 * @example
 * ```ts
 * import { skillDependencies } from "./skill_dependencies.ts";
 * import { assert } from "../_assert.ts";
 *
 * const needs = (list: string) => ({ metadata: { "requires-skills": list } });
 * const deps = skillDependencies([
 *   { name: "report", frontmatter: needs("charts pdf") },
 *   { name: "charts", frontmatter: needs("pdf") },
 *   { name: "pdf", frontmatter: {} },
 *   { name: "broken", frontmatter: needs("gone") },
 * ]);
 * assert.deepEqual(deps.closure("report").order, ["pdf", "charts", "report"]);
 * assert.deepEqual(deps.require("report"), ["pdf", "charts"]);
 * assert.throws(() => deps.require("broken"), {
 *   name: "SkillDependencyError",
 *   message: 'Skill "broken" cannot activate: "broken" requires "gone", which is not available',
 * });
 * ```
 */
export function skillDependencies<T extends DependentSkill>(
  skills: Iterable<T>,
  options: SkillDependencyOptions = {},
): SkillDependencies<T> {
  return new SkillDependencies(skills, options);
}

/**
 * Split a catalog into the skills whose dependencies resolve and those that
 * cannot activate (shaped like `skillsAvailable`, for the catalog's report):
 * a requirement that does not parse, a name that resolves to no skill the
 * skill may use, a cycle, or a dependency that is hidden itself.
 *
 * @param skills The catalog.
 * @param options `crossOrigin: true` lets a dependency resolve in another origin.
 * @returns The available skills and the hidden ones with why, in the given order.
 * @throws {TypeError} When a skill is not an object with a string name.
 * @example
 * ```ts
 * import { skillsWithDependencies } from "./skill_dependencies.ts";
 * import { assert } from "../_assert.ts";
 *
 * const { available, hidden } = skillsWithDependencies([
 *   { name: "pdf", frontmatter: {} },
 *   { name: "forms", frontmatter: { metadata: { "requires-skills": "pdf ocr" } } },
 *   { name: "tax", frontmatter: { metadata: { "requires-skills": "forms" } } },
 * ]);
 * assert.deepEqual(available.map((s) => s.name), ["pdf"]);
 * assert.deepEqual(hidden.map((h) => [h.name, h.missing, h.blocked_by]), [
 *   ["forms", ["ocr"], []],
 *   ["tax", [], ["forms"]],
 * ]);
 * ```
 */
export function skillsWithDependencies<T extends DependentSkill>(
  skills: Iterable<T>,
  options: SkillDependencyOptions = {},
): DependencyAvailability<T> {
  return new SkillDependencies(skills, options).split();
}

/**
 * The dependency resolver a skill tool builds for itself when the host gave
 * none: from the context's skills when they can be listed again (a list, a
 * set, a map, a discovery result; not a one-shot iterator), and only when the skill activated declares
 * requirements; otherwise `undefined` (nothing to check, or no catalog to
 * check against).
 *
 * @param skills The skill tool context's `skills`.
 * @param skill The skill being activated.
 * @param keep Which listed skills may satisfy a dependency (default: all), e.g. only locked ones.
 * @returns A resolver over the listed skills, or `undefined`.
 */
export function contextDependencies(
  skills: unknown,
  skill: DependentSkill,
  keep?: (skill: DependentSkill) => boolean,
): SkillDependencies | undefined {
  if (!declaresSkillRequirements(skill.frontmatter?.metadata)) return undefined;
  if (typeof skills !== "object" || skills === null) return undefined;
  const listed = (skills as { readonly skills?: unknown }).skills;
  const catalog = Array.isArray(listed)
    ? listed
    : typeof (skills as ReadonlyMap<string, unknown>).values === "function" &&
        typeof (skills as ReadonlyMap<string, unknown>).get === "function"
    ? [...(skills as ReadonlyMap<string, DependentSkill>).values()]
    : Array.isArray(skills) || skills instanceof Set
    ? [...(skills as Iterable<DependentSkill>)]
    : undefined; // an iterator is read once: by the lookup, not here
  if (catalog === undefined) return undefined;
  const kept = keep === undefined ? catalog : (catalog as DependentSkill[]).filter(keep);
  return new SkillDependencies(kept as DependentSkill[]);
}

/** Where a skill lies on a cycle (its first name repeated at its end). */
export interface CyclePlace {
  /** The cycle as reported for the skill's group. */
  readonly cycle: readonly string[];
  /** The skill's position in it. */
  readonly at: number;
}

const PLACES = new WeakMap<object, CyclePlace>();

/**
 * Where a hidden skill of {@linkcode SkillDependencies.split} lies on its cycle, without
 * making its `cycle` (the same names turned to start at it): for reports that show a cycle
 * per skill of a long one.
 *
 * @param hidden An entry of `split().hidden`.
 * @returns The cycle and the skill's position, or `undefined` when it lies on none.
 */
export function cyclePlace(hidden: object): CyclePlace | undefined {
  return PLACES.get(hidden);
}

/** The cycle turned to start at its `at`, its first name repeated at its end. */
function turn({ cycle, at }: CyclePlace): readonly string[] {
  if (at === 0) return cycle;
  return Object.freeze([...cycle.slice(at, -1), ...cycle.slice(0, at), cycle[at]!]);
}

function hasNeeds(skill: DependentSkill): boolean {
  return declaresSkillRequirements(skill.frontmatter?.metadata);
}

function originOf(skill: DependentSkill): string {
  const origin: unknown = skill.origin;
  return typeof origin === "string" ? origin : LOCAL;
}

/** Where the last part of a name starts: after its last `/`, or after `<origin>:`. */
function cut(name: string, origin: string): number {
  const colon = origin === LOCAL ? -1 : name.indexOf(":");
  return Math.max(name.lastIndexOf("/"), colon) + 1;
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
