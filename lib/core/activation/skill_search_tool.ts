/**
 * The `skill_search` tool: its definition, and its handler, which finds skills
 * by what they do in a {@linkcode SkillIndex} — for the skills the `skill`
 * tool's description or the catalog could not list.
 *
 * Folder `lib/core/activation/` — activation and the model's tools: bodies, the skill tool, skill_search.
 *
 * @module
 */
import { deepFreeze } from "../_deep_freeze.ts";
import { escapeControls, quoteShort } from "../_text.ts";
import { failure, success } from "./_tool_result.ts";
import { searchSkills, type SkillIndex, type SkillSearchResult } from "../search/skill_index.ts";
import type { SkillSearchToolDefinition, SkillToolResult } from "./tool_format.ts";

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
 * import { skillSearchToolDefinition } from "./skill_search_tool.ts";
 * import { toOpenAITool } from "./tool_format.ts";
 * import { assert } from "../_assert.ts";
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
    "best first, each with its name, description and the words that matched. " +
    "Then call the `skill` tool with a name to use it.",
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
 * @throws Never.
 * @example
 * ```ts
 * import { createSkillIndex } from "../../../mod.ts";
 * import { handleSkillSearchTool } from "./skill_search_tool.ts";
 * import { assert } from "../_assert.ts";
 *
 * const index = createSkillIndex([
 *   { name: "pdf", description: "Fill in PDF forms" },
 *   { name: "csv", description: "Join CSV tables" },
 * ]);
 * assert.deepEqual(handleSkillSearchTool({ query: "join two tables" }, index), {
 *   content: '1 skill matches "join two tables", best first:\n' +
 *     "- csv: Join CSV tables [matched: join (description), tables (description)]\n" +
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
        ...results.map((r) => {
          const reasons = matchReasons(r);
          return `- ${escapeControls(r.name)}${
            r.description === "" ? "" : `: ${escapeControls(r.description)}`
          }${reasons === "" ? "" : ` [matched: ${reasons}]`}`;
        }),
        "Call the skill tool with a name to use it.",
      ].join("\n"),
    );
  } catch (e) {
    return failure(e instanceof Error ? e.message : `Unexpected error: ${String(e)}`);
  }
}

/**
 * Why a result matched, for the model and the CLI: the query terms with the
 * fields that hold them, a typo with the word it was read as, and
 * `similar in meaning` when an embedder ranked it:
 * `fill (description, body), powerpont→powerpoint (name)`.
 *
 * @param r A result.
 * @returns The reasons, escaped onto one line; empty for a match by name alone.
 */
export function matchReasons(r: SkillSearchResult): string {
  const parts = r.matched.map((m) =>
    `${escapeControls(m.term)}${m.typo_of === undefined ? "" : `→${escapeControls(m.typo_of)}`} (${
      m.fields.join(", ")
    })`
  );
  if (r.similarity !== undefined) parts.push("similar in meaning");
  return parts.join(", ");
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
