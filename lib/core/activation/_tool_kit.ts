/**
 * What a framework adapter (`skillset/ai`, `skillset/langchain`) needs to
 * wrap the skill tools as its framework's tools: each tool's description and
 * input schema from the core's definition (budget, modes, language, rank,
 * search), and a call answering with the core handler's text (safety
 * switches, page cap, tool policy and trust, dependencies, activation hook).
 * The adapters only wrap these; nothing of the tools is re-implemented.
 *
 * Folder `lib/core/activation/` — activation and the model's tools: bodies, the skill tool, skill_search.
 *
 * @module
 */
import type { SkillBundle } from "../resources/bundle.ts";
import { handleSkillTool, type SkillToolContext } from "./skill_tool.ts";
import { handleSkillSearchTool } from "./skill_search_tool.ts";
import { type SkillToolOptions, skillTools } from "./skill_tool_definition.ts";
import type { JsonSchema } from "./tool_format.ts";

/** An adapter's options: the definition's and the handler's, as the core takes them. */
export interface SkillToolKitOptions
  extends SkillToolOptions, Omit<SkillToolContext, "skills" | "modes" | "search"> {}

/** One tool as an adapter wraps it. */
export interface KitTool {
  /** The tool's description, as the core's definition words it. */
  readonly description: string;
  /** The tool's input schema (the core's, frozen: copy it where a framework writes into it). */
  readonly input_schema: JsonSchema;
  /**
   * Answer one call with the core handler's text; a refusal or a bad input
   * comes back as that text too, so the agent loop goes on.
   */
  readonly call: (input: unknown) => string;
}

/** The `skill` tool, and `skill_search` when offered. */
export interface SkillToolKit {
  /** The `skill` tool. */
  readonly skill: KitTool;
  /** `skill_search`, when offered (see {@linkcode SkillToolOptions.search}). */
  readonly skill_search?: KitTool;
}

/**
 * The skill tools for an adapter: the core's definitions for `skills` under
 * `options`, with the handler's context built once from the same options.
 *
 * @param skills The skills the model may activate.
 * @param options The definition's budget, modes, language and search; the handler's options.
 * @returns `{ skill }`, and `skill_search` when offered.
 * @throws {RangeError} As `skillToolDefinition` (a budget too small for the tool's own text).
 */
export function skillToolKit(
  skills: Iterable<SkillBundle> | ReadonlyMap<string, SkillBundle>,
  options: SkillToolKitOptions,
): SkillToolKit {
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
  const skill: KitTool = Object.freeze({
    description: made.skill.description,
    input_schema: made.skill.input_schema,
    call: (input: unknown) => handleSkillTool(input, context).content,
  });
  const index = made.search_index;
  if (made.skill_search === undefined || index === undefined) return Object.freeze({ skill });
  const skill_search: KitTool = Object.freeze({
    description: made.skill_search.description,
    input_schema: made.skill_search.input_schema as JsonSchema,
    call: (input: unknown) => handleSkillSearchTool(input, index).content,
  });
  return Object.freeze({ skill, skill_search });
}
