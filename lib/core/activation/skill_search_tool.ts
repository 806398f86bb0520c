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
import {
  HostPaths,
  MAX_SEARCH_PATH_LENGTH,
  MAX_SEARCH_PATHS,
  readSearchPaths,
} from "../catalog/skill_paths.ts";
import type { SkillSearchToolDefinition, SkillToolResult } from "./tool_format.ts";

/** What the model sends to `skill_search`. */
export interface SkillSearchInput {
  /** Words of the task, or a skill's name. */
  readonly query: string;
  /** The most results; default 10, at most 50. */
  readonly limit?: number;
  /**
   * The files in play (relative to the project root): a skill whose SKILL.md has `paths` is
   * found when one of its globs matches one of these or of the host's own paths.
   */
  readonly paths?: readonly string[];
}

/**
 * The skills with `paths` an index built by `skillTools` holds (by name, with
 * their globs) and the host's own paths: `skill_search` finds such a skill
 * only when one of its globs matches a host path or a path of the call.
 */
export interface SkillSearchScope {
  /** The path-conditional skills of the index, by name, with their globs. */
  readonly conditional: ReadonlyMap<string, readonly string[]>;
  /** The host's paths (`paths` of the catalog options), matched for every call. */
  readonly host: HostPaths;
}

/** The scope of each index `skillTools` built, so a host passing only the index gets it too. */
const SCOPES = new WeakMap<SkillIndex, SkillSearchScope>();

/**
 * Tie a scope to an index (`skillTools` calls this for the index it builds).
 *
 * @param index The index.
 * @param scope Its path-conditional skills and the host's paths.
 * @returns The index.
 */
export function scopeSearchIndex(index: SkillIndex, scope: SkillSearchScope): SkillIndex {
  SCOPES.set(index, scope);
  return index;
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
      paths: {
        type: "array",
        maxItems: MAX_SEARCH_PATHS,
        items: { type: "string", maxLength: MAX_SEARCH_PATH_LENGTH },
        description: "The files you are working on, relative to the project root " +
          '(e.g. ["src/App.tsx"]): skills meant for such files are found too.',
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
    const { query, limit, paths } = parseSkillSearchInput(input);
    const results = scopedSearch(index, query, limit ?? 10, paths);
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
 * The results a call may see: a path-conditional skill only when one of its
 * globs matches a host path or a path of the call. The others are left out
 * of the search itself, so the no-match threshold and the name match are
 * decided over the skills the caller can see: a strong match among hidden
 * skills neither lets a weak visible one through nor holds a plausible one
 * back.
 */
function scopedSearch(
  index: SkillIndex,
  query: string,
  limit: number,
  paths: readonly string[] | undefined,
): readonly SkillSearchResult[] {
  const scope = SCOPES.get(index);
  if (scope === undefined || scope.conditional.size === 0) {
    return searchSkills(index, query, { limit });
  }
  const call = paths === undefined || paths.length === 0 ? undefined : new HostPaths(paths);
  return index.search(query, limit, true, (name) => {
    const globs = scope.conditional.get(name);
    return globs === undefined || scope.host.matches(globs) || call?.matches(globs) === true;
  });
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
    if (key !== "query" && key !== "limit" && key !== "paths") {
      throw new TypeError(
        `Invalid input: unknown field ${quoteShort(key)} (known: query, limit, paths)`,
      );
    }
  }
  const { query } = fields;
  if (typeof query !== "string" || query === "" || query.length > MAX_SEARCH_QUERY) {
    throw new TypeError(
      `Invalid input: "query" must be a string of 1 to ${MAX_SEARCH_QUERY} characters`,
    );
  }
  const paths = Object.hasOwn(fields, "paths") ? readSearchPaths(fields["paths"]) : undefined;
  if (!Object.hasOwn(fields, "limit")) return paths === undefined ? { query } : { query, paths };
  const limit = fields["limit"];
  if (
    typeof limit !== "number" || !Number.isSafeInteger(limit) || limit < 1 ||
    limit > MAX_SEARCH_LIMIT
  ) {
    throw new TypeError(
      `Invalid input: "limit" must be a whole number from 1 to ${MAX_SEARCH_LIMIT}`,
    );
  }
  return paths === undefined ? { query, limit } : { query, limit, paths };
}
