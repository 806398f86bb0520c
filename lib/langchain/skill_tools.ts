/**
 * The skill tools as LangChain.js tools (`@langchain/core`): the `skill`
 * tool (activation and reads of bundled files, through the gate) and, when
 * the description cannot describe every skill or when asked,
 * `skill_search`, each with the core's definition (budget, modes, language,
 * rank) and the core's handler (safety switches, page cap, tool policy and
 * trust, dependencies, activation hook). Nothing is re-implemented here:
 * the model gets exactly what `handleSkillTool` and `handleSkillSearchTool`
 * answer.
 *
 * Folder `lib/langchain/` — the LangChain.js adapter behind `lib/langchain.ts`: the skill tools as LangChain tools.
 *
 * @module
 */
import { DynamicStructuredTool } from "@langchain/core/tools";
import type { SkillBundle } from "../core/resources/bundle.ts";
import {
  type KitTool,
  skillToolKit,
  type SkillToolKitOptions,
} from "../core/activation/_tool_kit.ts";

/** A copy LangChain may annotate: its JSON Schema validator writes into the schema, and the core's is frozen. */
function unfrozen(schema: object): Record<string, unknown> {
  return structuredClone(schema) as Record<string, unknown>;
}

/** Options of {@linkcode langchainSkillTools}: the definition's and the handler's, as the core takes them. */
export type LangchainSkillToolsOptions = SkillToolKitOptions;

/** A LangChain tool answering with the core handler's text. */
export type LangchainSkillTool = DynamicStructuredTool;

/**
 * The skill tools for LangChain.js: `[skill]`, or `[skill, skill_search]`
 * when search is offered, ready for `model.bindTools(tools)` and an agent's
 * tool node. Each tool answers with the core handler's text; a refusal (an
 * unknown skill, a file the gate keeps back) comes back as that text too,
 * so the loop goes on and the model reads why. An input that breaks the
 * tool's JSON schema is LangChain's to refuse, before the handler.
 *
 * @param skills The skills the model may activate (bundles: `loadSkillFolder`, a discovery's, MCP's).
 * @param options The definition's budget, modes, language and search; the handler's safety
 *   switches, page cap, tool policy, trust, dependencies and activation hook.
 * @returns The tools, `skill` first.
 * @throws {RangeError} As `skillToolDefinition` (a budget too small for the tool's own text).
 * @example
 * ```ts
 * import { langchainSkillTools } from "../langchain.ts";
 * import { createBundle } from "../../mod.ts";
 * import { assert } from "../core/_assert.ts";
 *
 * const pdf = createBundle({
 *   frontmatter: { name: "pdf", description: "Fill PDF forms" },
 *   instructions: "Use the form.\n",
 * });
 * const [skill] = langchainSkillTools([pdf]);
 * assert.equal(skill!.name, "skill");
 * const out = await skill!.invoke({ skill: "pdf" });
 * assert.ok(String(out).includes("Use the form."));
 * ```
 */
export function langchainSkillTools(
  skills: Iterable<SkillBundle> | ReadonlyMap<string, SkillBundle>,
  options: LangchainSkillToolsOptions = {},
): readonly LangchainSkillTool[] {
  const kit = skillToolKit(skills, options);
  const skill = langchainTool("skill", kit.skill);
  if (kit.skill_search === undefined) return Object.freeze([skill]);
  return Object.freeze([skill, langchainTool("skill_search", kit.skill_search)]);
}

/**
 * One tool of the kit as a LangChain tool. DynamicStructuredTool, not tool():
 * tool() runs each call inside an AsyncLocalStorage context for the runnables
 * a tool calls, and the handler calls none (it cost 1.5× a call, bench/adapters).
 */
function langchainTool(name: string, kit: KitTool): LangchainSkillTool {
  return new DynamicStructuredTool({
    name,
    description: kit.description,
    schema: unfrozen(kit.input_schema),
    func: (input: unknown) => Promise.resolve(kit.call(input)),
  });
}
