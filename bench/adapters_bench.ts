/**
 * The framework adapters' cost per tool call: the same `skill` tool call
 * (activate a skill, then read a 2,000-line page of its reference) made
 * through `handleSkillTool` directly (the baseline), through the AI SDK
 * tool's `execute` (`skillset/ai`), through the LangChain tool's own
 * function (`skillset/langchain`'s wrapper alone) and through LangChain's
 * `tool.invoke(toolCall)` as an agent's tool node calls it (the wrapper
 * plus LangChain's own schema check, callbacks and ToolMessage), beside the
 * same call through a tool a user would hand-wire with LangChain's `tool()`
 * helper around `handleSkillTool` (LangChain's own cost, for scale). Each case
 * makes the calls in a loop and is awaited, in interleaved rounds. Run:
 * `npm run bench -- adapters`.
 *
 * @module
 */
import { tool } from "@langchain/core/tools";
import { createBundle, handleSkillTool, skillTools } from "../mod.ts";
import { aiSkillTools } from "../lib/ai.ts";
import { langchainSkillTools } from "../lib/langchain.ts";
import { QUICK, timeRounds } from "./_harness.ts";

// Short rounds, many of them: the cases interleave finely, so a shared machine's load drifts
// over all of them alike (rounds of 500 calls scattered the ratios by ±20 % between runs).
const CALLS = 50;
const PDF = createBundle({
  frontmatter: { name: "pdf", description: "Fill PDF forms" },
  instructions: "Read references/forms.md first.\n".repeat(20),
  files: {
    "references/forms.md": Array.from({ length: 2000 }, (_, i) => `Field ${i}: a value.`).join(
      "\n",
    ),
  },
});
const INPUTS = [
  { skill: "pdf" },
  { skill: "pdf", resource: "references/forms.md" },
] as const;
// The workload and the cases, named as bench/_report.ts reads them.
const ADAPTERS_WORKLOAD = "skill tool call: activate, then read a 2,000-line page";
const ADAPTERS_BASE = "handleSkillTool directly";
const ADAPTERS_AI = "skillset/ai: tool.execute";
const ADAPTERS_LANGCHAIN = "skillset/langchain: the tool's function";
const ADAPTERS_LANGCHAIN_INVOKE = "skillset/langchain: tool.invoke(toolCall) (LangChain's run)";

const ADAPTERS_HAND_WIRED = "hand-wired: LangChain tool() around handleSkillTool, tool.invoke";

const ai = aiSkillTools([PDF]).skill;
const [lc] = langchainSkillTools([PDF]);
const context = { skills: [PDF], search: false };
// What a user writes without the adapter: LangChain's tool() helper around the core's handler.
const handWired = tool((input: unknown) => handleSkillTool(input, context).content, {
  name: "skill",
  description: lc!.description,
  schema: structuredClone(skillTools([PDF]).skill.input_schema) as Record<string, unknown>,
});
let sink = 0;

const cases = [
  {
    name: ADAPTERS_BASE,
    fn: () => {
      for (let i = 0; i < CALLS; i++) {
        for (const input of INPUTS) sink += handleSkillTool(input, context).content.length;
      }
    },
  },
  {
    name: ADAPTERS_AI,
    fn: async () => {
      for (let i = 0; i < CALLS; i++) {
        for (const input of INPUTS) {
          const out = await ai.execute!(input, { toolCallId: "1", messages: [] });
          sink += String(out).length;
        }
      }
    },
  },
  {
    name: ADAPTERS_LANGCHAIN,
    fn: async () => {
      for (let i = 0; i < CALLS; i++) {
        for (const input of INPUTS) sink += String(await lc!.func(input)).length;
      }
    },
  },
  {
    name: ADAPTERS_LANGCHAIN_INVOKE,
    fn: async () => {
      for (let i = 0; i < CALLS; i++) {
        for (const input of INPUTS) {
          const out = await lc!.invoke({ name: "skill", args: input, id: "1", type: "tool_call" });
          sink += String(out.content).length;
        }
      }
    },
  },
  {
    name: ADAPTERS_HAND_WIRED,
    fn: async () => {
      for (let i = 0; i < CALLS; i++) {
        for (const input of INPUTS) {
          const out: unknown = await handWired.invoke({
            name: "skill",
            args: input,
            id: "1",
            type: "tool_call",
          });
          sink += String((out as { content: unknown }).content).length;
        }
      }
    },
  },
];

await timeRounds("adapters", ADAPTERS_WORKLOAD, CALLS * INPUTS.length, cases, QUICK ? 20 : 150);
if (sink === 0) throw new Error("no output");
