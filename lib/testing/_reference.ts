/**
 * The references the property suites compare against: the seed's resolution
 * algorithm written as plainly as possible (recursion that re-resolves a
 * shared include every time it is reached), and the path rules of SPEC §4
 * written segment by segment. They are definitions, not fast code: the
 * recursion is exponential on diamonds and overflows the stack on deep
 * chains.
 *
 * Folder `lib/testing/` — the testing kit behind `lib/testing.ts`: arbitraries, references, laws.
 *
 * @module
 */
import { SkillCycleError, SkillResolutionError } from "../core/errors.ts";
import type { ResolvedToolEntry } from "../core/resolver/resolved_tools.ts";
import type { Skill } from "../core/resolver/skill.ts";

/** A lookup the reference accepts: a map or a function of the skill name. */
export type ReferenceLookup = ReadonlyMap<string, Skill> | ((name: string) => Skill | undefined);

/**
 * Every write of the naive algorithm, in order: the seed's six steps per
 * skill, includes resolved depth-first each time they are reached.
 *
 * @param root The skill to resolve.
 * @param lookup The other skills by name.
 * @returns The writes, one entry per write (a key may be written many times).
 * @throws {SkillCycleError} When an include cycle is reachable from `root`.
 * @throws {SkillResolutionError} When an include is unknown (`UNKNOWN_SKILL`) or the lookup answers with another skill (`NAME_MISMATCH`).
 * @example
 * ```ts
 * import { referenceWriteLog } from "../testing.ts";
 * import { assert } from "../core/_assert.ts";
 *
 * const log = referenceWriteLog(
 *   { name: "a/root", includes: ["a/x"], tool_refs: ["read"] },
 *   new Map([["a/x", { name: "a/x", tool_refs: ["read"] }]]),
 * );
 * assert.deepEqual(log.map((w) => w.source_skill), ["a/x", "a/root"]);
 * ```
 */
export function referenceWriteLog(root: Skill, lookup: ReferenceLookup): ResolvedToolEntry[] {
  const find = typeof lookup === "function" ? lookup : (name: string) => lookup.get(name);
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
      const child = find(name);
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

/**
 * The seed's result: the writes of {@linkcode referenceWriteLog} folded into
 * a `Map`, so a key keeps its first position and takes its last metadata.
 *
 * @param root The skill to resolve.
 * @param lookup The other skills by name.
 * @returns The resolved entries in order.
 * @throws {SkillCycleError} When an include cycle is reachable from `root`.
 * @throws {SkillResolutionError} When an include is unknown or mismatched.
 * @example
 * ```ts
 * import { referenceResolve } from "../testing.ts";
 * import { assert } from "../core/_assert.ts";
 *
 * const entries = referenceResolve(
 *   { name: "a/root", includes: ["a/x"], tool_refs: ["read"] },
 *   new Map([["a/x", { name: "a/x", tool_refs: ["read", "write"] }]]),
 * );
 * assert.deepEqual(entries.map((e) => [e.name, e.source_skill]), [["read", "a/root"], ["write", "a/x"]]);
 * ```
 */
export function referenceResolve(root: Skill, lookup: ReferenceLookup): ResolvedToolEntry[] {
  const out = new Map<string, ResolvedToolEntry>();
  for (const entry of referenceWriteLog(root, lookup)) out.set(entry.name, entry);
  return [...out.values()];
}

/**
 * SPEC §4's path rules, written plainly: the normalised path, or why the
 * path is refused. Independent of `normalizeResourcePath`, which the tests
 * compare with it.
 *
 * @param path A path relative to a skill folder.
 * @returns `{ ok: true, path }` with the normalised path, or `{ ok: false }`.
 * @example
 * ```ts
 * import { referenceNormalize } from "../testing.ts";
 * import { assert } from "../core/_assert.ts";
 *
 * assert.deepEqual(referenceNormalize("./assets//a.png"), { ok: true, path: "assets/a.png" });
 * assert.deepEqual(referenceNormalize("assets/.."), { ok: false });
 * ```
 */
export function referenceNormalize(
  path: string,
): { readonly ok: true; readonly path: string } | { readonly ok: false } {
  const refused = { ok: false } as const;
  if (path === "" || path.startsWith("/") || path.includes("\\")) return refused;
  for (const char of path) {
    const code = char.codePointAt(0)!;
    if (code <= 0x1f || (code >= 0x7f && code <= 0x9f)) return refused;
  }
  const kept: string[] = [];
  for (const segment of path.split("/")) {
    if (segment === "..") return refused;
    if (segment !== "" && segment !== ".") kept.push(segment);
  }
  const isDrive = (s: string | undefined) => s !== undefined && /^[A-Za-z]:/.test(s);
  if (kept.length === 0 || isDrive(path) || isDrive(kept[0])) return refused;
  return { ok: true, path: kept.join("/") };
}
