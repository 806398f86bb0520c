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
import { type KitTool, skillToolKit, type SkillToolKitOptions } from "../core/activation/_tool_kit.ts";
import type { SkillToolOptions } from "../core/activation/skill_tool_definition.ts";

/** Options of {@linkcode aiSkillTools}: the definition's and the handler's, as the core takes them. */
export type AiSkillToolsOptions = SkillToolKitOptions;

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
  const kit = skillToolKit(skills, options);
  const skill = aiTool(kit.skill);
  if (kit.skill_search === undefined) return Object.freeze({ skill });
  return Object.freeze({ skill, skill_search: aiTool(kit.skill_search) });
}

/** One tool of the kit as an AI SDK tool. */
function aiTool(kit: KitTool): Tool<unknown, string> {
  return tool<unknown, string>({
    description: kit.description,
    inputSchema: jsonSchema(kit.input_schema as Parameters<typeof jsonSchema>[0]),
    execute: (input) => kit.call(input),
  });
}
