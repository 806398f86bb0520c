/**
 * The Vercel AI SDK adapter (`skillset/ai`): the skill tools as that SDK's
 * tools. The `ai` package is an optional peer dependency: only this entry
 * point imports it.
 *
 * ```ts
 * import { aiSkillTools } from "./ai.ts";
 * import { createBundle } from "../mod.ts";
 * import { assert } from "./core/_assert.ts";
 *
 * const pdf = createBundle({
 *   frontmatter: { name: "pdf", description: "Fill PDF forms" },
 *   instructions: "Use it.\n",
 * });
 * const tools = aiSkillTools([pdf]);
 * assert.ok(tools.skill.description?.includes("pdf"));
 * ```
 *
 * @module
 */
export { aiSkillTools } from "./ai/skill_tools.ts";
export type { AiSkillTools, AiSkillToolsOptions } from "./ai/skill_tools.ts";
