/**
 * The first step of include resolution: the skills reachable from a root,
 * each entered once, numbered and checked for shape, with the order the
 * forward and backward passes of `resolve.ts` visit them in. Cycles and
 * unknown includes are found here, in the order the naive recursion meets
 * them.
 *
 * Folder `lib/core/resolver/` — the skill model and the resolver: ordered maps, the include graph, tool sets.
 *
 * @module
 */
import { SkillCycleError, SkillDefinitionError, SkillResolutionError } from "../errors.ts";
import type { Skill } from "./skill.ts";

/** The empty list, shared. */
export const NONE: readonly never[] = Object.freeze([]);

/** The skills reachable from a root, numbered in discovery order (the root is 0). */
export interface IncludeGraph {
  /** Skills by number. */
  readonly skills: readonly Skill[];
  /** Their names by number, as read when the walk entered them. */
  readonly names: readonly string[];
  /** How many declarations each holds (tool refs, inline tools, MCP servers and their tools, Agent Skills), as the checks counted them. */
  readonly counts: readonly number[];
  /** Every skill's includes as numbers, skill after skill (compressed rows). */
  readonly edges: readonly number[];
  /** Where each skill's row starts in `edges`; one more entry marks the end of the last. */
  readonly rows: readonly number[];
  /** Every skill once, includes before includers: the naive first-visit order. */
  readonly postOrder: readonly number[];
}

/**
 * Depth-first over the include graph, entering each skill once; checks cycles
 * and unknown includes in the order the naive recursion meets them (lookup,
 * then name, then the path). The path is two parallel stacks of numbers, so
 * the walk keeps nothing per skill beyond its number, name and counts.
 *
 * @param root The root skill.
 * @param find The lookup, as a function.
 * @returns The graph: its skills, their names, counts and includes, and the post-order.
 * @throws {SkillCycleError} When a skill includes itself through the path from the root.
 * @throws {SkillResolutionError} `UNKNOWN_SKILL` or `NAME_MISMATCH`, as `resolveTools` documents.
 * @throws {SkillDefinitionError} When a reachable skill has a field of the wrong shape.
 * @throws {TypeError} When an include answers differently from one read to the next.
 */
export function walkIncludes(
  root: Skill,
  find: (name: string) => Skill | undefined | null,
): IncludeGraph {
  const rootName: unknown = isObject(root) ? root.name : undefined;
  // Each skill's includes, read once (a getter is not asked twice), and how many there were.
  const lists: (readonly unknown[])[] = [];
  const counts = [checkShape(root, rootName, lists)];
  const first = rootName as string;
  const ids = new Map<string, number>([[first, 0]]);
  const skills: Skill[] = [root];
  const names: string[] = [first];
  const lengths: number[] = [lists[0]!.length];
  const done: boolean[] = [false];
  const edges: number[] = [];
  const rows: number[] = [];
  reserveRow(edges, rows, lengths[0]!);
  const postOrder: number[] = [];
  // The path from the root: skill numbers, and for each the next include to follow.
  const path: number[] = [0];
  const next: number[] = [0];
  while (path.length > 0) {
    const top = path.length - 1;
    const id = path[top]!;
    const i = next[top]!;
    if (i === lengths[id]) {
      path.pop();
      next.pop();
      done[id] = true;
      postOrder.push(id);
      continue;
    }
    next[top] = i + 1;
    const include = lists[id]![i];
    const name: unknown = isObject(include) ? include["name"] : include;
    if (!isString(name)) throw changed(names[id]!);
    const known = ids.get(name);
    if (known !== undefined && done[known]) {
      edges[rows[id]! + i] = known;
      continue;
    }
    const child = find(name);
    if (child === undefined || child === null) {
      const trail = pathTo(name, path, names);
      throw new SkillResolutionError(
        "UNKNOWN_SKILL",
        `Unknown skill "${name}" included by "${names[id]!}" (path: ${trail.join(" -> ")})`,
        trail,
      );
    }
    const childName: unknown = (child as Skill).name;
    if (childName !== name) {
      const trail = pathTo(name, path, names);
      throw new SkillResolutionError(
        "NAME_MISMATCH",
        `Lookup answered "${name}" with a skill named "${String(childName)}" (path: ${
          trail.join(" -> ")
        })`,
        trail,
      );
    }
    // A known skill that is not done is on the current path.
    if (known !== undefined) throw new SkillCycleError(pathTo(name, path, names));
    counts.push(checkShape(child, name, lists));
    const childId = skills.length;
    edges[rows[id]! + i] = childId;
    ids.set(name, childId);
    path.push(childId);
    next.push(0);
    skills.push(child);
    names.push(name);
    lengths.push(lists[childId]!.length);
    reserveRow(edges, rows, lengths[childId]!);
    done.push(false);
  }
  rows.push(edges.length);
  return { skills, names, counts, edges, rows, postOrder };
}

/** Start the next skill's row of `length` include numbers (filled in as the walk follows them). */
function reserveRow(edges: number[], rows: number[], length: number): void {
  rows.push(edges.length);
  for (let k = 0; k < length; k++) edges.push(-1);
}

/**
 * A cheap structural check (O(declarations)) of a skill handed over in code
 * rather than through {@linkcode parseSkill}: the lists are lists of the right
 * things, so nothing is silently misread (a string iterated as characters).
 *
 * @param skill The skill.
 * @param name Its `name`, as the caller read it.
 * @param lists Receives its includes (the list read here, which the walk follows).
 * @returns How many declarations it holds: tool refs, inline tools, MCP servers and their tools, Agent Skills.
 * @throws {SkillDefinitionError} Naming the skill and the field.
 */
function checkShape(skill: Skill, name: unknown, lists: (readonly unknown[])[]): number {
  const s = skill as unknown as Record<string, unknown>;
  if (!isObject(s)) shapeError(undefined, "", `expected a skill object, got ${String(s)}`);
  if (!isString(name)) shapeError(undefined, "name", "expected a string");
  lists.push(checkList(s, name, "includes", isInclude, "a skill name or { name }"));
  let count = checkList(s, name, "tool_refs", isString, "a string").length;
  count += checkList(s, name, "inline_tools", isObject, "an inline tool object").length;
  const servers = checkList(
    s,
    name,
    "mcp_servers",
    isMcpServer,
    "{ server, tools? } with string tool names",
  );
  count += servers.length;
  for (let i = 0; i < servers.length; i++) {
    count += ((servers[i] as Record<string, unknown>)["tools"] as unknown[] | undefined)?.length ??
      0;
  }
  count += checkList(s, name, "agent_skills", isString, "a string").length;
  const overrides = s["overrides"];
  if (overrides === undefined) return count;
  if (!isObject(overrides)) shapeError(name, "overrides", "expected a mapping");
  for (const key of Object.keys(overrides)) {
    if (!isObject(overrides[key])) shapeError(name, `overrides.${key}`, "expected a mapping");
  }
  return count;
}

/** `s[field]` checked item by item; the list read (empty when absent). */
function checkList(
  s: Record<string, unknown>,
  skill: string,
  field: string,
  ok: (item: unknown) => boolean,
  what: string,
): readonly unknown[] {
  const value = s[field];
  if (value === undefined) return NONE;
  if (!Array.isArray(value)) shapeError(skill, field, "expected a list");
  for (let i = 0; i < value.length; i++) {
    if (!ok(value[i])) shapeError(skill, `${field}[${i}]`, `expected ${what}`);
  }
  return value;
}

function shapeError(skill: unknown, field: string, reason: string): never {
  throw new SkillDefinitionError({ skill: isString(skill) ? skill : undefined, field, reason });
}

/**
 * Whether the value is a string.
 *
 * @param value Any value.
 * @returns `true` for a string.
 */
export function isString(value: unknown): value is string {
  return typeof value === "string";
}

/**
 * Whether the value is an object that is not an array (a mapping).
 *
 * @param value Any value.
 * @returns `true` for a non-null, non-array object.
 */
export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isInclude(value: unknown): boolean {
  return isString(value) || (isObject(value) && isString(value["name"]));
}

function isMcpServer(value: unknown): boolean {
  if (!isObject(value) || !isString(value["server"])) return false;
  const tools = value["tools"];
  return tools === undefined || (Array.isArray(tools) && tools.every(isString));
}

/** The names on the include path from the root, then `name`. */
function pathTo(name: string, path: readonly number[], names: readonly string[]): string[] {
  const trail = path.map((id) => names[id]!);
  trail.push(name);
  return trail;
}

/**
 * The error for a skill whose fields answered differently on a later read than
 * when they were checked.
 *
 * @param skill The skill's name.
 * @returns The `TypeError` to throw.
 */
export function changed(skill: string): TypeError {
  return new TypeError(
    `A skill's declarations changed while it was resolved: "${skill}" answered differently from one read to the next`,
  );
}

/**
 * The naive order reversed: a skill's own declarations, then its includes
 * last to first, each skill entered once (a later visit would write nothing new).
 *
 * @param graph The walked graph.
 * @returns Skill numbers in that order.
 */
export function reverseOrder(graph: IncludeGraph): number[] {
  const entered = new Uint8Array(graph.skills.length);
  const order: number[] = [];
  const stack = [0];
  while (stack.length > 0) {
    const id = stack.pop()!;
    if (entered[id] === 1) continue;
    entered[id] = 1;
    order.push(id);
    for (let k = graph.rows[id]!; k < graph.rows[id + 1]!; k++) {
      const child = graph.edges[k]!;
      if (entered[child] === 0) stack.push(child);
    }
  }
  return order;
}
