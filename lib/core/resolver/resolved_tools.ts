/**
 * What include resolution returns — one entry per tool, keyed by name — and
 * the summary of what such a tool set can do.
 *
 * Folder `lib/core/resolver/` — the skill model and the resolver: ordered maps, the include graph, tool sets.
 *
 * @module
 */
import type { OrderedMap } from "./ordered_map.ts";
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

const NONE: readonly never[] = Object.freeze([]);

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
 * import { computeCapabilitySummary } from "./resolved_tools.ts";
 * import { resolveTools } from "./resolve.ts";
 * import { assert } from "../_assert.ts";
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
