/**
 * Skill dependencies as diagnostics: each skill of a set that cannot
 * activate for its dependencies (a name not available, a cycle, a value
 * that breaks the grammar, or a dependency that cannot activate itself)
 * gets one diagnostic naming the skill and what it lacks. Discovery adds
 * them as warnings to the skills it found; `validate` reports them.
 *
 * @module
 */
import { type DependentSkill, skillsWithDependencies } from "../core/skill_dependencies.ts";
import { describeGap, showCycle } from "../core/skill_requirements.ts";
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
  for (const h of skillsWithDependencies(skills).hidden) {
    const who = JSON.stringify(h.name);
    // A dependency on the cycle reported is said by the cycle already.
    const others = h.blocked_by.filter((n) => h.cycle === null || !h.cycle.includes(n));
    const blocked = others.length === 0
      ? ""
      : `its ${others.length === 1 ? "dependency" : "dependencies"} ${
        others.map((n) => JSON.stringify(n)).join(", ")
      } cannot activate`;
    const lacks = h.missing.length > 0 || h.missing_any.length > 0;
    const code: SkillDiagnosticCode = h.problem !== undefined
      ? "INVALID_DEPENDENCY"
      : h.cycle !== null
      ? "DEPENDENCY_CYCLE"
      : "MISSING_DEPENDENCY";
    const why = [
      h.problem === undefined ? "" : lower(h.problem),
      h.cycle === null ? "" : `its dependencies form a cycle: ${showCycle(h.cycle)}`,
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
