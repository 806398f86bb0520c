/**
 * The skill tool (SPEC §7): the one tool a model calls to activate a skill or
 * read one of its bundled files. Its definition converts to the shapes of the
 * MCP, OpenAI and Anthropic tool APIs; its handler turns every request into
 * text and never throws for anything a model can send.
 *
 * @module
 */
import { deepFreeze } from "./_deep_freeze.ts";
import { escapeControls, foldDescription, quoteShort } from "./_text.ts";
import { codePoints, planFit, priorityOrder, shorten, wholeNumber } from "./_fit.ts";
import {
  budgetInCharacters,
  type CatalogBudget,
  DEFAULT_DESCRIPTION_FLOOR,
  localizedDescription,
  type SkillRank,
} from "./skill_catalog.ts";
import { createSkillIndex, searchSkills, type SkillIndex } from "./search/skill_index.ts";
import { activateSkill, renderActivation } from "./activate.ts";
import type { SkillBundle } from "./bundle.ts";
import { formatLocation, type SourceLocation, withoutLocation } from "./errors.ts";
import type { SafetyFlags } from "./gate.ts";
import {
  isTrustedSkill,
  type PolicySkill,
  type ToolPolicyMode,
  type ToolTrust,
} from "./policy/tool_policy.ts";
import {
  DEFAULT_MAX_PAGE_BYTES,
  MIN_PAGE_BYTES,
  readResource,
  renderResourceRead,
} from "./read.ts";

/** A JSON Schema object (plain data). */
export type JsonSchema = { readonly [key: string]: unknown };

/** The tool definition: a name, a description for the model and a JSON Schema for its input. */
export interface SkillToolDefinition {
  /** Always `skill`. */
  readonly name: "skill";
  /** What the model is told about the tool. */
  readonly description: string;
  /** The JSON Schema of the input. */
  readonly input_schema: JsonSchema;
}

/** What the model sends. */
export interface SkillToolInput {
  /** The skill to activate or read from. */
  readonly skill: string;
  /** A path inside the skill; absent to activate. */
  readonly resource?: string;
  /** A line or byte of the file; `"L+B"` inside a long line; without `resource`, the first manifest entry of each class. */
  readonly offset?: number | string;
  /** Lines or bytes in the page. */
  readonly limit?: number;
}

/** What the handler returns: text for the model, and whether it is an error. */
export interface SkillToolResult {
  /** The text for the model. */
  readonly content: string;
  /** Whether the request failed (the text says why). */
  readonly is_error: boolean;
}

/**
 * Anything that loads bundles by name, such as a discovery result
 * (`discoverSkills` in `./load`), which loads each skill on first use.
 */
export interface SkillBundleSource {
  /** The bundle of that name, or `undefined` for an unknown name. */
  bundle(name: string): SkillBundle | undefined;
}

/** Where the handler finds skills and their safety settings. */
export interface SkillToolContext {
  /**
   * The skills: a list, a map by name, or a loader returning `undefined` for an unknown name.
   * A loader is only asked for names made of `/`-separated segments that start with a letter or
   * digit (never `..`, an absolute path or a control character), and its answer is used only when
   * the bundle's `name` is the name asked for. A {@linkcode SkillBundleSource} (a discovery
   * result) looks names up itself, and its answer is held to the same rule.
   */
  readonly skills:
    | Iterable<SkillBundle>
    | ReadonlyMap<string, SkillBundle>
    | ((name: string) => SkillBundle | undefined)
    | SkillBundleSource;
  /** The runtime's global safety; default true. */
  readonly global_safety?: boolean;
  /** Each skill's safety by name (default true): a map, a record or a function. */
  readonly skill_safety?:
    | ReadonlyMap<string, boolean>
    | Readonly<Record<string, boolean>>
    | ((name: string) => boolean | undefined);
  /** The most bytes of content in one page (at least 4); default 262144. Pass the same value to {@linkcode skillToolDefinition}. */
  readonly max_page_bytes?: number;
  /** The most manifest entries per class in an activation; default 500. */
  readonly max_manifest_entries?: number;
  /** The host's tool policy mode: an activation then lists the skill's allowed tools and the mode. */
  readonly tool_policy?: ToolPolicyMode;
  /** Whose `allowed-tools` count, as the policy's `trusted`; default `true` (local skills only). */
  readonly trusted?: ToolTrust;
}

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

const FIELDS = ["skill", "resource", "offset", "limit"] as const;

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
 * import { skillToolDefinition } from "./skill_tool.ts";
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
  const { description } = describe(byName, cap, options, options.search === true);
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

type Summary = {
  name: string;
  description?: string;
  metadata?: Readonly<Record<string, string>> | ReadonlyMap<string, string>;
};

/** One entry per name (the first), in the order given. */
function summaries(skills: Iterable<SkillSummary>): Map<string, Summary> {
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
    byName.set(s.name, {
      name: s.name,
      ...(description === undefined ? {} : { description }),
      ...(metadata === undefined ? {} : { metadata }),
    });
  }
  if (byName.size === 0) throw new RangeError("skillToolDefinition needs at least one skill");
  return byName;
}

const PREAMBLE = (cap: number): string =>
  [
    "Use a skill: a folder of instructions and bundled files for a task.",
    "Call with only `skill` to activate it: you get its instructions and a manifest of its bundled files, " +
    "grouped as references/ (documentation to read when needed), assets/ (templates, images, data) " +
    "and scripts/ (source code), plus files at the top level.",
    "Call with `skill` and `resource` (a path from the manifest) to read a file. Text comes back decoded; " +
    "binary assets come back as base64. Long files come in pages: pass `offset` (a line for text, " +
    "a byte for base64) and `limit`, and follow `next_offset` until it says none. " +
    `No page holds more than ${cap} bytes: a longer line comes in pieces, and \`next_offset\` ` +
    'then reads like "1200+262144" (line 1200 from byte 262144 of it); pass it back as `offset` as it is.',
    "A manifest lists at most a few hundred files per folder and says how many more there are: " +
    "call with `skill` and `offset` (no `resource`) to list the next ones.",
    "Scripts are only read as source: this tool never runs anything.",
    "Files in non-standard folders (anything other than references/, assets/ and scripts/) are gated by the " +
    "safety settings: they are not listed and cannot be read unless both the global and the skill's safety " +
    "are off.",
    "Available skills:",
  ].join("\n");

/**
 * The description: the preamble and one line per skill (`- name: description`,
 * on one line each, so a description cannot add lines or entries of its own),
 * fitted to the budget.
 */
function describe(
  byName: ReadonlyMap<string, Summary>,
  cap: number,
  options: SkillToolOptions,
  search: boolean,
): { description: string; left_out: readonly string[] } {
  const all = [...byName.values()];
  const lang = options.lang;
  const texts = all.map((s) =>
    s.description === undefined ? undefined : [
      ...localizedDescription(
        {
          description: s.description,
          ...(s.metadata === undefined ? {} : { metadata: s.metadata }),
        },
        lang,
      ),
    ]
  );
  const line = (i: number, cap: number): string => {
    const text = texts[i];
    return `\n- ${escapeControls(all[i]!.name)}${
      text === undefined ? "" : `: ${escapeControls(foldDescription(shorten(text, cap)))}`
    }`;
  };
  const preamble = PREAMBLE(cap);
  const leftOutLine = (kept: number): string => {
    const n = all.length - kept;
    return `\n(${n} more skill${
      n === 1 ? " is" : "s are"
    } not described here, to fit the budget: ` +
      "the enum of `skill` names every skill" +
      (search ? "; call `skill_search` with words from the task to find one)" : ")");
  };
  const budget = budgetInCharacters(options.budget ?? DEFAULT_TOOL_BUDGET);
  const floor = Math.max(
    1,
    wholeNumber(options.descriptionFloor, "descriptionFloor") ?? DEFAULT_DESCRIPTION_FLOOR,
  );
  const whole = all.map((_, i) => line(i, Infinity));
  const wholeLength = codePoints(preamble) + whole.reduce((n, l) => n + codePoints(l), 0);
  if (budget === undefined || wholeLength <= budget) {
    return { description: preamble + whole.join(""), left_out: [] };
  }
  const plan = planFit({
    count: all.length,
    budget,
    floor,
    priority: priorityOrder(all.map((s) => s.name), options.rank),
    ranked: options.rank !== undefined,
    fixed: codePoints(preamble),
    entryLength: (i, c) => codePoints(line(i, c)),
    descriptionLength: (i) => texts[i]?.length ?? 0,
    lineLength: (kept) => (kept === all.length ? 0 : codePoints(leftOutLine(kept))),
  });
  if (!plan.ok) {
    throw new RangeError(
      `Budget ${budget} is too small for the skill tool's description: it needs at least ${plan.least} characters`,
    );
  }
  const lines: string[] = [];
  const leftOut: string[] = [];
  all.forEach((s, i) => {
    const c = plan.caps[i];
    if (c === undefined) leftOut.push(s.name);
    else lines.push(line(i, c));
  });
  return {
    description: preamble + lines.join("") +
      (leftOut.length === 0 ? "" : leftOutLine(all.length - leftOut.length)),
    left_out: leftOut,
  };
}

/** The `skill_search` tool definition: a name, a description and the JSON Schema of its input. */
export interface SkillSearchToolDefinition {
  /** Always `skill_search`. */
  readonly name: "skill_search";
  /** What the model is told about the tool. */
  readonly description: string;
  /** The JSON Schema of the input. */
  readonly input_schema: JsonSchema;
}

/** What the model sends to `skill_search`. */
export interface SkillSearchInput {
  /** Words of the task, or a skill's name. */
  readonly query: string;
  /** The most results; default 10, at most 50. */
  readonly limit?: number;
}

/** The longest query `skill_search` takes, in UTF-16 units. */
export const MAX_SEARCH_QUERY = 1000;
/** The most results one `skill_search` call returns. */
export const MAX_SEARCH_LIMIT = 50;

/**
 * The definition of the `skill_search` tool, which finds skills by what they
 * do: for skills the `skill` tool's description or the catalog could not list.
 *
 * @returns A frozen definition.
 * @throws Never.
 * @example
 * ```ts
 * import { skillSearchToolDefinition, toOpenAITool } from "./skill_tool.ts";
 * import { assert } from "./_assert.ts";
 *
 * const tool = skillSearchToolDefinition();
 * assert.equal(tool.name, "skill_search");
 * assert.deepEqual((tool.input_schema as any).required, ["query"]);
 * assert.equal(toOpenAITool(tool).function.name, "skill_search");
 * ```
 */
export function skillSearchToolDefinition(): SkillSearchToolDefinition {
  return SEARCH_DEFINITION;
}

const SEARCH_DEFINITION: SkillSearchToolDefinition = deepFreeze({
  name: "skill_search",
  description: "Find skills by what they do, including those not described in the `skill` tool. " +
    "Pass words from the task (or a skill's name) as `query`; you get the best-matching skills, " +
    "best first, each with its name and description. Then call the `skill` tool with a name to use it.",
  input_schema: {
    type: "object",
    properties: {
      query: {
        type: "string",
        minLength: 1,
        maxLength: MAX_SEARCH_QUERY,
        description: 'Words describing the task, e.g. "fill in a PDF form", or a skill\'s name.',
      },
      limit: {
        type: "integer",
        minimum: 1,
        maximum: MAX_SEARCH_LIMIT,
        description: "The most skills to return (default 10).",
      },
    },
    required: ["query"],
    additionalProperties: false,
  },
});

/**
 * Handle one call of `skill_search`: the ranked skills as text, one per line.
 * Invalid input comes back as text with `is_error: true`; the handler never throws.
 *
 * @param input What the model sent (any JSON value).
 * @param index The index to search ({@linkcode skillTools} builds one).
 * @returns The results, or an error text.
 * @example
 * ```ts
 * import { createSkillIndex } from "../../mod.ts";
 * import { handleSkillSearchTool } from "./skill_tool.ts";
 * import { assert } from "./_assert.ts";
 *
 * const index = createSkillIndex([
 *   { name: "pdf", description: "Fill in PDF forms" },
 *   { name: "csv", description: "Join CSV tables" },
 * ]);
 * assert.deepEqual(handleSkillSearchTool({ query: "join two tables" }, index), {
 *   content: '1 skill matches "join two tables", best first:\n- csv: Join CSV tables\n' +
 *     "Call the skill tool with a name to use it.",
 *   is_error: false,
 * });
 * assert.equal(handleSkillSearchTool({ query: 3 }, index).is_error, true);
 * ```
 */
export function handleSkillSearchTool(input: unknown, index: SkillIndex): SkillToolResult {
  try {
    const { query, limit } = parseSkillSearchInput(input);
    const results = searchSkills(index, query, { limit: limit ?? 10 });
    const quoted = quoteShort(query);
    if (results.length === 0) {
      return success(`No skill matches ${quoted}; try other words, or a skill's name`);
    }
    const n = results.length;
    return success(
      [
        `${n} skill${n === 1 ? " matches" : "s match"} ${quoted}, best first:`,
        ...results.map((r) =>
          `- ${escapeControls(r.name)}${
            r.description === "" ? "" : `: ${escapeControls(r.description)}`
          }`
        ),
        "Call the skill tool with a name to use it.",
      ].join("\n"),
    );
  } catch (e) {
    return failure(e instanceof Error ? e.message : `Unexpected error: ${String(e)}`);
  }
}

/**
 * Check a model's `skill_search` input against the rules of its schema.
 *
 * @param input Any value.
 * @returns The typed input.
 * @throws {TypeError} Naming the first field that breaks a rule.
 */
function parseSkillSearchInput(input: unknown): SkillSearchInput {
  if (typeof input !== "object" || input === null || Array.isArray(input)) {
    throw new TypeError('Invalid input: expected an object with a "query" field');
  }
  const fields = input as Record<string, unknown>;
  for (const key of Object.keys(fields)) {
    if (key !== "query" && key !== "limit") {
      throw new TypeError(`Invalid input: unknown field ${quoteShort(key)} (known: query, limit)`);
    }
  }
  const { query } = fields;
  if (typeof query !== "string" || query === "" || query.length > MAX_SEARCH_QUERY) {
    throw new TypeError(
      `Invalid input: "query" must be a string of 1 to ${MAX_SEARCH_QUERY} characters`,
    );
  }
  if (!Object.hasOwn(fields, "limit")) return { query };
  const limit = fields["limit"];
  if (
    typeof limit !== "number" || !Number.isSafeInteger(limit) || limit < 1 ||
    limit > MAX_SEARCH_LIMIT
  ) {
    throw new TypeError(
      `Invalid input: "limit" must be a whole number from 1 to ${MAX_SEARCH_LIMIT}`,
    );
  }
  return { query, limit };
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
 * import { handleSkillSearchTool, skillTools } from "./skill_tool.ts";
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
  const byName = summaries(skills);
  let fit = describe(byName, cap, options, options.search === true);
  const offer = options.search === true || (options.search !== false && fit.left_out.length > 0);
  if (offer && options.search !== true) fit = describe(byName, cap, options, true);
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
  const search_index = createSkillIndex(
    [...byName.values()].map((s) => ({
      name: s.name,
      description: s.description ?? "",
      ...(s.metadata === undefined ? {} : { metadata: s.metadata }),
    })),
    options.lang === undefined ? {} : { lang: options.lang },
  );
  return Object.freeze({
    definitions: Object.freeze([skill, SEARCH_DEFINITION]),
    skill,
    skill_search: SEARCH_DEFINITION,
    search_index,
    left_out: Object.freeze([...fit.left_out]),
  });
}

/**
 * Handle one call of the `skill` tool: activate a skill, or read one page of a
 * bundled file through the safety gate. Anything wrong with the request —
 * invalid input, an unknown skill or file, a refusal — comes back as text with
 * `is_error: true`; the handler never throws.
 *
 * @param input What the model sent (any JSON value).
 * @param context The skills and the safety settings.
 * @returns The activation, the `[SKILL_RESOURCE_READ]` envelope, or an error text.
 * @example
 * ```ts
 * import { createBundle, handleSkillTool } from "../../mod.ts";
 * import { assert } from "./_assert.ts";
 *
 * const pdf = createBundle({
 *   frontmatter: { name: "pdf", description: "Fill PDF forms" },
 *   instructions: "Fill the form.",
 *   files: { "assets/form.txt": "Name: ____\n", "secret/key.txt": "k" },
 * });
 * const context = { skills: [pdf] };
 * assert.equal(handleSkillTool({ skill: "pdf" }, context).is_error, false);
 * const refused = handleSkillTool({ skill: "pdf", resource: "secret/key.txt" }, context);
 * assert.deepEqual(refused, {
 *   content: 'Refused to read non-standard resource "secret/key.txt": global safety is true, skill safety is true (both must be false)',
 *   is_error: true,
 * });
 * ```
 */
export function handleSkillTool(input: unknown, context: SkillToolContext): SkillToolResult {
  try {
    const cap = pageCap(context.max_page_bytes);
    const request = parseSkillToolInput(input, cap);
    const bundle = findSkill(context, request.skill);
    if (bundle === undefined) {
      return failure(`Unknown skill ${quoteShort(request.skill)}`);
    }
    const flags: SafetyFlags = {
      global_safety: context.global_safety !== false,
      skill_safety: skillSafety(context, request.skill),
    };
    if (request.resource === undefined) {
      if (typeof request.offset === "string") {
        return failure(
          `Offset ${
            JSON.stringify(request.offset)
          } addresses a line of a file; to page the manifest, pass a whole number`,
        );
      }
      return success(renderActivation(activateSkill(bundle, {
        ...flags,
        ...(request.offset === undefined ? {} : { offset: request.offset }),
        ...(context.max_manifest_entries === undefined
          ? {}
          : { max_entries: context.max_manifest_entries }),
        ...(context.tool_policy === undefined ? {} : {
          tool_policy: context.tool_policy,
          trusted: isTrustedSkill(bundle as PolicySkill, context.trusted ?? true),
        }),
      })));
    }
    const page = readResource(bundle, request.resource, {
      ...flags,
      max_page_bytes: cap,
      ...(request.offset === undefined ? {} : { offset: request.offset }),
      ...(request.limit === undefined ? {} : { limit: request.limit }),
    });
    return success(renderResourceRead(page));
  } catch (e) {
    return failure(
      shortenQuotes(e instanceof Error ? modelMessage(e) : `Unexpected error: ${String(e)}`),
    );
  }
}

/**
 * Error texts quote at most {@linkcode MAX_QUOTED} characters of any value:
 * each JSON-quoted value in the message that is longer is cut (one pass, no
 * regular expression, so a 10 MB value costs nothing more than reading it).
 */
function shortenQuotes(message: string): string {
  let out = "";
  let from = 0;
  for (let open = message.indexOf('"'); open >= 0; open = message.indexOf('"', from)) {
    let close = open + 1;
    while (close < message.length && message[close] !== '"') {
      close += message[close] === "\\" ? 2 : 1;
    }
    if (close >= message.length) break;
    const quoted = message.slice(open, close + 1);
    let value: unknown = null;
    try {
      value = quoted.length > MAX_QUOTED + 2 ? JSON.parse(quoted) : null;
    } catch {
      value = null;
    }
    out += message.slice(from, open) + (typeof value === "string" ? quoteShort(value) : quoted);
    from = close + 1;
  }
  return out + message.slice(from);
}

const MAX_QUOTED = 200;

/**
 * An error's message without host paths: a location keeps only its file's
 * name, a raw file-system error (from a caller's loader) only its code.
 */
function modelMessage(e: Error): string {
  const { location, syscall, code } = e as {
    location?: SourceLocation;
    syscall?: unknown;
    code?: unknown;
  };
  if (typeof syscall === "string") {
    return `Cannot load the skill: the file system refused (${String(code)})`;
  }
  if (location === undefined || typeof location?.file !== "string") return e.message;
  const file = location.file.slice(
    Math.max(location.file.lastIndexOf("/"), location.file.lastIndexOf("\\")) + 1,
  );
  return `${withoutLocation(e.message, location)} (${formatLocation({ ...location, file })})`;
}

/**
 * Check a model's input against the same rules as the definition's schema.
 *
 * @param input Any value.
 * @param maxPageBytes The page cap, which bounds `limit`; default 262144.
 * @returns The typed input.
 * @throws {TypeError} Naming the first field that breaks a rule.
 */
export function parseSkillToolInput(
  input: unknown,
  maxPageBytes: number = DEFAULT_MAX_PAGE_BYTES,
): SkillToolInput {
  if (typeof input !== "object" || input === null || Array.isArray(input)) {
    throw new TypeError('Invalid input: expected an object with a "skill" field');
  }
  const fields = input as Record<string, unknown>;
  for (const key of Object.keys(fields)) {
    if (!(FIELDS as readonly string[]).includes(key)) {
      throw new TypeError(
        `Invalid input: unknown field ${quoteShort(key)} (known: ${FIELDS.join(", ")})`,
      );
    }
  }
  if (!Object.hasOwn(fields, "skill")) throw new TypeError('Invalid input: "skill" is required');
  const { skill, resource, offset, limit } = fields;
  if (typeof skill !== "string") throw new TypeError('Invalid input: "skill" must be a string');
  const out: { skill: string; resource?: string; offset?: number | string; limit?: number } = {
    skill,
  };
  if (Object.hasOwn(fields, "resource")) {
    if (typeof resource !== "string" || resource === "") {
      throw new TypeError('Invalid input: "resource" must be a non-empty string');
    }
    out.resource = resource;
  }
  if (Object.hasOwn(fields, "offset")) {
    out.offset = typeof offset === "string" && LINE_BYTE.test(offset)
      ? offset
      : integer(offset, "offset", 0, 'or a "line+byte" next_offset');
  }
  if (Object.hasOwn(fields, "limit")) {
    out.limit = integer(limit, "limit", 1);
    if (out.limit > maxPageBytes) {
      throw new TypeError(`Invalid input: "limit" must be at most ${maxPageBytes}`);
    }
    // An offset without a resource pages the manifest; a limit without one means nothing.
    if (out.resource === undefined) {
      throw new TypeError(
        'Invalid input: "limit" needs "resource" (it sizes a page of a file; omit it to activate the skill)',
      );
    }
  }
  return out;
}

/**
 * The definition as an MCP tool.
 *
 * @param definition The `skill` or `skill_search` tool's definition.
 * @returns An MCP `tools/list` entry.
 */
export function toMcpTool(
  definition: SkillToolDefinition | SkillSearchToolDefinition,
): {
  name: string;
  description: string;
  inputSchema: JsonSchema;
} {
  return {
    name: definition.name,
    description: definition.description,
    inputSchema: definition.input_schema,
  };
}

/**
 * The definition as an OpenAI function tool.
 *
 * @param definition The `skill` or `skill_search` tool's definition.
 * @returns An OpenAI function tool.
 */
export function toOpenAITool(
  definition: SkillToolDefinition | SkillSearchToolDefinition,
): {
  type: "function";
  function: { name: string; description: string; parameters: JsonSchema };
} {
  return {
    type: "function",
    function: {
      name: definition.name,
      description: definition.description,
      parameters: definition.input_schema,
    },
  };
}

/**
 * The definition as an Anthropic tool.
 *
 * @param definition The `skill` or `skill_search` tool's definition.
 * @returns An Anthropic tool.
 */
export function toAnthropicTool(
  definition: SkillToolDefinition | SkillSearchToolDefinition,
): {
  name: string;
  description: string;
  input_schema: JsonSchema;
} {
  return {
    name: definition.name,
    description: definition.description,
    input_schema: definition.input_schema,
  };
}

function integer(value: unknown, name: string, min: number, or = ""): number {
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < min) {
    throw new TypeError(
      `Invalid input: "${name}" must be a whole number of at least ${min}${
        or === "" ? "" : ` ${or}`
      }`,
    );
  }
  return value;
}

/** The `"line+byte"` offset form (as in `readResource`): at most 15 digits each. */
const LINE_BYTE_PATTERN = "^(0|[1-9][0-9]{0,14})\\+(0|[1-9][0-9]{0,14})$";
const LINE_BYTE = new RegExp(LINE_BYTE_PATTERN);

function pageCap(value: number | undefined): number {
  if (value === undefined) return DEFAULT_MAX_PAGE_BYTES;
  if (!Number.isSafeInteger(value) || value < MIN_PAGE_BYTES) {
    throw new RangeError(
      `max_page_bytes must be a whole number of at least ${MIN_PAGE_BYTES}, got ${String(value)}`,
    );
  }
  return value;
}

/**
 * Names handed to a caller's loader: segments separated by `/` (MCP-served skills are
 * `origin:path`), each starting with a letter or digit and holding only letters, digits, `.`,
 * `_`, `:` and `-`. So no `..`, no absolute path, no backslash, no space, no control or bidi
 * character reaches a loader.
 */
const LOADER_SAFE_NAME = /^[\p{L}\p{N}][\p{L}\p{N}._:-]*(?:\/[\p{L}\p{N}][\p{L}\p{N}._:-]*)*$/u;

/**
 * The bundle the handler would use for a skill name, found the way
 * {@linkcode handleSkillTool} finds it (for wrappers that check a skill
 * first, such as a lock).
 *
 * @param context The handler's context.
 * @param name The skill name the model sent.
 * @returns The bundle, or `undefined` for an unknown name.
 * @throws Whatever a loader or a discovery's `bundle` throws.
 * @example
 * ```ts
 * import { findSkillBundle } from "./skill_tool.ts";
 * import { createBundle } from "./bundle.ts";
 * import { assert } from "./_assert.ts";
 *
 * const pdf = createBundle({ frontmatter: { name: "pdf", description: "PDF" }, instructions: "" });
 * assert.equal(findSkillBundle({ skills: [pdf] }, "pdf"), pdf);
 * assert.equal(findSkillBundle({ skills: () => pdf }, "../pdf"), undefined);
 * ```
 */
export function findSkillBundle(context: SkillToolContext, name: string): SkillBundle | undefined {
  return findSkill(context, name);
}

function findSkill(context: SkillToolContext, name: string): SkillBundle | undefined {
  const { skills } = context;
  if (typeof skills === "function") {
    // The name is the model's: a loader never sees one that could walk a path, and
    // its answer counts only when it is the skill that was asked for.
    if (!LOADER_SAFE_NAME.test(name)) return undefined;
    const bundle = skills(name) ?? undefined;
    return bundle?.name === name ? bundle : undefined;
  }
  if (isBundleSource(skills)) {
    // A discovery result looks names up in its own map; the same rule holds for its answer.
    const bundle = skills.bundle(name) ?? undefined;
    return bundle?.name === name ? bundle : undefined;
  }
  if (isMap(skills)) return skills.get(name);
  for (const bundle of skills) if (bundle.name === name) return bundle;
  return undefined;
}

function skillSafety(context: SkillToolContext, name: string): boolean {
  const table = context.skill_safety;
  let value: boolean | undefined;
  if (table === undefined) value = undefined;
  else if (typeof table === "function") value = table(name);
  else if (isMap(table)) value = table.get(name);
  else value = Object.hasOwn(table, name) ? table[name] : undefined;
  return value !== false;
}

function isBundleSource(value: unknown): value is SkillBundleSource {
  return typeof value === "object" && value !== null &&
    typeof (value as SkillBundleSource).bundle === "function";
}

function isMap<V>(value: unknown): value is ReadonlyMap<string, V> {
  return typeof value === "object" && value !== null &&
    typeof (value as ReadonlyMap<string, V>).get === "function" &&
    typeof (value as ReadonlyMap<string, V>).has === "function";
}

function success(content: string): SkillToolResult {
  return Object.freeze({ content, is_error: false });
}

function failure(content: string): SkillToolResult {
  return Object.freeze({ content, is_error: true });
}
