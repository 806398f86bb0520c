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

/**
 * The floor: walk every reachable skill once (lookup plus a visited set), create
 * one plain entry object per declared tool and insert it into a native `Map`.
 * No ordering rule, no cycle or error checks, no freezing.
 */
export function floorResolve(root: Skill, lookup: ReadonlyMap<string, Skill>): Map<string, object> {
  const out = new Map<string, object>();
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
    for (const ref of skill.tool_refs ?? []) out.set(ref, { name: ref, source_skill: skill.name });
    const inline = skill.inline_tools ?? [];
    for (let i = 0; i < inline.length; i++) {
      const key = `${skill.name}/_anon_${i}`;
      out.set(key, { name: key, source_skill: skill.name, inline_tool: inline[i] });
    }
    for (const server of skill.mcp_servers ?? []) {
      for (const tool of server.tools ?? []) {
        const key = `mcp:${server.server}/${tool}`;
        out.set(key, { name: key, source_skill: skill.name });
      }
    }
    for (const path of skill.agent_skills ?? []) {
      const key = `agent_skill:${path}`;
      out.set(key, { name: key, source_skill: skill.name });
    }
  }
  return out;
}

/**
 * The seed's recursion on Immutable.js: memoised per skill (each skill's
 * flattened map computed once and merged into its includers), so it is
 * polynomial, not exponential, on diamonds; depth-first recursion like the seed.
 */
export function immutableResolve(
  root: Skill,
  lookup: ReadonlyMap<string, Skill>,
): ImmutableOrderedMap<string, ResolvedToolEntry> {
  const memo = new Map<string, ImmutableOrderedMap<string, ResolvedToolEntry>>();
  const onPath = new Set<string>();
  function visit(skill: Skill): ImmutableOrderedMap<string, ResolvedToolEntry> {
    const cached = memo.get(skill.name);
    if (cached !== undefined) return cached;
    if (onPath.has(skill.name)) throw new Error(`Cycle at ${skill.name}`);
    onPath.add(skill.name);
    let out = ImmutableOrderedMap<string, ResolvedToolEntry>();
    for (const include of skill.includes ?? []) {
      const child = lookup.get(nameOf(include));
      if (child === undefined) throw new Error(`Unknown ${nameOf(include)}`);
      out = out.merge(visit(child));
    }
    out = out.withMutations((m) => {
      const put = (
        name: string,
        kind: ResolvedToolEntry["kind"],
        inline: ResolvedToolEntry["inline_tool"],
        overrides: ToolOverrides,
      ) =>
        m.set(
          name,
          Object.freeze({
            name,
            kind,
            source_skill: skill.name,
            is_inline: kind === "inline",
            inline_tool: inline,
            overrides,
          }),
        );
      for (const ref of skill.tool_refs ?? []) {
        put(
          ref,
          "tool_ref",
          null,
          skill.overrides && Object.hasOwn(skill.overrides, ref) ? skill.overrides[ref]! : {},
        );
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
    });
    onPath.delete(skill.name);
    memo.set(skill.name, out);
    return out;
  }
  return visit(root);
}
