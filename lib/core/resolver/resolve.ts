/**
 * Include resolution (SPEC §3): a skill's tool set flattened into one ordered,
 * de-duplicated list, exactly as the seed's recursive algorithm defines it, in
 * linear time and without recursion. The include graph is walked and checked
 * first (`_include_walk.ts`); then a forward pass fixes every key's position
 * and a backward pass finds the last writer of each repeated key. The result's
 * types and its capability summary are in `resolved_tools.ts`.
 *
 * Folder `lib/core/resolver/` — the skill model and the resolver: ordered maps, the include graph, tool sets.
 *
 * @module
 */
import { changed, isObject, isString, NONE, reverseOrder, walkIncludes } from "./_include_walk.ts";
import { adopt } from "./ordered_map.ts";
import {
  type CapabilitySummary,
  computeCapabilitySummary,
  type ResolvedToolEntry,
  type ResolvedToolKind,
  type ResolvedTools,
} from "./resolved_tools.ts";
import type { InlineTool, Skill, ToolOverrides } from "./skill.ts";

/**
 * Where included skills are found: a map, a plain record (own keys only), or a
 * function returning `undefined` for an unknown name.
 */
export type SkillLookup =
  | ReadonlyMap<string, Skill>
  | Readonly<Record<string, Skill>>
  | ((name: string) => Skill | undefined | null);

const NO_OVERRIDES: ToolOverrides = Object.freeze({});

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
 * import { assert } from "../_assert.ts";
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
 * import { resolveTools, SkillCycleError } from "../../../mod.ts";
 * import { assert } from "../_assert.ts";
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
