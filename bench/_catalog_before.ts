/**
 * The prompt catalog as it was before issue 34 (per-skill modes and the
 * report): `fitSkillCatalog` at commit c84e759, kept as the baseline of
 * `bench/catalog_bench.ts`, so "with modes and the report" is timed against
 * what rendering cost then, in the same run.
 *
 * @module
 */
import { escapeControls, foldDescription } from "../lib/core/_text.ts";
import {
  codePoints as length,
  planFit,
  priorityOrder,
  shorten,
  wholeNumber,
} from "../lib/core/catalog/_fit.ts";
import {
  budgetInCharacters,
  type CatalogSkill,
  DEFAULT_DESCRIPTION_FLOOR,
  type FittedSkillCatalog,
  localizedDescription,
  type SkillCatalogOptions,
} from "../mod.ts";

const DEFAULT_REACH =
  "call the skill tool with a skill name to use one of them (its enum lists every skill)";
const SEARCH_REACH =
  "call the skill_search tool with words from the task to find one of them, then the skill tool with its name";
const OPEN = "<available_skills>\n";
const CLOSE = "</available_skills>";

/** The catalog before issue 34 (no `report`). */
export type FittedBefore = Omit<FittedSkillCatalog, "report">;

/**
 * `fitSkillCatalog` before issue 34.
 *
 * @param skills The skills, highest precedence first.
 * @param options The budget, floor, rank, language and hint.
 * @returns The block, the listed skills, the names left out and the number shortened.
 */
export function fitSkillCatalogBefore(
  skills: Iterable<CatalogSkill>,
  options: SkillCatalogOptions = {},
): FittedBefore {
  const all = [...skills].map(checkSkill);
  const budget = budgetInCharacters(options.budget);
  // At least 1: a shortened description always keeps its "…" mark.
  const floor = Math.max(
    1,
    wholeNumber(options.descriptionFloor, "descriptionFloor") ?? DEFAULT_DESCRIPTION_FLOOR,
  );
  const reach = options.reachHint ?? (options.search === true ? SEARCH_REACH : DEFAULT_REACH);
  const lang = options.lang;
  const shown = all.map((s) => localizedDescription(s, lang));
  const priority = priorityOrder(all.map((s) => s.name), options.rank);
  const full = all.map((s, i) => entry(s, shown[i]!));
  const fullLength = OPEN.length + sum(full.map(length)) + CLOSE.length;
  if (budget === undefined || fullLength <= budget) {
    return result(all, shown, shown, full, [], reach);
  }
  const texts = shown.map((d) => [...d]);
  const plan = planFit({
    count: all.length,
    budget,
    floor,
    priority,
    ranked: options.rank !== undefined,
    fixed: OPEN.length + CLOSE.length,
    entryLength: (i, cap) => length(entry(all[i]!, shorten(texts[i]!, cap))),
    descriptionLength: (i) => texts[i]!.length,
    lineLength: (kept) =>
      kept === all.length ? 0 : length(leftOutLine(all.length - kept, all.length, reach)),
  });
  if (!plan.ok) {
    throw new RangeError(
      `Budget ${budget} is too small for the <available_skills> block: it needs at least ${plan.least} characters`,
    );
  }
  const listed: CatalogSkill[] = [];
  const descriptions: string[] = [];
  const originals: string[] = [];
  const entries: string[] = [];
  const leftOut: string[] = [];
  all.forEach((s, i) => {
    const cap = plan.caps[i];
    if (cap === undefined) {
      leftOut.push(s.name);
      return;
    }
    const d = shorten(texts[i]!, cap);
    listed.push(s);
    descriptions.push(d);
    originals.push(shown[i]!);
    entries.push(entry(s, d));
  });
  return result(listed, originals, descriptions, entries, leftOut, reach, all.length);
}

function result(
  listed: readonly CatalogSkill[],
  originals: readonly string[],
  descriptions: readonly string[],
  entries: readonly string[],
  leftOut: readonly string[],
  reach: string,
  total: number = listed.length,
): FittedBefore {
  const line = leftOut.length === 0 ? "" : leftOutLine(leftOut.length, total, reach);
  const shown = descriptions.map((description, i) => {
    const s = listed[i]!;
    return Object.freeze(
      s.location === undefined
        ? { name: s.name, description }
        : { name: s.name, description, location: s.location },
    );
  });
  return Object.freeze({
    block: `${OPEN}${entries.join("")}${line}${CLOSE}`,
    listed: Object.freeze(shown),
    left_out: Object.freeze([...leftOut]),
    shortened: descriptions.filter((d, i) => d !== originals[i]).length,
  });
}

function entry(skill: CatalogSkill, description: string): string {
  const location = skill.location === undefined
    ? ""
    : `<location>${escapeXml(skill.location)}</location>\n`;
  // Block-scalar descriptions on one line, as skills-ref shows them (folding never lengthens).
  return `<skill>\n<name>${escapeXml(skill.name)}</name>\n<description>${
    escapeXml(foldDescription(description))
  }</description>\n${location}</skill>\n`;
}

function leftOutLine(count: number, total: number, reach: string): string {
  return `<left_out>${count} of ${total} skill${total === 1 ? "" : "s"} left out to fit the ` +
    `prompt budget; ${escapeXml(reach)}</left_out>\n`;
}

/** Escape for XML text, after making control, bidi and line-separator characters visible. */
function escapeXml(text: string): string {
  return escapeControls(text).replace(/[&<>"']/g, (c) => ENTITIES.get(c)!);
}

const ENTITIES: ReadonlyMap<string, string> = new Map([
  ["&", "&amp;"],
  ["<", "&lt;"],
  [">", "&gt;"],
  ['"', "&quot;"],
  ["'", "&apos;"],
]);

function sum(values: readonly number[]): number {
  let total = 0;
  for (const v of values) total += v;
  return total;
}

function checkSkill(skill: CatalogSkill): CatalogSkill {
  if (
    typeof skill !== "object" || skill === null || typeof skill.name !== "string" ||
    typeof skill.description !== "string" ||
    (skill.location !== undefined && typeof skill.location !== "string") ||
    (skill.metadata !== undefined &&
      (typeof skill.metadata !== "object" || skill.metadata === null))
  ) {
    throw new TypeError(
      "Each skill must be { name, description, location?, metadata? } with strings",
    );
  }
  return skill;
}
