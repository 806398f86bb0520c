/**
 * The `<available_skills>` block a runtime puts in its system prompt (SPEC
 * §6), fitted to a budget of characters. Pure: data in, text out.
 *
 * @module
 */
import { escapeControls, foldDescription } from "./_text.ts";
import { codePoints as length, planFit, priorityOrder, shorten, wholeNumber } from "./_fit.ts";

/** A skill as the catalog shows it. */
export interface CatalogSkill {
  /** The skill's name; never cut. */
  readonly name: string;
  /** What it does; shortened first when the budget is tight. */
  readonly description: string;
  /** Where its SKILL.md is, when the model may read it directly. */
  readonly location?: string;
  /** Frontmatter metadata: `description-<lang>` keys hold localised descriptions. */
  readonly metadata?: Readonly<Record<string, string>> | ReadonlyMap<string, string>;
}

/**
 * A budget of characters, or a share of a context window in tokens
 * (characters = `contextTokens × share ×` {@linkcode CHARS_PER_TOKEN}, rounded down).
 */
export type CatalogBudget = number | {
  /** The model's context window, in tokens. */
  readonly contextTokens: number;
  /** The share of it the catalog may take, more than 0 and at most 1 (e.g. 0.02). */
  readonly share: number;
};

/** A score per skill name from the host (e.g. usage counts): the highest keeps most. */
export type SkillRank = ReadonlyMap<string, number> | ((name: string) => number | undefined);

/**
 * Characters per token of a token budget: 4, about right for English text
 * with common tokenizers; text in scripts that take more tokens per character
 * gets less room than the tokens would allow, never more.
 */
export const CHARS_PER_TOKEN = 4;

/** Options of {@linkcode renderSkillCatalog} and {@linkcode fitSkillCatalog}. */
export interface SkillCatalogOptions {
  /**
   * The most characters (Unicode code points) the block may have, or a share
   * of a context window: `{ contextTokens: 200_000, share: 0.02 }` is 16,000
   * characters ({@linkcode CHARS_PER_TOKEN} per token). Default: no limit.
   */
  readonly budget?: CatalogBudget;
  /**
   * A score per skill (e.g. how often each was used): the lowest-ranked lose
   * their descriptions first and are left out first; a skill without a score
   * ranks 0, ties keep the given order. Default: the given order, with every
   * description shortened to one common length.
   */
  readonly rank?: SkillRank;
  /**
   * A BCP 47 tag (`de`, `pt-BR`): each skill's `description-<lang>` metadata
   * is shown where it has one ({@linkcode localizedDescription}).
   */
  readonly lang?: string;
  /**
   * A `skill_search` tool is offered beside the skill tool: the left-out line
   * says to search with it. Default false (the left-out line points to the
   * skill tool's enum).
   */
  readonly search?: boolean;
  /**
   * Descriptions are never shortened below this many characters before
   * skills are left out. Default {@linkcode DEFAULT_DESCRIPTION_FLOOR}.
   */
  readonly descriptionFloor?: number;
  /**
   * How the model can still reach skills that were left out, ending the
   * left-out line. Default: through the `skill` tool, whose enum lists every name.
   */
  readonly reachHint?: string;
}

/** What {@linkcode fitSkillCatalog} did to fit the budget. */
export interface FittedSkillCatalog {
  /** The `<available_skills>` block. */
  readonly block: string;
  /** The skills listed, in order, with the descriptions as shown (unescaped). */
  readonly listed: readonly CatalogSkill[];
  /** The names left out, in the order given (lowest rank first left out, with `rank`). */
  readonly left_out: readonly string[];
  /** How many listed descriptions were shortened. */
  readonly shortened: number;
}

/** The default floor of description shortening, in characters. */
export const DEFAULT_DESCRIPTION_FLOOR = 80;

const DEFAULT_REACH =
  "call the skill tool with a skill name to use one of them (its enum lists every skill)";
const SEARCH_REACH =
  "call the skill_search tool with words from the task to find one of them, then the skill tool with its name";
const OPEN = "<available_skills>\n";
const CLOSE = "</available_skills>";

/**
 * The `<available_skills>` block for the skills, in the order given (put the
 * highest precedence first). Within a budget it degrades predictably: first
 * every description is shortened to the longest common length that fits — cut
 * on a word and marked with `…` — but not below the floor; if that is not
 * enough, skills are left out from the end of the list, and the block ends
 * with a line saying how many were left out and how to still reach them.
 * Names and locations are never cut. With a budget large enough for every
 * skill, the block is the unbudgeted one, byte for byte.
 *
 * @param skills The skills, highest precedence first.
 * @param options The budget, the floor and the hint for left-out skills.
 * @returns The block.
 * @throws {RangeError} When the budget or floor is not a whole number ≥ 0, or
 *   the budget is too small for even the block with every skill left out.
 * @example
 * ```ts
 * import { renderSkillCatalog } from "./skill_catalog.ts";
 * import { assert } from "./_assert.ts";
 *
 * const skills = [
 *   { name: "pdf", description: "Fill in PDF forms & check them" },
 *   { name: "csv", description: "Clean and join CSV files" },
 * ];
 * assert.equal(
 *   renderSkillCatalog(skills),
 *   "<available_skills>\n<skill>\n<name>pdf</name>\n<description>Fill in PDF forms &amp; check them</description>\n</skill>\n" +
 *     "<skill>\n<name>csv</name>\n<description>Clean and join CSV files</description>\n</skill>\n</available_skills>",
 * );
 * const small = renderSkillCatalog(skills, { budget: 200 });
 * assert.ok([...small].length <= 200);
 * assert.ok(small.includes("<left_out>2 of 2 skills left out to fit the prompt budget; call the skill tool"));
 * ```
 */
export function renderSkillCatalog(
  skills: Iterable<CatalogSkill>,
  options: SkillCatalogOptions = {},
): string {
  return fitSkillCatalog(skills, options).block;
}

/**
 * {@linkcode renderSkillCatalog}, with an account of what was shortened and left out.
 *
 * @param skills The skills, highest precedence first.
 * @param options The budget, the floor and the hint for left-out skills.
 * @returns The block, the skills listed, the names left out and the number of shortened descriptions.
 * @throws {RangeError} When the budget or floor is not a whole number ≥ 0, or
 *   the budget is too small for even the block with every skill left out.
 * @example
 * ```ts
 * import { fitSkillCatalog } from "./skill_catalog.ts";
 * import { assert } from "./_assert.ts";
 *
 * const skills = [
 *   { name: "pdf", description: "Fill in PDF forms from structured data, then check every field" },
 *   { name: "csv", description: "Clean and join CSV files" },
 * ];
 * const fit = fitSkillCatalog(skills, { budget: 230, descriptionFloor: 10 });
 * assert.deepEqual(fit.left_out, []);
 * assert.equal(fit.shortened, 1);
 * assert.ok(/^Fill in PDF forms.*…$/.test(fit.listed[0]!.description));
 * ```
 */
export function fitSkillCatalog(
  skills: Iterable<CatalogSkill>,
  options: SkillCatalogOptions = {},
): FittedSkillCatalog {
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

/**
 * A skill's description in a language: the `description-<tag>` metadata
 * value for the tag, or for the tag with its last subtags removed one by one
 * (`pt-BR`, then `pt`), tags compared without regard to case; else the base
 * description.
 *
 * @param skill The description and the frontmatter metadata.
 * @param lang A BCP 47 tag, or `undefined` for the base description.
 * @returns The description to show.
 * @throws {RangeError} When `lang` is not a BCP 47 tag (letters and digits in subtags of 1–8, joined by `-`).
 * @example
 * ```ts
 * import { localizedDescription } from "./skill_catalog.ts";
 * import { assert } from "./_assert.ts";
 *
 * const skill = {
 *   description: "Fill in PDF forms",
 *   metadata: { "description-de": "PDF-Formulare ausfüllen", "description-pt-BR": "Preencher PDFs" },
 * };
 * assert.equal(localizedDescription(skill, "de-AT"), "PDF-Formulare ausfüllen");
 * assert.equal(localizedDescription(skill, "pt-br"), "Preencher PDFs");
 * assert.equal(localizedDescription(skill, "fr"), "Fill in PDF forms");
 * assert.equal(localizedDescription(skill, undefined), "Fill in PDF forms");
 * ```
 */
export function localizedDescription(
  skill: {
    readonly description: string;
    readonly metadata?: Readonly<Record<string, string>> | ReadonlyMap<string, string>;
  },
  lang: string | undefined,
): string {
  if (lang === undefined) return skill.description;
  if (typeof lang !== "string" || !LANGUAGE_TAG.test(lang)) {
    throw new RangeError(`lang must be a BCP 47 language tag, got ${JSON.stringify(String(lang))}`);
  }
  const metadata = skill.metadata;
  if (metadata === undefined || metadata === null) return skill.description;
  const byTag = new Map<string, string>();
  const entries = isMap(metadata) ? metadata.entries() : Object.entries(metadata);
  for (const [key, value] of entries) {
    if (typeof key !== "string" || typeof value !== "string") continue;
    if (!key.toLowerCase().startsWith("description-") || value.trim() === "") continue;
    const tag = key.slice("description-".length).toLowerCase();
    if (!byTag.has(tag)) byTag.set(tag, value);
  }
  const parts = lang.toLowerCase().split("-");
  for (let n = parts.length; n > 0; n--) {
    const found = byTag.get(parts.slice(0, n).join("-"));
    if (found !== undefined) return found;
  }
  return skill.description;
}

/**
 * A catalog budget in characters.
 *
 * @param budget Characters, or `{ contextTokens, share }`; `undefined` or `Infinity` for no limit.
 * @returns The characters, or `undefined` for no limit.
 * @throws {RangeError} When a number is not a whole number ≥ 0, or the share is not in (0, 1].
 * @example
 * ```ts
 * import { budgetInCharacters } from "./skill_catalog.ts";
 * import { assert } from "./_assert.ts";
 *
 * assert.equal(budgetInCharacters({ contextTokens: 200_000, share: 0.02 }), 16_000);
 * assert.equal(budgetInCharacters(8000), 8000);
 * assert.equal(budgetInCharacters(undefined), undefined);
 * ```
 */
export function budgetInCharacters(budget: CatalogBudget | undefined): number | undefined {
  if (budget === undefined || budget === Infinity) return undefined;
  if (typeof budget === "number") return wholeNumber(budget, "budget");
  if (typeof budget !== "object" || budget === null) {
    throw new RangeError(
      `budget must be a number of characters or { contextTokens, share }, got ${String(budget)}`,
    );
  }
  const { contextTokens, share } = budget;
  wholeNumber(contextTokens, "budget.contextTokens");
  if (typeof share !== "number" || !(share > 0 && share <= 1)) {
    throw new RangeError(
      `budget.share must be a number more than 0 and at most 1, got ${String(share)}`,
    );
  }
  return Math.floor(contextTokens * share * CHARS_PER_TOKEN);
}

const LANGUAGE_TAG = /^[A-Za-z]{1,8}(?:-[A-Za-z0-9]{1,8})*$/;

function isMap(value: unknown): value is ReadonlyMap<string, string> {
  return value instanceof Map;
}

function result(
  listed: readonly CatalogSkill[],
  originals: readonly string[],
  descriptions: readonly string[],
  entries: readonly string[],
  leftOut: readonly string[],
  reach: string,
  total: number = listed.length,
): FittedSkillCatalog {
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
