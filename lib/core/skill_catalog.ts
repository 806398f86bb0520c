/**
 * The `<available_skills>` block a runtime puts in its system prompt (SPEC
 * §6), fitted to a budget of characters. Pure: data in, text out.
 *
 * @module
 */
import { escapeControls, foldDescription } from "./_text.ts";

/** A skill as the catalog shows it. */
export interface CatalogSkill {
  /** The skill's name; never cut. */
  readonly name: string;
  /** What it does; shortened first when the budget is tight. */
  readonly description: string;
  /** Where its SKILL.md is, when the model may read it directly. */
  readonly location?: string;
}

/** Options of {@linkcode renderSkillCatalog} and {@linkcode fitSkillCatalog}. */
export interface SkillCatalogOptions {
  /**
   * The most characters (Unicode code points) the block may have. For a token
   * budget, pass about 4 characters per token (`budget: tokens * 4`), less for
   * text in scripts that take more tokens per character. Default: no limit.
   */
  readonly budget?: number;
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
  /** The names left out, in the order given. */
  readonly left_out: readonly string[];
  /** How many listed descriptions were shortened. */
  readonly shortened: number;
}

/** The default floor of description shortening, in characters. */
export const DEFAULT_DESCRIPTION_FLOOR = 80;

const DEFAULT_REACH =
  "call the skill tool with a skill name to use one of them (its enum lists every skill)";
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
  const budget = wholeNumber(options.budget, "budget");
  // At least 1: a shortened description always keeps its "…" mark.
  const floor = Math.max(
    1,
    wholeNumber(options.descriptionFloor, "descriptionFloor") ?? DEFAULT_DESCRIPTION_FLOOR,
  );
  const reach = options.reachHint ?? DEFAULT_REACH;
  const full = all.map((s) => entry(s, s.description));
  const fullLength = OPEN.length + sum(full.map(length)) + CLOSE.length;
  if (budget === undefined || fullLength <= budget) {
    return result(all, all.map((s) => s.description), full, [], reach);
  }
  const texts = all.map((s) => [...s.description]);
  const lineLength = (kept: number): number =>
    kept === all.length ? 0 : length(leftOutLine(all.length - kept, all.length, reach));
  // Every description at the floor: how many skills fit, from the first?
  let atFloor = OPEN.length + CLOSE.length;
  const prefix = [atFloor];
  for (let i = 0; i < all.length; i++) {
    atFloor += length(entry(all[i]!, shorten(texts[i]!, floor)));
    prefix.push(atFloor);
  }
  let kept = all.length;
  while (kept >= 0 && prefix[kept]! + lineLength(kept) > budget) kept--;
  if (kept < 0) {
    let least = Infinity;
    for (let k = 0; k <= all.length; k++) least = Math.min(least, prefix[k]! + lineLength(k));
    throw new RangeError(
      `Budget ${budget} is too small for the <available_skills> block: it needs at least ${least} characters`,
    );
  }
  // Then the largest common cap (at least the floor) with which those skills fit.
  const sizeAt = (cap: number): number => {
    let total = OPEN.length + CLOSE.length + lineLength(kept);
    for (let i = 0; i < kept && total <= budget; i++) {
      total += length(entry(all[i]!, shorten(texts[i]!, cap)));
    }
    return total;
  };
  let low = floor;
  let high = floor;
  for (let i = 0; i < kept; i++) high = Math.max(high, texts[i]!.length);
  while (low < high) {
    const mid = Math.ceil((low + high) / 2);
    if (sizeAt(mid) <= budget) low = mid;
    else high = mid - 1;
  }
  const descriptions = texts.slice(0, kept).map((t) => shorten(t, low));
  const entries = descriptions.map((d, i) => entry(all[i]!, d));
  return result(all, descriptions, entries, all.slice(kept).map((s) => s.name), reach);
}

function result(
  all: readonly CatalogSkill[],
  descriptions: readonly string[],
  entries: readonly string[],
  leftOut: readonly string[],
  reach: string,
): FittedSkillCatalog {
  const line = leftOut.length === 0 ? "" : leftOutLine(leftOut.length, all.length, reach);
  const listed = descriptions.map((description, i) => {
    const s = all[i]!;
    return Object.freeze(
      s.location === undefined
        ? { name: s.name, description }
        : { name: s.name, description, location: s.location },
    );
  });
  return Object.freeze({
    block: `${OPEN}${entries.join("")}${line}${CLOSE}`,
    listed: Object.freeze(listed),
    left_out: Object.freeze([...leftOut]),
    shortened: descriptions.filter((d, i) => d !== all[i]!.description).length,
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

/**
 * The description cut to at most `cap` characters on a word boundary, marked
 * with `…`; unchanged when it fits.
 */
function shorten(chars: readonly string[], cap: number): string {
  if (chars.length <= cap) return chars.join("");
  let end = cap - 1;
  // Back up to the last white space, unless the first word alone is longer than the cap.
  let cut = end;
  while (cut > 0 && !/\s/u.test(chars[cut]!)) cut--;
  if (cut > 0) end = cut;
  while (end > 0 && /\s/u.test(chars[end - 1]!)) end--;
  return `${chars.slice(0, end).join("")}…`;
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

/** Length in code points. */
function length(text: string): number {
  let n = text.length;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0xdc00 && c <= 0xdfff && i > 0) {
      const p = text.charCodeAt(i - 1);
      if (p >= 0xd800 && p <= 0xdbff) n--;
    }
  }
  return n;
}

function sum(values: readonly number[]): number {
  let total = 0;
  for (const v of values) total += v;
  return total;
}

function wholeNumber(value: number | undefined, name: string): number | undefined {
  if (value === undefined) return undefined;
  if (!Number.isSafeInteger(value) || value < 0) {
    throw new RangeError(`${name} must be a whole number of at least 0, got ${String(value)}`);
  }
  return value;
}

function checkSkill(skill: CatalogSkill): CatalogSkill {
  if (
    typeof skill !== "object" || skill === null || typeof skill.name !== "string" ||
    typeof skill.description !== "string" ||
    (skill.location !== undefined && typeof skill.location !== "string")
  ) {
    throw new TypeError("Each skill must be { name, description, location? } with strings");
  }
  return skill;
}
