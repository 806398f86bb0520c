/**
 * The `skill` tool's definition: its JSON Schema, and a description that
 * lists the skills within a budget; and {@linkcode skillTools}, which adds
 * `skill_search` when that list cannot hold every skill.
 *
 * Folder `lib/core/activation/` — activation and the model's tools: bodies, the skill tool, skill_search.
 *
 * @module
 */
import { deepFreeze } from "../_deep_freeze.ts";
import { codePoints } from "../catalog/_fit.ts";
import { describe, type Summary } from "./_tool_description.ts";
import type { SkillBundle } from "../resources/bundle.ts";
import { createSkillIndex, type SkillIndex } from "../search/skill_index.ts";
import {
  budgetInCharacters,
  type CatalogBudget,
  type SkillRank,
} from "../catalog/skill_catalog.ts";
import type { SkillModes } from "../catalog/skill_modes.ts";
import { offeredToModel } from "../catalog/skill_access.ts";
import { type SelectedSkill, type SelectionOptions, selector } from "../catalog/_selection.ts";
import { HostPaths } from "../catalog/skill_paths.ts";
import { scopeSearchIndex, skillSearchToolDefinition } from "./skill_search_tool.ts";
import { LINE_BYTE_PATTERN, pageCap } from "./skill_tool_input.ts";
import type { JsonSchema, SkillSearchToolDefinition, SkillToolDefinition } from "./tool_format.ts";

/** Options of {@linkcode skillToolDefinition} and {@linkcode skillTools}. */
export interface SkillToolOptions {
  /**
   * A resolved profile (`resolveSkillProfile`): the skills it leaves out are neither described
   * nor in the enum nor found by `skill_search`; its modes and pins apply.
   */
  readonly profile?: NonNullable<SelectionOptions["profile"]>;
  /** The paths in play: a skill with `paths` is offered only when one of its globs matches one. */
  readonly paths?: NonNullable<SelectionOptions["paths"]>;
  /** The page cap the handler uses (its context's `max_page_bytes`); default 262144. */
  readonly maxPageBytes?: number;
  /** @deprecated The old name of {@linkcode SkillToolOptions.maxPageBytes}, read when that is absent. */
  readonly max_page_bytes?: number;
  /**
   * The most characters of the tool's definition as sent — its name,
   * description and input schema as JSON, `{"name":…,"description":…,"inputSchema":…}`
   * (default {@linkcode DEFAULT_TOOL_BUDGET}; `Infinity` for no limit) — or a
   * share of a context window as in `renderSkillCatalog`. Within it the list
   * of skills degrades like the catalog: descriptions are shortened (not below
   * `descriptionFloor`), then skills are left out of the description; the
   * schema's `skill` is an enum of every name only while the description
   * describes every skill, else a plain string the handler checks.
   */
  readonly budget?: CatalogBudget;
  /** Descriptions are not shortened below this; default 80. */
  readonly descriptionFloor?: number;
  /** A score per skill: the lowest-ranked lose their descriptions and places first. */
  readonly rank?: SkillRank;
  /** A BCP 47 tag: `description-<lang>` metadata is shown where a skill has it. */
  readonly lang?: string;
  /**
   * The host's mode per skill (see `skillMode`): `pinned` skills are described
   * first and whole, `name-only` ones named without a description, `manual` and
   * `disabled` ones neither described nor in the enum. Default: each skill's
   * frontmatter (`disable-model-invocation: true` is `manual`), else `auto`.
   */
  readonly modes?: SkillModes;
  /**
   * Offer `skill_search` ({@linkcode skillTools}): `true` always, `false`
   * never; default: when the description could not describe every skill.
   * In {@linkcode skillToolDefinition}, `true` makes the description point to it.
   */
  readonly search?: boolean;
}

/** The default budget of the skill tool's definition as sent, in characters. */
export const DEFAULT_TOOL_BUDGET = 8000;

/**
 * A skill as the definition needs it: a name, a name with a description
 * (and metadata for localised ones), or a bundle.
 */
export type SkillSummary = string | {
  readonly name: string;
  readonly description?: string;
  readonly metadata?: Readonly<Record<string, string>> | ReadonlyMap<string, string>;
  /** Its frontmatter: `disable-model-invocation: true` makes it `manual` unless `modes` says otherwise. */
  readonly frontmatter?: {
    readonly "disable-model-invocation"?: boolean;
    readonly paths?: readonly string[];
  };
};

/**
 * The definition of the `skill` tool for the given skills.
 *
 * The whole definition as sent (name, description and input schema as JSON)
 * stays within a budget (default 8,000 characters). Its description lists the
 * skills offered to the model — pinned ones first and whole — with their
 * descriptions: these are shortened first, then skills are left out of the
 * list (lowest rank first with `rank`, else from the end). The schema's
 * `skill` is an enum of every offered name while the description describes
 * them all; past that it is a plain string, which the handler checks (an
 * unknown name gets the nearest names). `manual` and `disabled` skills are in
 * neither.
 *
 * @param skills The skills the model may use: names, bundles, or `{ name, description }`.
 * @param options The page cap, stated in the description and bounding `limit`; the budget, rank, modes and language of the list.
 * @returns A frozen definition.
 * @throws {RangeError} When `skills` is empty or all `manual`/`disabled`, `maxPageBytes` is not a
 *   whole number of at least 4, or the budget is too small for the definition without any skill listed.
 * @example
 * ```ts
 * import { skillToolDefinition } from "./skill_tool_definition.ts";
 * import { assert } from "../_assert.ts";
 *
 * const tool = skillToolDefinition([{ name: "pdf", description: "Fill PDF forms" }]);
 * assert.equal(tool.name, "skill");
 * assert.deepEqual((tool.input_schema.properties as any).skill.enum, ["pdf"]);
 *
 * const many = Array.from({ length: 500 }, (_, i) => ({ name: `s${i}`, description: "x ".repeat(90) }));
 * const cut = skillToolDefinition(many, { budget: 8000 });
 * const { name, description, input_schema: inputSchema } = cut;
 * assert.ok(JSON.stringify({ name, description, inputSchema }).length <= 8000);
 * assert.equal((cut.input_schema.properties as any).skill.enum, undefined); // a plain string
 * ```
 */
export function skillToolDefinition(
  skills: Iterable<SkillSummary>,
  options: SkillToolOptions = {},
): SkillToolDefinition {
  const cap = pageCap(options.maxPageBytes ?? options.max_page_bytes);
  return fitDefinition(summaries(skills, options), cap, options, options.search === true)
    .definition;
}

/**
 * The definition within the budget: with the enum while the description
 * describes every skill, else with a plain string.
 */
function fitDefinition(
  byName: ReadonlyMap<string, Summary>,
  cap: number,
  options: SkillToolOptions,
  search: boolean,
): { definition: SkillToolDefinition; left_out: readonly string[] } {
  const budget = budgetInCharacters(options.budget ?? DEFAULT_TOOL_BUDGET);
  const within = (schema: JsonSchema) =>
    describe(
      byName,
      cap,
      budget === undefined ? undefined : budget - sentLength("", schema),
      options,
      search,
      jsonLength,
    );
  let schema = inputSchema(cap, [...byName.keys()]);
  let fit = within(schema);
  if ("least" in fit || fit.left_out.length > 0) {
    schema = inputSchema(cap, undefined);
    fit = within(schema);
  }
  if ("least" in fit) {
    throw new RangeError(
      `Budget ${budget} is too small for the skill tool's definition: it needs at least ${
        fit.least + sentLength("", schema)
      } characters`,
    );
  }
  return {
    definition: deepFreeze({ name: "skill", description: fit.description, input_schema: schema }),
    left_out: fit.left_out,
  };
}

/** Characters of the definition as sent: `{"name":"skill","description":…,"inputSchema":…}`. */
function sentLength(description: string, schema: JsonSchema): number {
  return codePoints(JSON.stringify({ name: "skill", description, inputSchema: schema }));
}

/** Characters of a piece of the description once it is a JSON string (escapes counted, quotes not). */
function jsonLength(text: string): number {
  return codePoints(JSON.stringify(text)) - 2;
}

/** The schemas without an enum, one frozen object per page cap (the MCP SDK compiles each object once). */
const PLAIN_SCHEMAS = new Map<number, JsonSchema>();

/**
 * The input schema: `skill` an enum of the names, or (without names) a plain
 * string, the same object for every call with that page cap.
 */
function inputSchema(cap: number, names: readonly string[] | undefined): JsonSchema {
  if (names === undefined) {
    const known = PLAIN_SCHEMAS.get(cap);
    if (known !== undefined) return known;
    if (PLAIN_SCHEMAS.size >= 16) PLAIN_SCHEMAS.clear();
  }
  const schema: JsonSchema = deepFreeze({
    type: "object",
    properties: {
      skill: names === undefined
        ? {
          type: "string",
          minLength: 1,
          description: "The name of the skill to activate or read from.",
        }
        : { type: "string", enum: names, description: "The skill to activate or read from." },
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
  });
  if (names === undefined) PLAIN_SCHEMAS.set(cap, schema);
  return schema;
}

/** One entry per name (the first), in the order given. */
function summaries(
  skills: Iterable<SkillSummary>,
  options: SkillToolOptions,
  bodies?: Map<string, string>,
  conditional?: Map<string, { readonly summary: Summary; readonly globs: readonly string[] }>,
): Map<string, Summary> {
  const select = selector(options);
  const byName = new Map<string, Summary>();
  // Names seen, offered or not: the first entry of a name decides.
  const seen = new Set<string>();
  for (const s of skills) {
    if (typeof s === "string") {
      if (seen.has(s)) continue;
      seen.add(s);
      const mode = select({ name: s }).mode;
      if (offeredToModel(mode)) byName.set(s, mode === "auto" ? { name: s } : { name: s, mode });
      continue;
    }
    if (seen.has(s.name)) continue;
    seen.add(s.name);
    const selection = select(s as SelectedSkill);
    // A skill whose `paths` no host path matches is left out of the description, but
    // `skill_search` finds it for a call whose `paths` match (when it is built).
    const waiting = selection.out === "paths" && conditional !== undefined &&
      offeredToModel(selection.listed);
    const mode = waiting ? selection.listed : selection.mode;
    if (!offeredToModel(mode)) continue;
    const bundle = isBundle(s) ? s.frontmatter : undefined;
    const description = bundle !== undefined ? bundle.description : s.description;
    const metadata = bundle !== undefined ? bundle.metadata : s.metadata;
    // The search index reads a bundle's body (its first 32 KiB), when it has one loaded,
    // or a skill's `body` (a discovered skill reads it lazily).
    if (bodies !== undefined) {
      try {
        const body = bundle !== undefined
          ? (s as SkillBundle).instructions
          : (s as { readonly body?: unknown }).body;
        if (typeof body === "string") bodies.set(s.name, body);
      } catch {
        // A bundle whose body is not loaded yet is searched by name and description.
      }
    }
    const summary = {
      name: s.name,
      ...(description === undefined ? {} : { description }),
      ...(metadata === undefined ? {} : { metadata }),
      ...(mode === "auto" ? {} : { mode }),
    };
    if (waiting) conditional!.set(s.name, { summary, globs: selection.globs });
    else byName.set(s.name, summary);
  }
  if (seen.size === 0) throw new RangeError("skillToolDefinition needs at least one skill");
  if (byName.size === 0) {
    throw new RangeError(
      "skillToolDefinition needs at least one skill offered to the model: every skill is manual or disabled",
    );
  }
  return byName;
}

/** A bundle or a discovered skill (its frontmatter holds the description), not a `{ name, description }` summary. */
function isBundle(s: Exclude<SkillSummary, string>): s is SkillBundle {
  const frontmatter = (s as { frontmatter?: unknown }).frontmatter;
  return typeof frontmatter === "object" && frontmatter !== null &&
    typeof (frontmatter as { description?: unknown }).description === "string";
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
  /** The skills the `skill` tool's description does not describe (`skill_search` finds them, when offered). */
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
 * import { assert } from "../_assert.ts";
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
  const conditional = new Map<string, { summary: Summary; globs: readonly string[] }>();
  const byName = summaries(skills, options, bodies, conditional);
  let fit = fitDefinition(byName, cap, options, options.search === true);
  // Skills waiting for a path are not described: `skill_search` finds them for a call's paths.
  const offer = options.search === true ||
    (options.search !== false && (fit.left_out.length > 0 || conditional.size > 0));
  if (offer && options.search !== true) fit = fitDefinition(byName, cap, options, true);
  const skill = fit.definition;
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
    [...byName.values(), ...[...conditional.values()].map((c) => c.summary)].map((s) => ({
      name: s.name,
      description: s.description ?? "",
      ...(s.metadata === undefined ? {} : { metadata: s.metadata }),
      ...(bodies.has(s.name) ? { body: bodies.get(s.name)! } : {}),
    })),
    options.lang === undefined ? {} : { lang: options.lang },
  );
  scopeSearchIndex(search_index, {
    conditional: new Map([...conditional].map(([name, c]) => [name, c.globs])),
    host: options.paths instanceof HostPaths ? options.paths : new HostPaths(options.paths ?? []),
  });
  return Object.freeze({
    definitions: Object.freeze([skill, skill_search]),
    skill,
    skill_search,
    search_index,
    left_out: Object.freeze([...fit.left_out]),
  });
}
