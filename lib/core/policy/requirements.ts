/**
 * Tool requirements: a skill may say in its `metadata` which tools it needs
 * (`requires-tools: "Bash Read"`: all of them; `requires-any-tools: "Grep
 * Search"`: at least one), written in the `allowed-tools` grammar (a pattern
 * is ignored: `Bash(git:*)` needs `Bash`; a `*` in a name matches any
 * available tool). A host hides the skills whose tools it lacks, rather than
 * showing them to the model and failing later.
 *
 * Folder `lib/core/policy/` — the tool policy: allowed-tools patterns, the shell grammar, decisions.
 *
 * @module
 */
import { compileGlob } from "./_glob.ts";
import { parseAllowedTools } from "./allowed_tools.ts";

/** The metadata keys read. */
const ALL = "requires-tools";
const ANY = "requires-any-tools";

/** What a skill needs (frozen). */
export interface ToolRequirements {
  /** Every one of these (`requires-tools`), in order, each once. */
  readonly all: readonly string[];
  /** At least one of these (`requires-any-tools`), in order, each once; empty for none. */
  readonly any: readonly string[];
}

/** A skill as {@linkcode skillsAvailable} reads it: its name and frontmatter metadata. */
export interface RequiringSkill {
  /** The skill's name. */
  readonly name: string;
  /** Its frontmatter (a bundle's or a discovered skill's). */
  readonly frontmatter: { readonly metadata?: Readonly<Record<string, string>> };
}

/** A skill left out, and why (frozen). */
export interface HiddenSkill<T> {
  /** The skill as given. */
  readonly skill: T;
  /** Its name. */
  readonly name: string;
  /** The `requires-tools` not available, in order. */
  readonly missing: readonly string[];
  /** The whole `requires-any-tools` list when none of it is available; otherwise empty. */
  readonly missing_any: readonly string[];
  /** When a requirement could not be read: the parser's message (the skill is hidden). */
  readonly problem?: string;
}

/** What {@linkcode skillsAvailable} returns (frozen). */
export interface SkillAvailability<T> {
  /** The skills whose requirements are met, in the given order. */
  readonly available: readonly T[];
  /** The others, in the given order. */
  readonly hidden: readonly HiddenSkill<T>[];
}

/**
 * Read a skill's tool requirements from its frontmatter metadata.
 *
 * @param metadata The frontmatter's `metadata` (absent: no requirement).
 * @returns The required tools.
 * @throws {AllowedToolsError} When a value breaks the grammar; the message
 *   names the column in that value.
 * @example
 * ```ts
 * import { toolRequirements } from "./requirements.ts";
 * import { assert } from "../_assert.ts";
 *
 * assert.deepEqual(
 *   toolRequirements({ "requires-tools": "Bash(git:*) Read", "requires-any-tools": "Grep, Search" }),
 *   { all: ["Bash", "Read"], any: ["Grep", "Search"] },
 * );
 * ```
 */
export function toolRequirements(
  metadata: Readonly<Record<string, string>> | undefined,
): ToolRequirements {
  return Object.freeze({ all: readKey(metadata, ALL), any: readKey(metadata, ANY) });
}

function readKey(
  metadata: Readonly<Record<string, string>> | undefined,
  key: string,
): readonly string[] {
  if (metadata === undefined || !Object.hasOwn(metadata, key)) return Object.freeze([]);
  const value = metadata[key];
  return Object.freeze([...new Set(parseAllowedTools(value as string).map((e) => e.tool))]);
}

/**
 * Split a catalog into the skills a runtime can serve and those it cannot:
 * a skill is hidden when a `requires-tools` entry is not available, or none of
 * its `requires-any-tools` is, or a requirement does not parse (the problem
 * says where).
 *
 * @param skills The skills (bundles, discovered skills, or `{ name, frontmatter }`).
 * @param availableTools The names of the tools the runtime offers.
 * @returns The available skills and the hidden ones with what they miss, in order.
 * @example
 * ```ts
 * import { skillsAvailable } from "./requirements.ts";
 * import { assert } from "../_assert.ts";
 *
 * const skills = [
 *   { name: "pdf", frontmatter: {} },
 *   { name: "release", frontmatter: { metadata: { "requires-tools": "Bash Read" } } },
 * ];
 * const { available, hidden } = skillsAvailable(skills, ["Read"]);
 * assert.deepEqual(available.map((s) => s.name), ["pdf"]);
 * assert.deepEqual(hidden.map((h) => [h.name, h.missing]), [["release", ["Bash"]]]);
 * ```
 */
export function skillsAvailable<T extends RequiringSkill>(
  skills: Iterable<T>,
  availableTools: Iterable<string>,
): SkillAvailability<T> {
  const tools = new Set<string>();
  for (const t of availableTools) {
    if (typeof t !== "string") throw new TypeError("availableTools must be tool names");
    tools.add(t);
  }
  const has = (name: string): boolean => {
    if (tools.has(name)) return true;
    const glob = compileGlob(name);
    if (!glob.wild) return false;
    for (const t of tools) if (glob.matches(t)) return true;
    return false;
  };
  const available: T[] = [];
  const hidden: HiddenSkill<T>[] = [];
  for (const skill of skills) {
    const metadata = skill.frontmatter?.metadata;
    let needs: ToolRequirements | undefined;
    let key = ALL;
    try {
      const all = readKey(metadata, ALL);
      key = ANY;
      needs = { all, any: readKey(metadata, ANY) };
    } catch (e) {
      hidden.push(Object.freeze({
        skill,
        name: skill.name,
        missing: Object.freeze([]),
        missing_any: Object.freeze([]),
        problem: `metadata.${key}: ${(e as Error).message}`,
      }));
      continue;
    }
    const missing = needs.all.filter((t) => !has(t));
    const missingAny = needs.any.length > 0 && !needs.any.some(has) ? needs.any : [];
    if (missing.length === 0 && missingAny.length === 0) available.push(skill);
    else {
      hidden.push(Object.freeze({
        skill,
        name: skill.name,
        missing: Object.freeze(missing),
        missing_any: Object.freeze([...missingAny]),
      }));
    }
  }
  return Object.freeze({ available: Object.freeze(available), hidden: Object.freeze(hidden) });
}
