/**
 * Checks of `validate` for the skill author's kit: `--max-body-tokens N`
 * counts each SKILL.md body's tokens with a real BPE tokenizer (o200k_base,
 * the `gpt-tokenizer` package) and reports each skill over the budget;
 * `--collisions` reports the pairs of skills whose descriptions are likely to
 * be confused.
 *
 * Folder `lib/cli/eval/` — the skill author's kit: trigger evaluations and confusable descriptions.
 *
 * @module
 */
import nodeModule from "node:module";
import { createSkillIndex } from "../../core/search/skill_index.ts";
import { confusableSkills } from "../../core/search/trigger_eval.ts";
import type { DiscoveredSkill } from "../../fs/discovery/discovery.ts";
import type { Diagnostic } from "../../fs/discovery/validate.ts";

/**
 * The tokens of a text in o200k_base (the encoding of GPT-4o and later).
 *
 * @param text The text.
 * @returns The number of tokens.
 */
export function bodyTokens(text: string): number {
  return (counter ??= loadCounter())(text);
}

let counter: ((text: string) => number) | undefined;

/**
 * The tokenizer, loaded on first use: its tables take a few hundred
 * milliseconds to parse, which every other command would pay at start.
 */
function loadCounter(): (text: string) => number {
  const load = nodeModule.createRequire(import.meta.url);
  return (load("gpt-tokenizer/encoding/o200k_base") as {
    countTokens: (text: string) => number;
  }).countTokens;
}

/**
 * An error for each skill whose SKILL.md body is over `max` tokens.
 *
 * @param skills The skills found (their `body` is read, whole up to the loader's bound).
 * @param max The budget.
 * @param readBody The body of a skill, whole.
 * @returns The diagnostics.
 */
export function bodyBudgetDiagnostics(
  skills: readonly DiscoveredSkill[],
  max: number,
  readBody: (skill: DiscoveredSkill) => string,
): Diagnostic[] {
  const out: Diagnostic[] = [];
  for (const s of skills) {
    const tokens = bodyTokens(readBody(s));
    if (tokens <= max) continue;
    out.push({
      file: s.skill_md,
      severity: "error",
      code: "BODY_OVER_BUDGET",
      message: `The body of skill ${
        JSON.stringify(s.name)
      } is ${tokens} tokens (o200k_base), over the budget of ${max}`,
    });
  }
  return out;
}

/**
 * A warning for each pair of skills likely to be confused, with the terms both matched.
 *
 * @param skills The skills found.
 * @returns The diagnostics.
 */
export function collisionDiagnostics(skills: readonly DiscoveredSkill[]): Diagnostic[] {
  const byName = new Map(skills.map((s) => [s.name, s]));
  return confusableSkills(createSkillIndex(skills), skills).map((p) => ({
    file: byName.get(p.skills[0])!.skill_md,
    severity: "warning" as const,
    code: "CONFUSABLE_DESCRIPTIONS",
    message: `Skills ${JSON.stringify(p.skills[0])} and ${
      JSON.stringify(p.skills[1])
    } have descriptions likely to be confused (shared: ${p.shared.join(", ") || "none"})`,
  }));
}
