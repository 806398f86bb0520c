/**
 * The `skill` tool's definition: its JSON Schema, and a description that
 * lists the skills within a budget; and {@linkcode skillTools}, which adds
 * `skill_search` when that list cannot hold every skill.
 *
 * @module
 */
import { deepFreeze } from "./_deep_freeze.ts";
import { describe, type Summary } from "./_tool_description.ts";
import type { SkillBundle } from "./bundle.ts";
import { createSkillIndex, type SkillIndex } from "./search/skill_index.ts";
import type { CatalogBudget, SkillRank } from "./skill_catalog.ts";
import { skillSearchToolDefinition } from "./skill_search_tool.ts";
import { LINE_BYTE_PATTERN, pageCap } from "./skill_tool_input.ts";
import type { JsonSchema, SkillSearchToolDefinition, SkillToolDefinition } from "./tool_format.ts";

/** Options of {@linkcode skillToolDefinition} and {@linkcode skillTools}. */
export interface SkillToolOptions {
  /** The page cap the handler uses (its context's `max_page_bytes`); default 262144. */
  readonly maxPageBytes?: number;
  /** @deprecated The old name of {@linkcode SkillToolOptions.maxPageBytes}, read when that is absent. */
  readonly max_page_bytes?: number;
  /**
   * The most characters of the tool's description (default
   * {@linkcode DEFAULT_TOOL_BUDGET}; `Infinity` for no limit), or a share of a
   * context window as in `renderSkillCatalog`. Within it the list of skills
   * degrades like the catalog: descriptions are shortened (not below
   * `descriptionFloor`), then skills are named only in the enum, which always
   * lists every skill.
   */
  readonly budget?: CatalogBudget;
  /** Descriptions are not shortened below this; default 80. */
  readonly descriptionFloor?: number;
  /** A score per skill: the lowest-ranked lose their descriptions and places first. */
  readonly rank?: SkillRank;
  /** A BCP 47 tag: `description-<lang>` metadata is shown where a skill has it. */
  readonly lang?: string;
  /**
   * Offer `skill_search` ({@linkcode skillTools}): `true` always, `false`
   * never; default: when the description could not describe every skill.
   * In {@linkcode skillToolDefinition}, `true` makes the description point to it.
   */
  readonly search?: boolean;
}

/** The default budget of the skill tool's description, in characters. */
export const DEFAULT_TOOL_BUDGET = 8000;

/**
 * A skill as the definition needs it: a name, a name with a description
 * (and metadata for localised ones), or a bundle.
 */
export type SkillSummary = string | {
  readonly name: string;
  readonly description?: string;
  readonly metadata?: Readonly<Record<string, string>> | ReadonlyMap<string, string>;
};

/**
 * The definition of the `skill` tool for the given skills.
 *
 * Its description lists the skills with their descriptions within a budget
 * (default 8,000 characters): descriptions are shortened first, then skills
 * are left out of the list (lowest rank first with `rank`, else from the
 * end) and named only in the enum, which always lists every skill.
 *
 * @param skills The skills the model may use: names, bundles, or `{ name, description }`.
 * @param options The page cap, stated in the description and bounding `limit`; the budget, rank and language of the list.
 * @returns A frozen definition whose `input_schema.properties.skill.enum` lists their names.
 * @throws {RangeError} When `skills` is empty, `maxPageBytes` is not a whole number of at
 *   least 4, or the budget is too small for the description without any skill listed.
 * @example
 * ```ts
 * import { skillToolDefinition } from "./skill_tool_definition.ts";
 * import { assert } from "./_assert.ts";
 *
 * const tool = skillToolDefinition([{ name: "pdf", description: "Fill PDF forms" }]);
 * assert.equal(tool.name, "skill");
 * assert.deepEqual((tool.input_schema.properties as any).skill.enum, ["pdf"]);
 *
 * const many = Array.from({ length: 500 }, (_, i) => ({ name: `s${i}`, description: "x ".repeat(90) }));
 * const cut = skillToolDefinition(many, { budget: 8000 });
 * assert.ok([...cut.description].length <= 8000);
 * assert.equal((cut.input_schema.properties as any).skill.enum.length, 500);
 * ```
 */
export function skillToolDefinition(
  skills: Iterable<SkillSummary>,
  options: SkillToolOptions = {},
): SkillToolDefinition {
  const cap = pageCap(options.maxPageBytes ?? options.max_page_bytes);
  const byName = summaries(skills);
  const names = [...byName.keys()];
  const { description } = describe(
    byName,
    cap,
    budgetOf(options),
    options,
    options.search === true,
  );
  const input_schema: JsonSchema = {
    type: "object",
    properties: {
      skill: { type: "string", enum: names, description: "The skill to activate or read from." },
      resource: {
        type: "string",
        minLength: 1,
        description:
          "A file path inside the skill, as listed in its manifest (e.g. references/forms.md). " +
          "Omit to activate the skill.",
      },
      offset: {
        anyOf: [
          { type: "integer", minimum: 0, maximum: Number.MAX_SAFE_INTEGER },
          { type: "string", pattern: LINE_BYTE_PATTERN },
        ],
        description: "Where the page starts: a line (text) or a byte (base64), from 0, or a " +
          'next_offset such as "1200+262144" (line 1200 from byte 262144 of it). Default 0. ' +
          "Without resource: the first manifest entry of each folder to list.",
      },
      limit: {
        type: "integer",
        minimum: 1,
        maximum: cap,
        description: "Page size: lines for text (default 2000), bytes for base64 " +
          `(default 49152, rounded down to a multiple of 3); a page never holds more than ${cap} bytes.`,
      },
    },
    required: ["skill"],
    dependencies: { limit: ["resource"] },
    additionalProperties: false,
  };
  return deepFreeze({ name: "skill", description, input_schema });
}

/** One entry per name (the first), in the order given. */
function summaries(
  skills: Iterable<SkillSummary>,
  bodies?: Map<string, string>,
): Map<string, Summary> {
  const byName = new Map<string, Summary>();
  for (const s of skills) {
    if (typeof s === "string") {
      if (!byName.has(s)) byName.set(s, { name: s });
      continue;
    }
    if (byName.has(s.name)) continue;
    const bundle = "frontmatter" in s ? (s as SkillBundle).frontmatter : undefined;
    const description = bundle !== undefined ? bundle.description : s.description;
    const metadata = bundle !== undefined ? bundle.metadata : s.metadata;
    // The search index reads a bundle's body (its first 32 KiB), when it has one loaded.
    if (bodies !== undefined && bundle !== undefined) {
      try {
        const body = (s as SkillBundle).instructions;
        if (typeof body === "string") bodies.set(s.name, body);
      } catch {
        // A bundle whose body is not loaded yet is searched by name and description.
      }
    }
    byName.set(s.name, {
      name: s.name,
      ...(description === undefined ? {} : { description }),
      ...(metadata === undefined ? {} : { metadata }),
    });
  }
  if (byName.size === 0) throw new RangeError("skillToolDefinition needs at least one skill");
  return byName;
}

/** The description's budget: the option, or {@linkcode DEFAULT_TOOL_BUDGET}. */
function budgetOf(options: SkillToolOptions): CatalogBudget {
  return options.budget ?? DEFAULT_TOOL_BUDGET;
}

/** The tools {@linkcode skillTools} offers, and what a host needs to serve them. */
export interface SkillTools {
  /** `skill`, then `skill_search` when it is offered. */
  readonly definitions: readonly (SkillToolDefinition | SkillSearchToolDefinition)[];
  /** The `skill` tool's definition. */
  readonly skill: SkillToolDefinition;
  /** The `skill_search` definition, when offered. */
  readonly skill_search: SkillSearchToolDefinition | undefined;
  /** The index `handleSkillSearchTool` searches, when `skill_search` is offered. */
  readonly search_index: SkillIndex | undefined;
  /** The skills the `skill` tool's description does not describe (its enum still names them). */
  readonly left_out: readonly string[];
}

/**
 * The tools to give a model for these skills: the `skill` tool, its
 * description within the budget, and — when that description could not
 * describe every skill (or `search: true`) — `skill_search` with its index
 * (over names and descriptions, in `lang` where a skill has one), which the
 * description then points to.
 *
 * @param skills The skills: names, bundles, or `{ name, description, metadata? }`.
 * @param options As for {@linkcode skillToolDefinition}; `search: false` never offers `skill_search`.
 * @returns The definitions, the index and the skills left out of the description.
 * @throws {RangeError} As {@linkcode skillToolDefinition}.
 * @example
 * ```ts
 * import { skillTools } from "./skill_tool_definition.ts";
 * import { handleSkillSearchTool } from "./skill_search_tool.ts";
 * import { assert } from "./_assert.ts";
 *
 * const skills = Array.from({ length: 300 }, (_, i) => ({
 *   name: `skill-${i}`,
 *   description: `Task number ${i}: ${"details ".repeat(20)}`,
 * }));
 * const tools = skillTools(skills);
 * assert.deepEqual(tools.definitions.map((d) => d.name), ["skill", "skill_search"]);
 * assert.ok(tools.left_out.length > 0);
 * assert.ok(tools.skill.description.includes("call `skill_search`"));
 * const found = handleSkillSearchTool({ query: "skill-299" }, tools.search_index!);
 * assert.ok(found.content.includes("- skill-299: Task number 299"));
 * assert.equal(skillTools(skills.slice(0, 2)).skill_search, undefined);
 * ```
 */
export function skillTools(
  skills: Iterable<SkillSummary>,
  options: SkillToolOptions = {},
): SkillTools {
  const cap = pageCap(options.maxPageBytes ?? options.max_page_bytes);
  const bodies = new Map<string, string>();
  const byName = summaries(skills, bodies);
  const budget = budgetOf(options);
  let fit = describe(byName, cap, budget, options, options.search === true);
  const offer = options.search === true || (options.search !== false && fit.left_out.length > 0);
  if (offer && options.search !== true) fit = describe(byName, cap, budget, options, true);
  const skill = skillToolDefinition(byName.values(), { ...options, search: offer });
  if (!offer) {
    return Object.freeze({
      definitions: Object.freeze([skill]),
      skill,
      skill_search: undefined,
      search_index: undefined,
      left_out: Object.freeze([...fit.left_out]),
    });
  }
  const skill_search = skillSearchToolDefinition();
  const search_index = createSkillIndex(
    [...byName.values()].map((s) => ({
      name: s.name,
      description: s.description ?? "",
      ...(s.metadata === undefined ? {} : { metadata: s.metadata }),
      ...(bodies.has(s.name) ? { body: bodies.get(s.name)! } : {}),
    })),
    options.lang === undefined ? {} : { lang: options.lang },
  );
  return Object.freeze({
    definitions: Object.freeze([skill, skill_search]),
    skill,
    skill_search,
    search_index,
    left_out: Object.freeze([...fit.left_out]),
  });
}
