/**
 * Baselines for the resolver benchmark: the floor (the least work any
 * resolver must do) and a resolver built on Immutable.js `OrderedMap`.
 *
 * @module
 */
import { OrderedMap as ImmutableOrderedMap } from "immutable";
import type { ResolvedToolEntry, Skill, SkillInclude, ToolOverrides } from "../mod.ts";

function nameOf(include: SkillInclude): string {
  return typeof include === "string" ? include : include.name;
}

const NONE: ToolOverrides = {};

/** One plain (unfrozen) entry object with the fields of a resolved entry. */
function plain(
  name: string,
  kind: ResolvedToolEntry["kind"],
  source_skill: string,
  inline_tool: ResolvedToolEntry["inline_tool"],
  overrides: ToolOverrides,
): ResolvedToolEntry {
  return { name, kind, source_skill, is_inline: kind === "inline", inline_tool, overrides };
}

/** One plain entry per tool `skill` declares, set into `out` (both floors' only per-tool work). */
function putDeclared(skill: Skill, out: Map<string, ResolvedToolEntry>): void {
  for (const ref of skill.tool_refs ?? []) {
    out.set(ref, plain(ref, "tool_ref", skill.name, null, skill.overrides?.[ref] ?? NONE));
  }
  const inline = skill.inline_tools ?? [];
  for (let i = 0; i < inline.length; i++) {
    const key = `${skill.name}/_anon_${i}`;
    out.set(key, plain(key, "inline", skill.name, inline[i]!, NONE));
  }
  for (const server of skill.mcp_servers ?? []) {
    for (const tool of server.tools ?? []) {
      const key = `mcp:${server.server}/${tool}`;
      out.set(key, plain(key, "mcp", skill.name, null, NONE));
    }
  }
  for (const path of skill.agent_skills ?? []) {
    const key = `agent_skill:${path}`;
    out.set(key, plain(key, "agent_skill", skill.name, null, NONE));
  }
}

/**
 * Floor (a): walk every reachable skill once (lookup plus a visited set), create
 * one plain entry object per declared tool and insert it into a native `Map`.
 * No ordering rule, no cycle or error checks, no freezing.
 */
export function floorResolve(
  root: Skill,
  lookup: ReadonlyMap<string, Skill>,
): Map<string, ResolvedToolEntry> {
  const out = new Map<string, ResolvedToolEntry>();
  const seen = new Set<string>([root.name]);
  const stack: Skill[] = [root];
  while (stack.length > 0) {
    const skill = stack.pop()!;
    for (const include of skill.includes ?? []) {
      const name = nameOf(include);
      if (seen.has(name)) continue;
      seen.add(name);
      stack.push(lookup.get(name)!);
    }
    putDeclared(skill, out);
  }
  return out;
}

/**
 * Floor (b): no walk at all. Given the reachable skills (found beforehand),
 * iterate their declared tools and `Map.set` one plain entry each.
 */
export function floorDeclared(reachable: readonly Skill[]): Map<string, ResolvedToolEntry> {
  const out = new Map<string, ResolvedToolEntry>();
  for (const skill of reachable) putDeclared(skill, out);
  return out;
}

/**
 * The same linear algorithm as `resolveTools` (one post-order walk fixing
 * first positions, one reversed walk finding last writers), with Immutable.js
 * `OrderedMap` (`withMutations`) as the ordered map instead of ours.
 */
export function immutableResolve(
  root: Skill,
  lookup: ReadonlyMap<string, Skill>,
): ImmutableOrderedMap<string, ResolvedToolEntry> {
  // Post-order walk, each skill once.
  const done = new Set<string>();
  const onPath = new Set<string>([root.name]);
  const post: Skill[] = [];
  const stack: { skill: Skill; next: number }[] = [{ skill: root, next: 0 }];
  while (stack.length > 0) {
    const frame = stack[stack.length - 1]!;
    const includes = frame.skill.includes ?? [];
    if (frame.next === includes.length) {
      stack.pop();
      onPath.delete(frame.skill.name);
      done.add(frame.skill.name);
      post.push(frame.skill);
      continue;
    }
    const name = nameOf(includes[frame.next++]!);
    if (done.has(name)) continue;
    if (onPath.has(name)) throw new Error(`Cycle at ${name}`);
    const child = lookup.get(name);
    if (child === undefined) throw new Error(`Unknown ${name}`);
    onPath.add(name);
    stack.push({ skill: child, next: 0 });
  }
  const own = (skill: Skill, reversed: boolean): [string, ResolvedToolEntry][] => {
    const out: [string, ResolvedToolEntry][] = [];
    const put = (
      name: string,
      kind: ResolvedToolEntry["kind"],
      inline: ResolvedToolEntry["inline_tool"],
      overrides: ToolOverrides,
    ) =>
      out.push([
        name,
        Object.freeze({
          name,
          kind,
          source_skill: skill.name,
          is_inline: kind === "inline",
          inline_tool: inline,
          overrides,
        }),
      ]);
    for (const ref of skill.tool_refs ?? []) {
      put(ref, "tool_ref", null, skill.overrides?.[ref] ?? {});
    }
    (skill.inline_tools ?? []).forEach((tool, i) =>
      put(`${skill.name}/_anon_${i}`, "inline", tool, {})
    );
    for (const server of skill.mcp_servers ?? []) {
      for (const tool of server.tools ?? []) put(`mcp:${server.server}/${tool}`, "mcp", null, {});
    }
    for (const path of skill.agent_skills ?? []) {
      put(`agent_skill:${path}`, "agent_skill", null, {});
    }
    return reversed ? out.reverse() : out;
  };
  const settled = new Set<string>();
  return ImmutableOrderedMap<string, ResolvedToolEntry>().withMutations((m) => {
    for (const skill of post) for (const [key, entry] of own(skill, false)) m.set(key, entry);
    const entered = new Set<string>();
    const back: Skill[] = [root];
    while (back.length > 0) {
      const skill = back.pop()!;
      if (entered.has(skill.name)) continue;
      entered.add(skill.name);
      for (const [key, entry] of own(skill, true)) {
        if (settled.has(key)) continue;
        settled.add(key);
        m.set(key, entry);
      }
      for (const include of skill.includes ?? []) back.push(lookup.get(nameOf(include))!);
    }
  });
}
