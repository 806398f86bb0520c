/**
 * Where `skillset activate` finds the skills a skill depends on: under the
 * `--root scope=path` roots given (or the config's), else beside the skill
 * (its parent folder, scanned as `list` scans a folder). The skill itself
 * comes first, so its own name always means the folder being activated.
 * A skill that declares no dependency costs no scan.
 *
 * Folder `lib/cli/catalog/` — the commands that show skills: resolve, activate, list, search, stats.
 *
 * @module
 */
import { dirname } from "node:path";
import {
  type DependentSkill,
  type SkillDependencies,
  skillDependencies,
} from "../../core/catalog/skill_dependencies.ts";
import { declaresSkillRequirements } from "../../core/catalog/skill_requirements.ts";
import { discoverSkills } from "../../fs/discovery/discover.ts";
import type { Discovery } from "../../fs/discovery/discovery.ts";
import type { LoadedSkill } from "../../fs/load/skill_folder.ts";
import { type DiscoveryFlags, rootOf } from "../_discovery.ts";

/**
 * The dependency resolver for activating `skill`, or `undefined` when it declares no dependency.
 *
 * @param skill The skill being activated.
 * @param rootFlags The values of `--root` (none: the skill's parent folder).
 * @param load The class mapping and switches.
 * @param keep Which skills discovered there may satisfy a dependency (default: all).
 * @returns The resolver over the skill and the skills discovered there.
 * @throws {UsageError} When a `--root` value is not `scope=path`.
 */
export function activationDependencies(
  skill: LoadedSkill,
  rootFlags: readonly string[],
  load: DiscoveryFlags,
  keep?: (skill: DependentSkill) => boolean,
): SkillDependencies | undefined {
  const found = dependencyDiscovery(skill, rootFlags, load);
  if (found === undefined) return undefined;
  const usable = keep === undefined ? found.skills : found.skills.filter(keep);
  return skillDependencies([skill, ...usable]);
}

/**
 * The skills `activate` finds a skill's dependencies among (for a caller that
 * checks their trust first), or `undefined` when it declares none.
 *
 * @param skill The skill being activated.
 * @param rootFlags The values of `--root` (none: the skill's parent folder).
 * @param load The class mapping and switches.
 * @returns The discovery of those roots.
 * @throws {UsageError} When a `--root` value is not `scope=path`.
 */
export function dependencyDiscovery(
  skill: LoadedSkill,
  rootFlags: readonly string[],
  load: DiscoveryFlags,
): Discovery | undefined {
  if (!declaresSkillRequirements(skill.frontmatter.metadata)) return undefined;
  return neighbours(skill, rootFlags, load);
}

/**
 * The skills found where a skill's dependencies are looked for: under the
 * `--root` roots given, else beside it.
 *
 * @param skill The skill being activated.
 * @param rootFlags The values of `--root` (none: the skill's parent folder).
 * @param load The class mapping and switches.
 * @returns What discovery found there.
 * @throws {UsageError} When a `--root` value is not `scope=path`.
 */
export function neighbours(
  skill: LoadedSkill,
  rootFlags: readonly string[],
  load: DiscoveryFlags,
): Discovery {
  const roots = rootFlags.length > 0
    ? rootFlags.map(rootOf)
    : [{ scope: "siblings", path: dirname(skill.location) }];
  return discoverSkills(roots, { ...load, conventionalRoots: true });
}
