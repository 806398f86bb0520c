/**
 * Settling what the scan met: order it (root rank, depth, then path in
 * code-unit order), count each real folder once, and resolve name clashes
 * by precedence — the first of a name wins, every loser is shadowed, and a
 * clash inside one scope is also a conflict, with a `NAME_CONFLICT` warning
 * on the skill used.
 *
 * Folder `lib/fs/discovery/` — discovery over roots and what it found: walk, diagnostics, validation.
 *
 * @module
 */
import type { SafetyFlags } from "../../core/resources/gate.ts";
import type { ResourceClassMap } from "../../core/resources/resource_path.ts";
import { type Found, withBody } from "./_read_skill.ts";
import { compare } from "./_walk.ts";
import {
  type DiscoveredSkill,
  Discovery,
  type DiscoveryFileSystem,
  type NameConflict,
  type ShadowedSkill,
  type SkippedSkill,
} from "./discovery.ts";
import { diagnostic, type SkillDiagnostic } from "./skill_diagnostic.ts";

/**
 * Order what the scan met, count each real folder once and settle name clashes.
 *
 * @param found The skill folders met (sorted in place).
 * @param diagnostics What the scan met; a `SAME_FOLDER` diagnostic is added per repeat.
 * @param fs The file system the scan used.
 * @param load The class mapping and switches bundles are loaded with.
 * @returns The discovery.
 */
export function settle(
  found: Found[],
  diagnostics: SkillDiagnostic[],
  fs: DiscoveryFileSystem,
  load: { resourceClasses: ResourceClassMap; safety: SafetyFlags },
): Discovery {
  found.sort((a, b) => a.rank - b.rank || a.depth - b.depth || compare(a.place.path, b.place.path));
  const byReal = new Map<string, Found>();
  const skills: DiscoveredSkill[] = [];
  const shadowed: ShadowedSkill[] = [];
  const skipped: SkippedSkill[] = [];
  const winners = new Map<string, { skill: DiscoveredSkill; index: number }>();
  const groups = new Map<string, string[]>();
  for (const f of found) {
    const first = byReal.get(f.place.real_path);
    if (first !== undefined) {
      diagnostics.push(
        diagnostic(
          "info",
          "SAME_FOLDER",
          f.place.path,
          `${JSON.stringify(f.place.path)} (scope ${
            JSON.stringify(f.place.scope)
          }) is the skill folder ${JSON.stringify(first.place.path)} (scope ${
            JSON.stringify(first.place.scope)
          }) again; counted once`,
        ),
      );
      continue;
    }
    byReal.set(f.place.real_path, f);
    if (f.skill === null) {
      skipped.push(Object.freeze({ ...f.place, diagnostics: f.diagnostics }));
      continue;
    }
    const skill = f.skill;
    const groupKey = JSON.stringify([skill.scope, skill.name]);
    const group = groups.get(groupKey);
    if (group === undefined) groups.set(groupKey, [skill.path]);
    else group.push(skill.path);
    const winner = winners.get(skill.name);
    if (winner === undefined) {
      winners.set(skill.name, { skill, index: skills.length });
      skills.push(skill);
      continue;
    }
    shadowed.push(Object.freeze(withBody({
      ...skill,
      winner: Object.freeze({ scope: winner.skill.scope, path: winner.skill.path }),
      same_scope: winner.skill.scope === skill.scope,
    }, skill)));
  }
  const conflicts: NameConflict[] = [];
  for (const [key, paths] of groups) {
    if (paths.length < 2) continue;
    const [scope, name] = JSON.parse(key) as [string, string];
    conflicts.push(Object.freeze({ name, scope, paths: Object.freeze(paths) }));
    const winner = winners.get(name)!;
    if (winner.skill.scope !== scope) continue;
    const others = paths.slice(1).map((p) => JSON.stringify(p)).join(", ");
    skills[winner.index] = Object.freeze(withBody({
      ...winner.skill,
      diagnostics: Object.freeze([
        ...winner.skill.diagnostics,
        diagnostic(
          "warning",
          "NAME_CONFLICT",
          winner.skill.skill_md,
          `${paths.length} skills of scope ${JSON.stringify(scope)} are named ${
            JSON.stringify(name)
          }; this one is used, not ${others}`,
        ),
      ]),
    }, winner.skill));
  }
  return new Discovery({ skills, shadowed, conflicts, skipped, diagnostics }, fs, load);
}
