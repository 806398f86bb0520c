/**
 * One rule for who may see and use a skill, on every surface: the prompt
 * block, the skill tool, `skill_search`, activation by the model or by the
 * user, reads of its files, runs of its scripts, served MCP resources and
 * other skills' dependencies. Each surface asks {@linkcode skillAccess} with
 * the skill's mode, its trust and whether the user or the host activated it,
 * so no surface decides on its own. The rule as a table is in
 * `docs/large-libraries.md` ("Who may see and use a skill"); a test walks
 * that table against the real surfaces.
 *
 * - A skill that is not trusted (`unapproved`: approvals are in use and it
 *   is not approved as it is; `unlocked`: a lockfile is in use and it is not
 *   in it as it is) is on no surface: not even as another skill's dependency,
 *   so its name never reaches the model.
 * - `disabled` is on no surface.
 * - `manual` is not offered to the model (catalog, skill tool, search) and
 *   the model cannot activate it; the user or the host can. Its files, its
 *   scripts and its place in another skill's dependencies open only once the
 *   user or the host activated it. Its served resources stay published: the
 *   MCP client reading them is the host, which activates by name.
 * - `pinned`, `auto` and `name-only` are on every surface.
 *
 * Folder `lib/core/catalog/` — the prompt catalog: budget, modes, usage ranking, requirements, dependencies.
 *
 * @module
 */
import { type ModedSkill, type SkillMode, skillMode, type SkillModes } from "./skill_modes.ts";

/** A place where a skill can reach the model, or be used on its behalf. */
export type SkillSurface =
  /** Listed in the prompt block (`renderSkillCatalog`, `to-prompt`). */
  | "catalog"
  /** Named in the skill tool's description and enum. */
  | "skill-tool"
  /** Found by `skill_search`. */
  | "search"
  /** Activated on the model's call of the skill tool. */
  | "model-activation"
  /** Activated when the user or the host names it. */
  | "user-activation"
  /** Its bundled files read through the skill tool. */
  | "files"
  /** Its scripts run by `run_skill_script`. */
  | "scripts"
  /** Published as MCP resources by `serveSkills` (read by the MCP client, a host). */
  | "resources"
  /** Satisfies another skill's `requires-skills` or `requires-any-skills`. */
  | "dependency";

/** Every surface, in the order of the docs' table. */
export const SKILL_SURFACES: readonly SkillSurface[] = Object.freeze([
  "catalog",
  "skill-tool",
  "search",
  "model-activation",
  "user-activation",
  "files",
  "scripts",
  "resources",
  "dependency",
]);

/**
 * Whether the host's trust checks pass for a skill: `trusted` when none are
 * in use or it passes them all; `unapproved` when approvals are in use and it
 * is not approved as it is; `unlocked` when a lockfile is in use and it is
 * not locked as it is.
 */
export type SkillTrust = "trusted" | "unapproved" | "unlocked";

/** Every trust state, in the order of the docs' table. */
export const SKILL_TRUSTS: readonly SkillTrust[] = Object.freeze([
  "trusted",
  "unapproved",
  "unlocked",
]);

/** What {@linkcode skillAccess} decides from. */
export interface SkillAccessState {
  /** The skill's mode (`skillMode`). */
  readonly mode: SkillMode;
  /** Whether the host's trust checks pass; default `trusted`. */
  readonly trust?: SkillTrust;
  /** Whether the user or the host activated it (in this conversation); default false. */
  readonly activated?: boolean;
}

/**
 * Whether a skill may appear on, or be used through, a surface.
 *
 * @param surface The surface asking.
 * @param state The skill's mode, trust and whether the user or host activated it.
 * @returns True when the surface may show or use it.
 * @throws {RangeError} For a surface, mode or trust that does not exist.
 * @example
 * ```ts
 * import { skillAccess } from "./skill_access.ts";
 * import { assert } from "../_assert.ts";
 *
 * assert.equal(skillAccess("catalog", { mode: "auto" }), true);
 * assert.equal(skillAccess("catalog", { mode: "manual" }), false);
 * assert.equal(skillAccess("user-activation", { mode: "manual" }), true);
 * assert.equal(skillAccess("scripts", { mode: "manual" }), false);
 * assert.equal(skillAccess("scripts", { mode: "manual", activated: true }), true);
 * assert.equal(skillAccess("dependency", { mode: "auto", trust: "unapproved" }), false);
 * ```
 */
export function skillAccess(surface: SkillSurface, state: SkillAccessState): boolean {
  if (!SKILL_SURFACES.includes(surface)) {
    throw new RangeError(`Unknown surface ${JSON.stringify(String(surface))}`);
  }
  const trust = state.trust ?? "trusted";
  if (!SKILL_TRUSTS.includes(trust)) {
    throw new RangeError(`Unknown trust ${JSON.stringify(String(trust))}`);
  }
  if (trust !== "trusted") return false;
  switch (state.mode) {
    case "pinned":
    case "auto":
    case "name-only":
      return true;
    case "disabled":
      return false;
    case "manual":
      return MANUAL.get(surface) ?? state.activated === true;
    default:
      throw new RangeError(`Unknown mode ${JSON.stringify(String(state.mode))}`);
  }
}

/**
 * A `manual` skill per surface: open, closed, or (absent) open once the user
 * or the host activated it.
 */
const MANUAL: ReadonlyMap<SkillSurface, boolean> = new Map<SkillSurface, boolean>([
  ["catalog", false],
  ["skill-tool", false],
  ["search", false],
  ["model-activation", false],
  ["user-activation", true],
  ["resources", true],
]);

/**
 * Whether a mode lets the model see the skill (in the catalog and the skill
 * tool): {@linkcode skillAccess} for the `catalog` surface.
 *
 * @param mode A mode.
 * @returns True for `auto`, `pinned` and `name-only`.
 * @example
 * ```ts
 * import { offeredToModel } from "./skill_access.ts";
 * import { assert } from "../_assert.ts";
 *
 * assert.deepEqual(
 *   (["pinned", "auto", "name-only", "manual", "disabled"] as const).map(offeredToModel),
 *   [true, true, true, false, false],
 * );
 * ```
 */
export function offeredToModel(mode: SkillMode): boolean {
  return skillAccess("catalog", { mode });
}

/**
 * Which skills the user or host activated: a set or list of names, or a
 * function (`undefined`/false: not activated).
 */
export type ActivatedSkills = ReadonlySet<string> | ((name: string) => boolean | undefined);

/**
 * Whether a skill is among the activated ones.
 *
 * @param activated The host's activated skills, if any.
 * @param name The skill's name.
 * @returns True when it was activated.
 */
export function wasActivated(activated: ActivatedSkills | undefined, name: string): boolean {
  if (activated === undefined) return false;
  if (typeof activated === "function") return activated(name) === true;
  return typeof activated.has === "function" && activated.has(name);
}

/**
 * Whether a skill may satisfy a dependency of the skill `of` being activated
 * (which always counts for itself): {@linkcode skillAccess} for the
 * `dependency` surface with the skill's mode and whether the user or host
 * activated it. Every resolver a surface builds keeps only such skills.
 *
 * @param skill The candidate (its frontmatter may make it `manual`).
 * @param of The name of the skill being activated.
 * @param modes The host's modes, if any.
 * @param activated The skills the user or host activated, if any.
 * @returns True when it may satisfy the dependency.
 * @example
 * ```ts
 * import { mayBeDependency } from "./skill_access.ts";
 * import { assert } from "../_assert.ts";
 *
 * const ocr = { name: "ocr", frontmatter: { "disable-model-invocation": true } };
 * assert.equal(mayBeDependency(ocr, "pdf"), false);
 * assert.equal(mayBeDependency(ocr, "pdf", undefined, new Set(["ocr"])), true);
 * assert.equal(mayBeDependency({ name: "ocr" }, "pdf", new Map([["ocr", "disabled"]])), false);
 * ```
 */
export function mayBeDependency(
  skill: ModedSkill,
  of: string,
  modes?: SkillModes,
  activated?: ActivatedSkills,
): boolean {
  if (skill.name === of) return true;
  return skillAccess("dependency", {
    mode: skillMode(skill, modes),
    activated: wasActivated(activated, skill.name),
  });
}
