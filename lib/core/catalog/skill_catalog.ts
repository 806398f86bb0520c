/**
 * The `<available_skills>` block a runtime puts in its system prompt (SPEC
 * §6), fitted to a budget of characters. Pure: data in, text out.
 *
 * Folder `lib/core/catalog/` — the prompt catalog: budget, modes, usage ranking, requirements, dependencies.
 *
 * @module
 */
import { escapeControls, foldDescription } from "../_text.ts";
import { codePoints as length, planFit, priorityOrder, shorten, wholeNumber } from "./_fit.ts";
import { type SkillMode, skillMode, type SkillModes } from "./skill_modes.ts";
import { offeredToModel } from "./skill_access.ts";
import { type SelectionOptions, selectSkills } from "./_selection.ts";

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
  /** Its frontmatter: `disable-model-invocation: true` makes it `manual` unless `modes` says otherwise; `paths` lists it only for matching host paths. */
  readonly frontmatter?: {
    readonly "disable-model-invocation"?: boolean;
    readonly paths?: unknown;
  };
  /** Its MCP origin, for a profile's `mcp:<origin>/…` globs; absent for a local skill. */
  readonly origin?: string;
}

/** Why a skill is not shown in full. */
export type CatalogReason =
  /** The budget shortened its description or left it out. */
  | "budget"
  /** Its mode: `name-only`, `manual` or `disabled`. */
  | "mode"
  /** The runtime lacks a tool it requires (discovery's `unavailable`). */
  | "missing-tools"
  /** A lockfile or the approvals kept it out. */
  | "not-approved"
  /** A skill it requires is missing. */
  | "missing-dependency"
  /** The profile left it out. */
  | "profile"
  /** Its `paths` match none of the host's paths. */
  | "paths";

/** The reasons of {@linkcode CatalogReason}, in order. */
export const CATALOG_REASONS: readonly CatalogReason[] = Object.freeze([
  "budget",
  "mode",
  "missing-tools",
  "not-approved",
  "missing-dependency",
  "profile",
  "paths",
]);

/** A skill the host kept out before rendering, and why: it is accounted for in the report. */
export interface ExcludedSkill {
  /** The skill's name. */
  readonly name: string;
  /** Why it was kept out. */
  readonly reason: CatalogReason;
  /** What exactly (e.g. the tools it misses). */
  readonly detail?: string;
  /** Its description, to count the characters its entry would have taken. */
  readonly description?: string;
  /** Its location, likewise. */
  readonly location?: string;
}

/** One skill not shown in full, and why (frozen). */
export interface CatalogReportEntry {
  /** The skill's name. */
  readonly name: string;
  /** `shortened` (its description cut), `name-only` (listed without one) or `dropped` (not listed). */
  readonly shown: "shortened" | "name-only" | "dropped";
  /** Why. */
  readonly reason: CatalogReason;
  /** Characters its whole entry would have taken beyond what it took (0 for an excluded skill given without a description). */
  readonly saved: number;
  /** What exactly: the mode and where it came from, or the host's detail. */
  readonly detail?: string;
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
export interface SkillCatalogOptions extends SelectionOptions {
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
   * skill tool, by name).
   */
  readonly search?: boolean;
  /**
   * Descriptions are never shortened below this many characters before
   * skills are left out. Default {@linkcode DEFAULT_DESCRIPTION_FLOOR}.
   */
  readonly descriptionFloor?: number;
  /**
   * How the model can still reach skills that were left out, ending the
   * left-out line. Default: through the `skill` tool, by name.
   */
  readonly reachHint?: string;
  /**
   * The host's mode per skill (see `skillMode`): `pinned` skills come first
   * with their whole descriptions, `name-only` ones are listed without a
   * description, `manual` and `disabled` ones are not listed. Default: each
   * skill's frontmatter (`disable-model-invocation: true` is `manual`), else `auto`.
   */
  readonly modes?: SkillModes;
  /**
   * Skills the host kept out before rendering (missing tools, not approved, a
   * missing dependency), so the report accounts for them too.
   */
  readonly excluded?: Iterable<ExcludedSkill>;
}

/** What {@linkcode fitSkillCatalog} did to fit the budget. */
export interface FittedSkillCatalog {
  /** The `<available_skills>` block. */
  readonly block: string;
  /** The skills listed, in order, with the descriptions as shown (unescaped). */
  readonly listed: readonly CatalogSkill[];
  /** The names the budget left out, in the order given (`report` also has those the mode kept out). */
  readonly left_out: readonly string[];
  /** How many listed descriptions were shortened. */
  readonly shortened: number;
  /**
   * Every skill not shown in full — shortened, listed by name only, or not
   * listed (by the budget, its mode, or the host's `excluded`) — in the order
   * given, then the excluded ones.
   */
  readonly report: readonly CatalogReportEntry[];
}

/** The default floor of description shortening, in characters. */
export const DEFAULT_DESCRIPTION_FLOOR = 80;

const DEFAULT_REACH = "call the skill tool with a skill name to use one of them";
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
 * skill, the block is the unbudgeted one, byte for byte. With `modes`,
 * `pinned` skills come first, whole, before the budget is shared; `name-only`
 * skills are listed without a description; `manual` and `disabled` ones (and,
 * by default, those whose frontmatter says `disable-model-invocation: true`)
 * are not listed.
 *
 * @param skills The skills, highest precedence first.
 * @param options The budget, the floor, the hint for left-out skills, the modes.
 * @returns The block.
 * @throws {RangeError} When the budget or floor is not a whole number ≥ 0, or
 *   the budget is too small for even the block with every skill left out.
 * @example
 * ```ts
 * import { renderSkillCatalog } from "./skill_catalog.ts";
 * import { assert } from "../_assert.ts";
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
 * {@linkcode renderSkillCatalog}, with an account of what was shortened and
 * left out: `report` names every skill not shown in full — shortened, listed
 * by name only, or not listed — with the reason and the characters saved,
 * the host's `excluded` skills included.
 *
 * @param skills The skills, highest precedence first.
 * @param options The budget, the floor, the hint for left-out skills, the modes and the excluded skills.
 * @returns The block, the skills listed, the names left out, the number of shortened descriptions and the report.
 * @throws {RangeError} When the budget or floor is not a whole number ≥ 0, a
 *   mode is not one of `SKILL_MODES`, or the budget is too small for even the
 *   block with its pinned skills and every other skill left out.
 * @throws {TypeError} When a skill or an excluded skill is not of the documented shape.
 * @example
 * ```ts
 * import { fitSkillCatalog } from "./skill_catalog.ts";
 * import { assert } from "../_assert.ts";
 *
 * const skills = [
 *   { name: "pdf", description: "Fill in PDF forms from structured data, then check every field" },
 *   { name: "csv", description: "Clean and join CSV files" },
 * ];
 * const fit = fitSkillCatalog(skills, { budget: 230, descriptionFloor: 10 });
 * assert.deepEqual(fit.left_out, []);
 * assert.equal(fit.shortened, 1);
 * assert.ok(/^Fill in PDF forms.*…$/.test(fit.listed[0]!.description));
 * assert.deepEqual(fit.report.map((r) => [r.name, r.shown, r.reason]), [["pdf", "shortened", "budget"]]);
 *
 * const moded = fitSkillCatalog(skills, { modes: new Map([["csv", "manual"]]) });
 * assert.deepEqual(moded.listed.map((s) => s.name), ["pdf"]);
 * assert.deepEqual(moded.report.map((r) => [r.name, r.shown, r.reason]), [["csv", "dropped", "mode"]]);
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
  const excluded = checkExcluded(options.excluded);
  const lang = options.lang;
  const selected = selectSkills(all, options);
  const modes = selected.map((s) => s.mode);
  const shown = all.map((s) => localizedDescription(s, lang));
  const full = all.map((s, i) => entry(s, shown[i]!));
  const fullLength = full.map(length);
  // Pinned skills first, whole; then the others in the order given; manual and disabled not at all.
  const pinned: number[] = [];
  const rest: number[] = [];
  modes.forEach((m, i) => {
    if (m === "pinned") pinned.push(i);
    else if (offeredToModel(m)) rest.push(i);
  });
  const bare = (i: number): string => modes[i] === "name-only" ? entry(all[i]!, undefined) : "";
  const bareLength = all.map((_, i) => modes[i] === "name-only" ? length(bare(i)) : 0);
  const offered = pinned.length + rest.length;
  let fixed = OPEN.length + CLOSE.length;
  for (const i of pinned) fixed += fullLength[i]!;
  let whole = fixed;
  for (const i of rest) whole += modes[i] === "name-only" ? bareLength[i]! : fullLength[i]!;
  let caps: readonly (number | undefined)[];
  let texts: readonly string[][] = [];
  if (budget === undefined || whole <= budget) {
    caps = rest.map(() => Infinity);
  } else {
    texts = rest.map((i) => modes[i] === "name-only" ? [] : [...shown[i]!]);
    const plan = planFit({
      count: rest.length,
      budget,
      floor,
      priority: priorityOrder(rest.map((i) => all[i]!.name), options.rank),
      ranked: options.rank !== undefined,
      fixed,
      entryLength: (k, cap) => {
        const i = rest[k]!;
        return modes[i] === "name-only"
          ? bareLength[i]!
          : length(entry(all[i]!, shorten(texts[k]!, cap)));
      },
      descriptionLength: (k) => texts[k]!.length,
      lineLength: (kept) =>
        kept === rest.length ? 0 : length(leftOutLine(rest.length - kept, offered, reach)),
    });
    if (!plan.ok) {
      throw new RangeError(
        `Budget ${budget} is too small for the <available_skills> block: it needs at least ${plan.least} characters`,
      );
    }
    caps = plan.caps;
  }
  const listed: CatalogSkill[] = [];
  const descriptions: string[] = [];
  const entries: string[] = [];
  const leftOut: string[] = [];
  const reportAt: (CatalogReportEntry | undefined)[] = new Array(all.length).fill(undefined);
  let shortened = 0;
  for (const i of pinned) {
    listed.push(all[i]!);
    descriptions.push(shown[i]!);
    entries.push(full[i]!);
  }
  rest.forEach((i, k) => {
    const s = all[i]!;
    const cap = caps[k];
    if (cap === undefined) {
      leftOut.push(s.name);
      reportAt[i] = note(s.name, "dropped", "budget", fullLength[i]!);
    } else if (modes[i] === "name-only") {
      listed.push(s);
      descriptions.push("");
      entries.push(bare(i));
      reportAt[i] = note(
        s.name,
        "name-only",
        "mode",
        fullLength[i]! - bareLength[i]!,
        modeDetail(s, "name-only", options),
      );
    } else {
      const d = cap === Infinity ? shown[i]! : shorten(texts[k]!, cap);
      const e = d === shown[i] ? full[i]! : entry(s, d);
      listed.push(s);
      descriptions.push(d);
      entries.push(e);
      if (d !== shown[i]) {
        shortened++;
        reportAt[i] = note(s.name, "shortened", "budget", fullLength[i]! - length(e));
      }
    }
  });
  modes.forEach((m, i) => {
    if (offeredToModel(m)) return;
    const s = all[i]!;
    const out = selected[i]!;
    reportAt[i] = out.out === undefined
      ? note(s.name, "dropped", "mode", fullLength[i]!, modeDetail(s, m, options))
      : note(s.name, "dropped", out.out, fullLength[i]!, out.detail);
  });
  const report = reportAt.filter((r) => r !== undefined);
  for (const x of excluded) {
    const saved = x.description === undefined ? 0 : length(entry(x, x.description));
    report.push(note(x.name, "dropped", x.reason, saved, x.detail));
  }
  const line = leftOut.length === 0 ? "" : leftOutLine(leftOut.length, offered, reach);
  return Object.freeze({
    block: `${OPEN}${entries.join("")}${line}${CLOSE}`,
    listed: Object.freeze(listed.map((s, i) => {
      const description = descriptions[i]!;
      return Object.freeze(
        s.location === undefined
          ? { name: s.name, description }
          : { name: s.name, description, location: s.location },
      );
    })),
    left_out: Object.freeze(leftOut),
    shortened,
    report: Object.freeze(report),
  });
}

function note(
  name: string,
  shown: CatalogReportEntry["shown"],
  reason: CatalogReason,
  saved: number,
  detail?: string,
): CatalogReportEntry {
  return Object.freeze(
    detail === undefined ? { name, shown, reason, saved } : { name, shown, reason, saved, detail },
  );
}

/** The mode, and where it came from when not from the host. */
function modeDetail(skill: CatalogSkill, mode: SkillMode, options: SkillCatalogOptions): string {
  const modes = options.modes;
  if (options.profile !== undefined && skillMode(skill, modes) !== mode) {
    return `${mode} (profile ${options.profile.name})`;
  }
  const host = modes === undefined
    ? undefined
    : typeof modes === "function"
    ? modes(skill.name)
    : modes.get(skill.name);
  return host === undefined ? `${mode} (disable-model-invocation: true)` : mode;
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
 * import { assert } from "../_assert.ts";
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
 * import { assert } from "../_assert.ts";
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

function entry(
  skill: { readonly name: string; readonly location?: string },
  description: string | undefined,
): string {
  const location = skill.location === undefined
    ? ""
    : `<location>${escapeXml(skill.location)}</location>\n`;
  // Block-scalar descriptions on one line, as skills-ref shows them (folding never lengthens).
  const shown = description === undefined
    ? ""
    : `<description>${escapeXml(foldDescription(description))}</description>\n`;
  return `<skill>\n<name>${escapeXml(skill.name)}</name>\n${shown}${location}</skill>\n`;
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

function checkSkill(skill: CatalogSkill): CatalogSkill {
  if (
    typeof skill !== "object" || skill === null || typeof skill.name !== "string" ||
    typeof skill.description !== "string" ||
    (skill.location !== undefined && typeof skill.location !== "string") ||
    (skill.metadata !== undefined &&
      (typeof skill.metadata !== "object" || skill.metadata === null)) ||
    (skill.frontmatter !== undefined &&
      (typeof skill.frontmatter !== "object" || skill.frontmatter === null))
  ) {
    throw new TypeError(
      "Each skill must be { name, description, location?, metadata?, frontmatter? } with strings",
    );
  }
  return skill;
}

function checkExcluded(excluded: Iterable<ExcludedSkill> | undefined): readonly ExcludedSkill[] {
  if (excluded === undefined) return [];
  const out = [...excluded];
  for (const x of out) {
    const optional = (v: unknown) => v === undefined || typeof v === "string";
    if (
      typeof x !== "object" || x === null || typeof x.name !== "string" ||
      !CATALOG_REASONS.includes(x.reason) || !optional(x.detail) || !optional(x.description) ||
      !optional(x.location)
    ) {
      throw new TypeError(
        `Each excluded skill must be { name, reason, detail?, description?, location? } with strings, the reason one of ${
          CATALOG_REASONS.join(", ")
        }`,
      );
    }
  }
  return out;
}
