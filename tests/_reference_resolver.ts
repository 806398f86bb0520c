/**
 * The seed's algorithm, written as plainly as possible: recursion that
 * re-resolves a shared include every time it is reached. It is the definition
 * of the result, used only as the test oracle.
 *
 * @module
 */
import {
  type ResolvedToolEntry,
  type Skill,
  SkillCycleError,
  SkillResolutionError,
} from "../mod.ts";

type Lookup = (name: string) => Skill | undefined;

/** Every write of the naive algorithm, in order. */
export function referenceWriteLog(root: Skill, lookup: Lookup): ResolvedToolEntry[] {
  const log: ResolvedToolEntry[] = [];

  function write(
    name: string,
    kind: ResolvedToolEntry["kind"],
    skill: Skill,
    inline: ResolvedToolEntry["inline_tool"],
    overrides: ResolvedToolEntry["overrides"],
  ): void {
    log.push({
      name,
      kind,
      source_skill: skill.name,
      is_inline: kind === "inline",
      inline_tool: inline,
      overrides,
    });
  }

  function visit(skill: Skill, path: string[]): void {
    // 1. cycle check against the current path
    if (path.includes(skill.name)) throw new SkillCycleError([...path, skill.name]);
    const here = [...path, skill.name];
    // 2. includes, depth-first, in declaration order
    for (const include of skill.includes ?? []) {
      const name = typeof include === "string" ? include : include.name;
      const child = lookup(name);
      const trail = [...here, name].join(" -> ");
      if (child === undefined) {
        throw new SkillResolutionError(
          "UNKNOWN_SKILL",
          `Unknown skill "${name}" included by "${skill.name}" (path: ${trail})`,
          [...here, name],
        );
      }
      if (child.name !== name) {
        throw new SkillResolutionError(
          "NAME_MISMATCH",
          `Lookup answered "${name}" with a skill named "${child.name}" (path: ${trail})`,
          [...here, name],
        );
      }
      visit(child, here);
    }
    // 3. tool refs, with the skill's own overrides
    for (const ref of skill.tool_refs ?? []) {
      const overrides = skill.overrides !== undefined && Object.hasOwn(skill.overrides, ref)
        ? skill.overrides[ref]!
        : {};
      write(ref, "tool_ref", skill, null, overrides);
    }
    // 4. inline tools
    (skill.inline_tools ?? []).forEach((tool, i) => {
      write(`${skill.name}/_anon_${i}`, "inline", skill, tool, {});
    });
    // 5. MCP servers with an explicit tool list
    for (const server of skill.mcp_servers ?? []) {
      for (const tool of server.tools ?? []) {
        write(`mcp:${server.server}/${tool}`, "mcp", skill, null, {});
      }
    }
    // 6. Agent Skill folders
    for (const path of skill.agent_skills ?? []) {
      write(`agent_skill:${path}`, "agent_skill", skill, null, {});
    }
  }

  visit(root, []);
  return log;
}

/** The seed's result: the writes folded into a Map (first position, last value). */
export function referenceResolve(root: Skill, lookup: Lookup): ResolvedToolEntry[] {
  const out = new Map<string, ResolvedToolEntry>();
  for (const entry of referenceWriteLog(root, lookup)) out.set(entry.name, entry);
  return [...out.values()];
}
