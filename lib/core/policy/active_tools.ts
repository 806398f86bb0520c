/**
 * Skill-scoped tools: the tools a host exposes while a set of skills is
 * active, as one ordered, de-duplicated list across the skills.
 *
 * Folder `lib/core/policy/` — the tool policy: allowed-tools patterns, the shell grammar, decisions.
 *
 * @module
 */
import { SkillResolutionError } from "../errors.ts";
import { adopt } from "../resolver/ordered_map.ts";
import { resolveTools, type SkillLookup } from "../resolver/resolve.ts";
import type { ResolvedToolEntry, ResolvedTools } from "../resolver/resolved_tools.ts";
import type { Skill } from "../resolver/skill.ts";

/**
 * The union of the active skills' resolved tool sets, with the resolver's
 * rule carried across skills in activation order: a tool keeps the position
 * where it first appeared and takes the metadata of the last active skill
 * that brings it. For a host that exposes a skill's tools only while it is
 * active.
 *
 * @param active The active skills, in activation order: skills, or names found in `lookup`.
 * @param lookup Where names and includes are found.
 * @returns The entries keyed by name, in order (frozen).
 * @throws {SkillResolutionError} `UNKNOWN_SKILL` for an active name `lookup`
 *   does not know, and whatever {@linkcode resolveTools} throws for a skill.
 * @throws {TypeError} When an active item is neither a skill nor a name.
 * @example
 * ```ts
 * import { toolsForActiveSkills } from "./active_tools.ts";
 * import { assert } from "../_assert.ts";
 *
 * const catalog = new Map([
 *   ["local/git", { name: "local/git", tool_refs: ["git_log", "read_file"] }],
 *   ["local/pdf", { name: "local/pdf", tool_refs: ["read_file", "fill_form"] }],
 * ]);
 * const tools = toolsForActiveSkills(["local/git", "local/pdf"], catalog);
 * assert.deepEqual([...tools.keys()], ["git_log", "read_file", "fill_form"]);
 * assert.equal(tools.get("read_file")?.source_skill, "local/pdf");
 * ```
 */
export function toolsForActiveSkills(
  active: Iterable<Skill | string>,
  lookup: SkillLookup,
): ResolvedTools {
  const find = typeof lookup === "function"
    ? lookup
    : typeof (lookup as ReadonlyMap<string, Skill>)?.get === "function"
    ? (name: string) => (lookup as ReadonlyMap<string, Skill>).get(name)
    : (name: string) =>
      typeof lookup === "object" && lookup !== null && Object.hasOwn(lookup, name)
        ? (lookup as Readonly<Record<string, Skill>>)[name]
        : undefined;
  const out = new Map<string, ResolvedToolEntry>();
  for (const item of active) {
    let skill: Skill | undefined | null;
    if (typeof item === "string") {
      skill = find(item);
      if (skill === undefined || skill === null) {
        throw new SkillResolutionError(
          "UNKNOWN_SKILL",
          `Unknown skill ${JSON.stringify(item)} among the active skills`,
          [item],
        );
      }
    } else if (typeof item === "object" && item !== null) skill = item;
    else throw new TypeError("Each active skill must be a skill or a name");
    // Map.set keeps a key's first position and takes the new value: the rule itself.
    for (const [name, entry] of resolveTools(skill, lookup)) out.set(name, entry);
  }
  return adopt(out);
}
