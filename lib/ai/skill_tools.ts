/**
 * The skill tools as tools of the Vercel AI SDK (`ai`): the `skill` tool
 * (activation and reads of bundled files, through the gate) and, when the
 * description cannot describe every skill or when asked, `skill_search`,
 * each with the core's definition (budget, modes, language, rank) and the
 * core's handler (safety switches, page cap, tool policy and trust,
 * dependencies, activation hook). Nothing is re-implemented here: the model
 * gets exactly what `handleSkillTool` and `handleSkillSearchTool` answer.
 *
 * Folder `lib/ai/` — the Vercel AI SDK adapter behind `lib/ai.ts`: the skill tools as that SDK's tools.
 *
 * @module
 */
import { jsonSchema, type Tool, tool } from "ai";
import type { SkillBundle } from "../core/resources/bundle.ts";
import { handleSkillTool, type SkillToolContext } from "../core/activation/skill_tool.ts";
import { handleSkillSearchTool } from "../core/activation/skill_search_tool.ts";
import { type SkillToolOptions, skillTools } from "../core/activation/skill_tool_definition.ts";
import type { JsonSchema } from "../core/activation/tool_format.ts";

/** Options of {@linkcode aiSkillTools}: the definition's and the handler's, as the core takes them. */
export interface AiSkillToolsOptions
  extends SkillToolOptions, Omit<SkillToolContext, "skills" | "modes" | "search"> {}

/** The tools {@linkcode aiSkillTools} returns, ready for `generateText({ tools })`. */
export interface AiSkillTools {
  /** The `skill` tool. */
  readonly skill: Tool<unknown, string>;
  /** `skill_search`, when offered (see {@linkcode SkillToolOptions.search}). */
  readonly skill_search?: Tool<unknown, string>;
}

/**
 * The skill tools for the Vercel AI SDK. Each tool's `execute` answers with
 * the core handler's text; a refusal or a bad input comes back as that text
 * too (the core's `is_error` answers), so the agent loop goes on and the
 * model reads why.
 *
 * @param skills The skills the model may activate (bundles: `loadSkillFolder`, a discovery's, MCP's).
 * @param options The definition's budget, modes, language and search; the handler's safety
 *   switches, page cap, tool policy, trust, dependencies and activation hook.
 * @returns `{ skill }`, and `skill_search` when offered.
 * @throws {RangeError} As `skillToolDefinition` (a budget too small for the tool's own text).
 * @example
 * ```ts
 * import { aiSkillTools } from "../ai.ts";
 * import { createBundle } from "../../mod.ts";
 * import { assert } from "../core/_assert.ts";
 *
 * const pdf = createBundle({
 *   frontmatter: { name: "pdf", description: "Fill PDF forms" },
 *   instructions: "Use the form.\n",
 * });
 * const tools = aiSkillTools([pdf]);
 * assert.equal(tools.skill_search, undefined);
 * const out = await tools.skill.execute!({ skill: "pdf" }, { toolCallId: "1", messages: [] });
 * assert.ok(String(out).includes("Use the form."));
 * ```
 */
export function aiSkillTools(
  skills: Iterable<SkillBundle> | ReadonlyMap<string, SkillBundle>,
  options: AiSkillToolsOptions = {},
): AiSkillTools {
  const list = skills instanceof Map ? [...skills.values()] : [...skills as Iterable<SkillBundle>];
  const made = skillTools(list, options);
  const {
    budget: _budget,
    descriptionFloor: _floor,
    rank: _rank,
    lang: _lang,
    maxPageBytes,
    ...handler
  } = options;
  const context: SkillToolContext = {
    ...handler,
    skills: list,
    ...(maxPageBytes === undefined ? {} : { max_page_bytes: maxPageBytes }),
    ...(options.modes === undefined ? {} : { modes: options.modes }),
    search: made.skill_search !== undefined,
  };
  const skill = tool<unknown, string>({
    description: made.skill.description,
    inputSchema: jsonSchema(made.skill.input_schema as Parameters<typeof jsonSchema>[0]),
    execute: (input) => handleSkillTool(input, context).content,
  });
  const index = made.search_index;
  if (made.skill_search === undefined || index === undefined) return Object.freeze({ skill });
  const skill_search = tool<unknown, string>({
    description: made.skill_search.description,
    inputSchema: jsonSchema(
      made.skill_search.input_schema as JsonSchema as Parameters<
        typeof jsonSchema
      >[0],
    ),
    execute: (input) => handleSkillSearchTool(input, index).content,
  });
  return Object.freeze({ skill, skill_search });
}
