/**
 * Include resolution (SPEC §3): a skill's tool set flattened into one ordered,
 * de-duplicated list, exactly as the seed's recursive algorithm defines it, in
 * linear time and without recursion.
 *
 * @module
 */
import { SkillCycleError, SkillDefinitionError, SkillResolutionError } from "./errors.ts";
import { adopt, type OrderedMap } from "./ordered_map.ts";
import {
  includeName,
  type InlineTool,
  type Skill,
  type SkillInclude,
  type ToolOverrides,
} from "./skill.ts";

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
 *   skill's lists answer differently from one read to the next (getters).
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
  for (const id of graph.postOrder) writeFirst(graph.skills[id]!, entries, repeated);
  if (repeated.size > 0) {
    // Backward: the naive order reversed, each skill once, until every repeated key is settled.
    for (const id of reverseOrder(graph)) {
      writeLast(graph.skills[id]!, entries, repeated);
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
 * the walk allocates nothing per skill beyond its number.
 */
function walkIncludes(root: Skill, find: (name: string) => Skill | undefined | null): IncludeGraph {
  checkShape(root);
  const ids = new Map<string, number>([[root.name, 0]]);
  const skills: Skill[] = [root];
  // Each skill's includes, read once (a getter is not asked twice).
  const lists: (readonly SkillInclude[])[] = [root.includes ?? NONE];
  const done: boolean[] = [false];
  const edges: number[] = [];
  const rows: number[] = [];
  reserveRow(edges, rows, lists[0]!.length);
  const postOrder: number[] = [];
  // The path from the root: skill numbers, and for each the next include to follow.
  const path: number[] = [0];
  const next: number[] = [0];
  while (path.length > 0) {
    const top = path.length - 1;
    const id = path[top]!;
    const includes = lists[id]!;
    const i = next[top]!;
    if (i === includes.length) {
      path.pop();
      next.pop();
      done[id] = true;
      postOrder.push(id);
      continue;
    }
    next[top] = i + 1;
    const name = includeName(includes[i]!);
    const known = ids.get(name);
    if (known !== undefined && done[known]) {
      edges[rows[id]! + i] = known;
      continue;
    }
    const child = find(name);
    if (child === undefined || child === null) {
      const names = pathTo(name, path, skills);
      throw new SkillResolutionError(
        "UNKNOWN_SKILL",
        `Unknown skill "${name}" included by "${skills[id]!.name}" (path: ${names.join(" -> ")})`,
        names,
      );
    }
    if (child.name !== name) {
      const names = pathTo(name, path, skills);
      throw new SkillResolutionError(
        "NAME_MISMATCH",
        `Lookup answered "${name}" with a skill named "${child.name}" (path: ${
          names.join(" -> ")
        })`,
        names,
      );
    }
    // A known skill that is not done is on the current path.
    if (known !== undefined) throw new SkillCycleError(pathTo(name, path, skills));
    checkShape(child);
    const childId = skills.length;
    edges[rows[id]! + i] = childId;
    ids.set(name, childId);
    path.push(childId);
    next.push(0);
    skills.push(child);
    lists.push(child.includes ?? NONE);
    reserveRow(edges, rows, lists[childId]!.length);
    done.push(false);
  }
  rows.push(edges.length);
  return { skills, edges, rows, postOrder };
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
 * @throws {SkillDefinitionError} Naming the skill and the field.
 */
function checkShape(skill: Skill): void {
  const s = skill as unknown as Record<string, unknown>;
  if (!isObject(s)) shapeError(undefined, "", `expected a skill object, got ${String(s)}`);
  if (!isString(s["name"])) shapeError(undefined, "name", "expected a string");
  checkList(s, "includes", isInclude, "a skill name or { name }");
  checkList(s, "tool_refs", isString, "a string");
  checkList(s, "inline_tools", isObject, "an inline tool object");
  checkList(s, "mcp_servers", isMcpServer, "{ server, tools? } with string tool names");
  checkList(s, "agent_skills", isString, "a string");
  const overrides = s["overrides"];
  if (overrides === undefined) return;
  if (!isObject(overrides)) shapeError(s["name"], "overrides", "expected a mapping");
  for (const key of Object.keys(overrides)) {
    if (!isObject(overrides[key])) shapeError(s["name"], `overrides.${key}`, "expected a mapping");
  }
}

function checkList(
  s: Record<string, unknown>,
  field: string,
  ok: (item: unknown) => boolean,
  what: string,
): void {
  const value = s[field];
  if (value === undefined) return;
  if (!Array.isArray(value)) shapeError(s["name"], field, "expected a list");
  for (let i = 0; i < value.length; i++) {
    if (!ok(value[i])) shapeError(s["name"], `${field}[${i}]`, `expected ${what}`);
  }
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
function pathTo(name: string, path: readonly number[], skills: readonly Skill[]): string[] {
  const names = path.map((id) => skills[id]!.name);
  names.push(name);
  return names;
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
 */
function writeFirst(
  skill: Skill,
  entries: Map<string, ResolvedToolEntry>,
  repeated: Set<string>,
): void {
  const source = skill.name;
  const refs = skill.tool_refs ?? NONE;
  const overrides = skill.overrides;
  for (let j = 0; j < refs.length; j++) {
    const name = refs[j]!;
    if (isNew(entries, repeated, name)) {
      entries.set(name, entry(name, "tool_ref", source, null, own(overrides, name)));
    }
  }
  const tools = skill.inline_tools ?? NONE;
  for (let i = 0; i < tools.length; i++) {
    const key = `${source}/_anon_${i}`;
    if (isNew(entries, repeated, key)) {
      entries.set(key, entry(key, "inline", source, tools[i]!, NO_OVERRIDES));
    }
  }
  const servers = skill.mcp_servers ?? NONE;
  for (let j = 0; j < servers.length; j++) {
    const server = servers[j]!;
    const names = server.tools ?? NONE;
    for (let k = 0; k < names.length; k++) {
      const key = `mcp:${server.server}/${names[k]}`;
      if (isNew(entries, repeated, key)) {
        entries.set(key, entry(key, "mcp", source, null, NO_OVERRIDES));
      }
    }
  }
  const paths = skill.agent_skills ?? NONE;
  for (let j = 0; j < paths.length; j++) {
    const key = `agent_skill:${paths[j]}`;
    if (isNew(entries, repeated, key)) {
      entries.set(key, entry(key, "agent_skill", source, null, NO_OVERRIDES));
    }
  }
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
  entries: Map<string, ResolvedToolEntry>,
  pending: Set<string>,
): void {
  const source = skill.name;
  const paths = skill.agent_skills ?? NONE;
  for (let j = paths.length - 1; j >= 0; j--) {
    const key = `agent_skill:${paths[j]}`;
    if (pending.delete(key)) {
      entries.set(key, entry(key, "agent_skill", source, null, NO_OVERRIDES));
    }
  }
  const servers = skill.mcp_servers ?? NONE;
  for (let j = servers.length - 1; j >= 0; j--) {
    const server = servers[j]!;
    const names = server.tools ?? NONE;
    for (let k = names.length - 1; k >= 0; k--) {
      const key = `mcp:${server.server}/${names[k]}`;
      if (pending.delete(key)) entries.set(key, entry(key, "mcp", source, null, NO_OVERRIDES));
    }
  }
  const tools = skill.inline_tools ?? NONE;
  for (let i = tools.length - 1; i >= 0; i--) {
    const key = `${source}/_anon_${i}`;
    if (pending.delete(key)) {
      entries.set(key, entry(key, "inline", source, tools[i]!, NO_OVERRIDES));
    }
  }
  const refs = skill.tool_refs ?? NONE;
  const overrides = skill.overrides;
  for (let j = refs.length - 1; j >= 0; j--) {
    const name = refs[j]!;
    if (pending.delete(name)) {
      entries.set(name, entry(name, "tool_ref", source, null, own(overrides, name)));
    }
  }
}

/** `overrides[name]` of a skill (own keys only), or the shared empty mapping. */
function own(overrides: Skill["overrides"], name: string): ToolOverrides {
  return overrides !== undefined && Object.hasOwn(overrides, name)
    ? overrides[name]!
    : NO_OVERRIDES;
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
