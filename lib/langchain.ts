/**
 * The LangChain.js adapter (`skillset/langchain`): the skill tools as
 * LangChain tools. `@langchain/core` is an optional peer dependency: only
 * this entry point imports it.
 *
 * ```ts
 * import { langchainSkillTools } from "./langchain.ts";
 * import { createBundle } from "../mod.ts";
 * import { assert } from "./core/_assert.ts";
 *
 * const pdf = createBundle({
 *   frontmatter: { name: "pdf", description: "Fill PDF forms" },
 *   instructions: "Use it.\n",
 * });
 * const tools = langchainSkillTools([pdf]);
 * assert.ok(tools[0]!.description.includes("pdf"));
 * ```
 *
 * @module
 */
export { langchainSkillTools } from "./langchain/skill_tools.ts";
export type { LangchainSkillTool, LangchainSkillToolsOptions } from "./langchain/skill_tools.ts";
