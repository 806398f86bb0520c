/**
 * Include resolution (SPEC §3): a skill's tool set flattened into one ordered,
 * de-duplicated list, exactly as the seed's recursive algorithm defines it, in
 * linear time and without recursion.
 *
 * @module
 */
import { SkillCycleError, SkillDefinitionError, SkillResolutionError } from "./errors.ts";
import { adopt, type OrderedMap } from "./ordered_map.ts";
import type { InlineTool, Skill, ToolOverrides } from "./skill.ts";

/** Where a resolved entry came from. */
export type ResolvedToolKind = "tool_ref" | "inline" | "mcp" | "agent_skill";

/** One tool of a resolved skill (frozen). */
export interface ResolvedToolEntry {
  /** The key: a tool name, `{skill}/_anon_{i}`, `mcp:{server}/{tool}` or `agent_skill:{path}`. */
  readonly name: string;
  /** Which step wrote the entry. */
  readonly kind: ResolvedToolKind;
  /** The skill whose declaration wrote this entry last. */
  readonly source_skill: string;
  /** Whether `kind` is `inline`. */
  readonly is_inline: boolean;
  /** The inline definition, for `kind: "inline"`; otherwise `null`. */
  readonly inline_tool: InlineTool | null;
  /** `overrides[name]` of the source skill for a tool ref; otherwise `{}`. */
  readonly overrides: ToolOverrides;
}

/** The resolved tool set: entries keyed by name, in first-appearance order. */
export type ResolvedTools = OrderedMap<string, ResolvedToolEntry>;

/**
 * Where included skills are found: a map, a plain record (own keys only), or a
 * function returning `undefined` for an unknown name.
 */
export type SkillLookup =
  | ReadonlyMap<string, Skill>
  | Readonly<Record<string, Skill>>
  | ((name: string) => Skill | undefined | null);

/** The capabilities of a resolved tool set (counted from its entries). */
export interface CapabilitySummary {
  /** The number of entries. */
  readonly total_tools: number;
  /** Inline tools marked `read_only`. */
  readonly read_only_tools: number;
  /** Inline tools marked `writes`. */
  readonly write_tools: number;
  /** Inline tools marked `checkpointable`. */
  readonly checkpointable_tools: number;
  /** Whether any inline tool declares a side effect. */
  readonly has_side_effects: boolean;
  /** The union of the inline tools' side effects, sorted. */
  readonly side_effects: readonly string[];
  /** The number of MCP entries. */
  readonly mcp_tools: number;
  /** The number of distinct MCP servers among the entries. */
  readonly mcp_servers: number;
  /** The number of Agent Skill entries. */
  readonly agent_skills: number;
}

const NO_OVERRIDES: ToolOverrides = Object.freeze({});
const NONE: readonly never[] = Object.freeze([]);

/**
 * Flatten `skill`'s tool set: includes depth-first in declaration order, then
 * its tool refs, inline tools, MCP tools and Agent Skill folders. A key seen
 * again keeps its first position and takes the last metadata. The result is
 * the one the seed's naive recursion gives, computed in
 * O(skills + includes + declared tools) time with explicit stacks.
 *
 * @param skill The root skill.
 * @param lookup Where included skills are found.
 * @returns The entries keyed by name, in order.
 * @throws {SkillCycleError} When a skill includes itself through the path from the root.
 * @throws {SkillResolutionError} `UNKNOWN_SKILL` when an include is not found;
 *   `NAME_MISMATCH` when the lookup answers a name with a differently named skill.
 *   The first error met in depth-first order is the one thrown.
 * @throws {SkillDefinitionError} When a reachable skill handed over in code has
 *   a field of the wrong shape (a string where a list belongs, …).
 * @throws {TypeError} When `lookup` is not a map, record or function, or a
 *   skill's fields answer differently from one read to the next (getters,
 *   proxies, a lookup that edits a skill already entered): a list that grows,
 *   shrinks or changes the kind of its items is refused, never followed.
 * @example
 * ```ts
 * import { resolveTools } from "./resolve.ts";
 * import { assert } from "./_assert.ts";
 *
 * const catalog = new Map([
 *   ["local/files", { name: "local/files", tool_refs: ["read_file", "write_file"] }],
 * ]);
 * const tools = resolveTools(
 *   { name: "local/pdf", includes: ["local/files"], tool_refs: ["read_file"] },
 *   catalog,
 * );
 * assert.deepEqual([...tools.keys()], ["read_file", "write_file"]);
 * assert.equal(tools.get("read_file")?.source_skill, "local/pdf");
 * ```
 * @example A cycle
 * ```ts
 * import { resolveTools, SkillCycleError } from "../../mod.ts";
 * import { assert } from "./_assert.ts";
 *
 * const catalog = {
 *   "local/a": { name: "local/a", includes: ["local/b"] },
 *   "local/b": { name: "local/b", includes: ["local/a"] },
 * };
 * assert.throws(() => resolveTools(catalog["local/a"], catalog), {
 *   name: "SkillCycleError",
 *   message: "Cycle detected in skill includes: local/a -> local/b -> local/a",
 * });
 * ```
 */
export function resolveTools(skill: Skill, lookup: SkillLookup): ResolvedTools {
  const find = lookupFunction(lookup);
  const graph = walkIncludes(skill, find);
  // A private Map, handed to the OrderedMap at the end without a copy.
  const entries = new Map<string, ResolvedToolEntry>();
  // Forward: a skill entered a second time adds no key, so one visit each fixes every position.
  const repeated = new Set<string>();
  // Each pass reads exactly the declarations the checks counted, skill by skill: a list
  // that answers longer or shorter on a later read is refused, never followed.
  const { skills, names, counts } = graph;
  for (const id of graph.postOrder) {
    writeFirst(skills[id]!, names[id]!, entries, repeated, counts[id]!);
  }
  if (repeated.size > 0) {
    // Backward: the naive order reversed, each skill once, until every repeated key is settled.
    for (const id of reverseOrder(graph)) {
      writeLast(skills[id]!, names[id]!, entries, repeated, counts[id]!);
      if (repeated.size === 0) break;
    }
    // Only a skill whose lists answered differently the second time can leave one unsettled.
    if (repeated.size > 0) {
      throw new TypeError(
        `A skill's declarations changed while it was resolved: "${
          [...repeated][0]
        }" was declared, then not`,
      );
    }
  }
  return adopt(entries);
}

/**
 * The seed's API as a class. It holds no state; one instance can serve any
 * number of resolutions.
 *
 * | method                    | cost                                   |
 * | ------------------------- | -------------------------------------- |
 * | `resolveTools`            | O(skills + includes + declared tools)  |
 * | `computeCapabilitySummary`| O(entries + side effects · log)        |
 */
export class SkillResolver {
  /**
   * See {@linkcode resolveTools}.
   *
   * @param skill The root skill.
   * @param lookup Where included skills are found.
   * @returns The entries keyed by name, in order.
   */
  resolveTools(skill: Skill, lookup: SkillLookup): ResolvedTools {
    return resolveTools(skill, lookup);
  }

  /**
   * See {@linkcode computeCapabilitySummary}.
   *
   * @param skill The root skill the entries were resolved from.
   * @param entries The resolved entries.
   * @returns The summary.
   */
  computeCapabilitySummary(
    skill: Skill,
    entries: ReadonlyMap<string, ResolvedToolEntry> | Iterable<ResolvedToolEntry>,
  ): CapabilitySummary {
    return computeCapabilitySummary(skill, entries);
  }
}

/**
 * Summarise the capabilities of a resolved tool set: counts of read-only,
 * writing and checkpointable inline tools, their side effects, and the MCP and
 * Agent Skill sources.
 *
 * @param skill The root skill the entries were resolved from (the seed's
 *   signature; the summary is computed from `entries` alone).
 * @param entries The resolved entries: the map {@linkcode resolveTools}
 *   returns, or any iterable of entries.
 * @returns A frozen summary.
 * @throws {TypeError} When `entries` is not iterable.
 * @example
 * ```ts
 * import { computeCapabilitySummary, resolveTools } from "./resolve.ts";
 * import { assert } from "./_assert.ts";
 *
 * const skill = {
 *   name: "local/net",
 *   inline_tools: [{ read_only: true, side_effects: ["network"] }],
 *   mcp_servers: [{ server: "github", tools: ["create_issue", "list_issues"] }],
 * };
 * const summary = computeCapabilitySummary(skill, resolveTools(skill, {}));
 * assert.equal(summary.total_tools, 3);
 * assert.equal(summary.read_only_tools, 1);
 * assert.deepEqual(summary.side_effects, ["network"]);
 * assert.equal(summary.mcp_servers, 1);
 * ```
 */
export function computeCapabilitySummary(
  _skill: Skill,
  entries: ReadonlyMap<string, ResolvedToolEntry> | Iterable<ResolvedToolEntry>,
): CapabilitySummary {
  // A map (ours, from another copy of this module, or a Map) iterates pairs: take its values.
  // Arrays and sets have values() too, yielding their elements.
  const values = (entries as { values?: () => Iterable<ResolvedToolEntry> }).values;
  const list: Iterable<ResolvedToolEntry> = typeof values === "function"
    ? values.call(entries)
    : (entries as Iterable<ResolvedToolEntry>);
  let total = 0, readOnly = 0, writes = 0, checkpointable = 0, mcp = 0, agentSkills = 0;
  const sideEffects = new Set<string>();
  const servers = new Set<string>();
  for (const entry of list) {
    total++;
    if (entry.kind === "mcp") {
      mcp++;
      // Keys are mcp:{server}/{tool}; a server name holds no "/".
      const slash = entry.name.indexOf("/", 4);
      servers.add(entry.name.slice(4, slash < 0 ? undefined : slash));
    } else if (entry.kind === "agent_skill") {
      agentSkills++;
    }
    const tool = entry.inline_tool;
    if (tool === null) continue;
    if (tool.read_only === true) readOnly++;
    if (tool.writes === true) writes++;
    if (tool.checkpointable === true) checkpointable++;
    for (const effect of tool.side_effects ?? NONE) sideEffects.add(effect);
  }
  return Object.freeze({
    total_tools: total,
    read_only_tools: readOnly,
    write_tools: writes,
    checkpointable_tools: checkpointable,
    has_side_effects: sideEffects.size > 0,
    side_effects: Object.freeze([...sideEffects].sort()),
    mcp_tools: mcp,
    mcp_servers: servers.size,
    agent_skills: agentSkills,
  });
}

function lookupFunction(lookup: SkillLookup): (name: string) => Skill | undefined | null {
  if (typeof lookup === "function") return lookup;
  if (typeof lookup !== "object" || lookup === null) {
    throw new TypeError("lookup must be a Map, a record of skills or a function");
  }
  if (typeof (lookup as ReadonlyMap<string, Skill>).get === "function") {
    const map = lookup as ReadonlyMap<string, Skill>;
    return (name) => map.get(name);
  }
  const record = lookup as Readonly<Record<string, Skill>>;
  return (name) => (Object.hasOwn(record, name) ? record[name] : undefined);
}

/** The skills reachable from a root, numbered in discovery order (the root is 0). */
interface IncludeGraph {
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
 */
function walkIncludes(root: Skill, find: (name: string) => Skill | undefined | null): IncludeGraph {
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

function isString(value: unknown): value is string {
  return typeof value === "string";
}

function isObject(value: unknown): value is Record<string, unknown> {
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

/** A skill whose fields answered differently on a later read than when they were checked. */
function changed(skill: string): TypeError {
  return new TypeError(
    `A skill's declarations changed while it was resolved: "${skill}" answered differently from one read to the next`,
  );
}

/** A list field as read again by a pass: the empty list when absent, refused when no longer a list. */
function listOf(value: unknown, skill: string): readonly unknown[] {
  if (value === undefined) return NONE;
  if (!Array.isArray(value)) throw changed(skill);
  return value;
}

/** The overrides field as read again by a pass. */
function overridesOf(value: unknown, skill: string): Record<string, unknown> | undefined {
  if (value === undefined || isObject(value)) return value;
  throw changed(skill);
}

/** A server's name as read again by a pass. */
function serverName(value: unknown, skill: string): string {
  const server = isObject(value) ? value["server"] : undefined;
  if (!isString(server)) throw changed(skill);
  return server;
}
/**
 * The naive order reversed: a skill's own declarations, then its includes
 * last to first, each skill entered once (a later visit would write nothing new).
 *
 * @returns Skill numbers in that order.
 */
function reverseOrder(graph: IncludeGraph): number[] {
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

/** Holds the place of a repeated key until the backward pass writes its entry. */
const UNSETTLED: ResolvedToolEntry = Object.freeze({
  name: "",
  kind: "tool_ref",
  source_skill: "",
  is_inline: false,
  inline_tool: null,
  overrides: NO_OVERRIDES,
});

/**
 * Forward pass: the keys `skill` declares, in the seed's step order (tool
 * refs, inline tools, MCP tools, Agent Skills). A new key takes its position
 * and the entry of this declaration: if it is declared only once in the
 * whole graph, every naive write of it comes from here. A key seen before is
 * repeated: its last writer is found walking backward.
 *
 * Each new key is set twice — a placeholder that tells new from seen by the
 * map's size, then its entry — which is one probe of a cold map, where
 * `has` then `set` is two; the steps are written out rather than passed
 * through a callback, which cost 15–25 % on V8 (`npm run bench -- resolve`).
 * Every list is read again here, so each is checked again, cheaply: still a
 * list, items of the right kind, and `count` items in all, as first counted.
 */
function writeFirst(
  skill: Skill,
  source: string,
  entries: Map<string, ResolvedToolEntry>,
  repeated: Set<string>,
  count: number,
): void {
  let left = count;
  const refs = listOf(skill.tool_refs, source);
  const overrides = overridesOf(skill.overrides, source);
  const refCount = refs.length;
  if ((left -= refCount) < 0) throw changed(source);
  for (let j = 0; j < refCount; j++) {
    const name = refs[j];
    if (!isString(name)) throw changed(source);
    if (isNew(entries, repeated, name)) {
      entries.set(name, entry(name, "tool_ref", source, null, own(overrides, name, source)));
    }
  }
  const tools = listOf(skill.inline_tools, source);
  const toolCount = tools.length;
  if ((left -= toolCount) < 0) throw changed(source);
  for (let i = 0; i < toolCount; i++) {
    const tool = tools[i];
    if (!isObject(tool)) throw changed(source);
    const key = `${source}/_anon_${i}`;
    if (isNew(entries, repeated, key)) {
      entries.set(key, entry(key, "inline", source, tool as InlineTool, NO_OVERRIDES));
    }
  }
  const servers = listOf(skill.mcp_servers, source);
  const serverCount = servers.length;
  if ((left -= serverCount) < 0) throw changed(source);
  for (let j = 0; j < serverCount; j++) {
    const value = servers[j];
    const server = serverName(value, source);
    const names = listOf((value as Record<string, unknown>)["tools"], source);
    const nameCount = names.length;
    if ((left -= nameCount) < 0) throw changed(source);
    for (let k = 0; k < nameCount; k++) {
      const tool = names[k];
      if (!isString(tool)) throw changed(source);
      const key = `mcp:${server}/${tool}`;
      if (isNew(entries, repeated, key)) {
        entries.set(key, entry(key, "mcp", source, null, NO_OVERRIDES));
      }
    }
  }
  const paths = listOf(skill.agent_skills, source);
  const pathCount = paths.length;
  if ((left -= pathCount) < 0) throw changed(source);
  for (let j = 0; j < pathCount; j++) {
    const path = paths[j];
    if (!isString(path)) throw changed(source);
    const key = `agent_skill:${path}`;
    if (isNew(entries, repeated, key)) {
      entries.set(key, entry(key, "agent_skill", source, null, NO_OVERRIDES));
    }
  }
  if (left !== 0) throw changed(source);
}

/** Whether `key` is new to `entries` (it now holds a placeholder there); if not, it is repeated. */
function isNew(
  entries: Map<string, ResolvedToolEntry>,
  repeated: Set<string>,
  key: string,
): boolean {
  const size = entries.size;
  entries.set(key, UNSETTLED);
  if (entries.size > size) return true;
  repeated.add(key);
  return false;
}

/**
 * Backward pass: the keys `skill` declares in exactly the reverse order. The
 * first writer of a repeated key met walking the naive order backward is its
 * last writer walking forward: it settles the key.
 */
function writeLast(
  skill: Skill,
  source: string,
  entries: Map<string, ResolvedToolEntry>,
  pending: Set<string>,
  count: number,
): void {
  let left = count;
  const paths = listOf(skill.agent_skills, source);
  const pathCount = paths.length;
  if ((left -= pathCount) < 0) throw changed(source);
  for (let j = pathCount - 1; j >= 0; j--) {
    const path = paths[j];
    if (!isString(path)) throw changed(source);
    const key = `agent_skill:${path}`;
    if (pending.delete(key)) {
      entries.set(key, entry(key, "agent_skill", source, null, NO_OVERRIDES));
    }
  }
  const servers = listOf(skill.mcp_servers, source);
  const serverCount = servers.length;
  if ((left -= serverCount) < 0) throw changed(source);
  for (let j = serverCount - 1; j >= 0; j--) {
    const value = servers[j];
    const server = serverName(value, source);
    const names = listOf((value as Record<string, unknown>)["tools"], source);
    const nameCount = names.length;
    if ((left -= nameCount) < 0) throw changed(source);
    for (let k = nameCount - 1; k >= 0; k--) {
      const tool = names[k];
      if (!isString(tool)) throw changed(source);
      const key = `mcp:${server}/${tool}`;
      if (pending.delete(key)) entries.set(key, entry(key, "mcp", source, null, NO_OVERRIDES));
    }
  }
  const tools = listOf(skill.inline_tools, source);
  const toolCount = tools.length;
  if ((left -= toolCount) < 0) throw changed(source);
  for (let i = toolCount - 1; i >= 0; i--) {
    const tool = tools[i];
    if (!isObject(tool)) throw changed(source);
    const key = `${source}/_anon_${i}`;
    if (pending.delete(key)) {
      entries.set(key, entry(key, "inline", source, tool as InlineTool, NO_OVERRIDES));
    }
  }
  const refs = listOf(skill.tool_refs, source);
  const overrides = overridesOf(skill.overrides, source);
  const refCount = refs.length;
  if ((left -= refCount) < 0) throw changed(source);
  for (let j = refCount - 1; j >= 0; j--) {
    const name = refs[j];
    if (!isString(name)) throw changed(source);
    if (pending.delete(name)) {
      entries.set(name, entry(name, "tool_ref", source, null, own(overrides, name, source)));
    }
  }
  if (left !== 0) throw changed(source);
}

/** `overrides[name]` of a skill (own keys only), or the shared empty mapping. */
function own(
  overrides: Record<string, unknown> | undefined,
  name: string,
  source: string,
): ToolOverrides {
  if (overrides === undefined || !Object.hasOwn(overrides, name)) return NO_OVERRIDES;
  const value = overrides[name];
  if (!isObject(value)) throw changed(source);
  return value as ToolOverrides;
}

function entry(
  name: string,
  kind: ResolvedToolKind,
  source_skill: string,
  inline_tool: InlineTool | null,
  overrides: ToolOverrides,
): ResolvedToolEntry {
  return Object.freeze({
    name,
    kind,
    source_skill,
    is_inline: kind === "inline",
    inline_tool,
    overrides,
  });
}
