/**
 * Skill dependencies as diagnostics: each skill of a set that cannot
 * activate for its dependencies (a name not available, a cycle, a value
 * that breaks the grammar, or a dependency that cannot activate itself)
 * gets one diagnostic naming the skill and what it lacks. Discovery adds
 * them as warnings to the skills it found; `validate` reports them.
 *
 * Folder `lib/fs/discovery/` — discovery over roots and what it found: walk, diagnostics, validation.
 *
 * @module
 */
import {
  cyclePlace,
  type DependentSkill,
  skillsWithDependencies,
} from "../../core/catalog/skill_dependencies.ts";
import { describeGap, showCycle } from "../../core/catalog/skill_requirements.ts";
import type { SkillDiagnostic, SkillDiagnosticCode } from "./skill_diagnostic.ts";

/**
 * The dependency diagnostics of a set of skills (all local: one origin).
 *
 * @param skills The skills that can be depended on (what discovery offers, what validate read).
 * @param path Where each skill's diagnostic points (its SKILL.md).
 * @param severity `warning` (discovery: the skill is listed, but will not activate) or `error`.
 * @returns A diagnostic per skill that cannot activate, keyed by the skill object.
 */
export function dependencyDiagnostics<T extends DependentSkill>(
  skills: readonly T[],
  path: (skill: T) => string,
  severity: SkillDiagnostic["severity"],
): Map<T, SkillDiagnostic> {
  const out = new Map<T, SkillDiagnostic>();
  // Each cycle's names once (a skill's own turn of a long cycle is never made).
  const members = new Map<readonly string[], ReadonlySet<string>>();
  for (const h of skillsWithDependencies(skills).hidden) {
    const who = JSON.stringify(h.name);
    const place = cyclePlace(h);
    let onCycle: ReadonlySet<string> | undefined;
    if (place !== undefined) {
      onCycle = members.get(place.cycle);
      if (onCycle === undefined) members.set(place.cycle, onCycle = new Set(place.cycle));
    }
    // A dependency on the cycle reported is said by the cycle already.
    const others = h.blocked_by.filter((n) => onCycle === undefined || !onCycle.has(n));
    const blocked = others.length === 0
      ? ""
      : `its ${others.length === 1 ? "dependency" : "dependencies"} ${
        others.map((n) => JSON.stringify(n)).join(", ")
      } cannot activate`;
    const lacks = h.missing.length > 0 || h.missing_any.length > 0;
    const code: SkillDiagnosticCode = h.problem !== undefined
      ? "INVALID_DEPENDENCY"
      : place !== undefined
      ? "DEPENDENCY_CYCLE"
      : "MISSING_DEPENDENCY";
    const why = [
      h.problem === undefined ? "" : lower(h.problem),
      place === undefined
        ? ""
        : `its dependencies form a cycle: ${showCycle(place.cycle, place.at)}`,
      lacks ? describeGap({ ...h, skill: h.name }) : "",
      blocked,
    ].filter((part) => part !== "").join("; ");
    const missing = [...h.missing, ...h.missing_any];
    out.set(
      h.skill,
      Object.freeze({
        severity,
        code,
        path: path(h.skill),
        line: null,
        column: null,
        message: `Skill ${who} cannot activate: ${why}`,
        ...(code === "MISSING_DEPENDENCY" && missing.length > 0
          ? { missing: Object.freeze(missing) }
          : {}),
      }),
    );
  }
  return out;
}

function lower(message: string): string {
  return message.charAt(0).toLowerCase() + message.slice(1);
}
