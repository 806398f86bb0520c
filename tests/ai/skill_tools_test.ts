/**
 * `skillset/ai`: the skill tools driven end to end by the AI SDK's own mock
 * model (`MockLanguageModelV3` from `ai/test`) through `generateText`, offline.
 *
 * @module
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { generateText, stepCountIs } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import { aiSkillTools } from "../../lib/ai.ts";
import { createBundle } from "../../mod.ts";

const USAGE = {
  inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 1, text: 1, reasoning: 0 },
};

const PDF = createBundle({
  frontmatter: { name: "pdf", description: "Fill PDF forms" },
  instructions: "Read references/forms.md first.\n",
  files: { "references/forms.md": "# Forms\nField one.\n", "extras/secret.txt": "do not show\n" },
});

/** A mock model that makes these tool calls, one step each, then answers "done". */
function scripted(calls: readonly { tool: string; input: unknown }[]) {
  const prompts: unknown[] = [];
  let step = 0;
  const model = new MockLanguageModelV3({
    doGenerate: (options) => {
      prompts.push(options.prompt);
      const call = calls[step++];
      if (call === undefined) {
        return Promise.resolve({
          content: [{ type: "text" as const, text: "done" }],
          finishReason: { unified: "stop" as const, raw: "stop" },
          usage: USAGE,
          warnings: [],
        });
      }
      return Promise.resolve({
        content: [{
          type: "tool-call" as const,
          toolCallId: `call-${step}`,
          toolName: call.tool,
          input: JSON.stringify(call.input),
        }],
        finishReason: { unified: "tool-calls" as const, raw: "tool_calls" },
        usage: USAGE,
        warnings: [],
      });
    },
  });
  return { model, prompts };
}

/** The text of every tool result of a run, in order. */
function toolOutputs(steps: readonly { toolResults: readonly unknown[] }[]): string[] {
  return steps.flatMap((s) => s.toolResults.map((r) => String((r as { output: unknown }).output)));
}

describe("aiSkillTools with the AI SDK's mock model", () => {
  it("a full round trip: the model activates a skill and reads its file, the gate refuses the rest", async () => {
    const tools = aiSkillTools([PDF]);
    const { model } = scripted([
      { tool: "skill", input: { skill: "pdf" } },
      { tool: "skill", input: { skill: "pdf", resource: "references/forms.md" } },
      { tool: "skill", input: { skill: "pdf", resource: "extras/secret.txt" } },
    ]);
    const result = await generateText({
      model,
      tools: { ...tools },
      prompt: "Fill the form",
      stopWhen: stepCountIs(5),
    });
    assert.equal(result.text, "done");
    const [activated, read, refused] = toolOutputs(result.steps);
    assert.ok(activated!.includes("Read references/forms.md first."), activated);
    assert.ok(read!.includes("Field one."), read);
    assert.ok(!refused!.includes("do not show"), refused);
    assert.match(refused!, /Refused to read non-standard resource "extras\/secret.txt"/);
  });

  it("the model sees the core's definition, and the handler takes the host's switches", async () => {
    const tools = aiSkillTools([PDF], { global_safety: false, skill_safety: { pdf: false } });
    const { model, prompts } = scripted([
      { tool: "skill", input: { skill: "pdf", resource: "extras/secret.txt" } },
    ]);
    const result = await generateText({
      model,
      tools: { ...tools },
      prompt: "x",
      stopWhen: stepCountIs(3),
    });
    assert.ok(toolOutputs(result.steps)[0]!.includes("do not show"));
    assert.equal(prompts.length, 2);
    const offered = (model.doGenerateCalls[0]!.tools ?? []) as {
      name: string;
      inputSchema: unknown;
    }[];
    assert.deepEqual(offered.map((t) => t.name), ["skill"]);
  });

  it("an input the core refuses comes back as its text, and the loop goes on", async () => {
    const { model } = scripted([{ tool: "skill", input: { skill: "nope" } }]);
    const result = await generateText({
      model,
      tools: { ...aiSkillTools([PDF]) },
      prompt: "x",
      stopWhen: stepCountIs(3),
    });
    assert.equal(result.text, "done");
    assert.match(toolOutputs(result.steps)[0]!, /Unknown skill "nope"/);
  });

  it("offers skill_search when the budget leaves skills out, and it finds them", async () => {
    const many = Array.from({ length: 200 }, (_, i) =>
      createBundle({
        frontmatter: { name: `skill-${i}`, description: `Task ${i}: ${"details ".repeat(20)}` },
        instructions: `Body ${i}.\n`,
      }));
    const tools = aiSkillTools(many);
    assert.ok(tools.skill_search !== undefined);
    const { model } = scripted([
      { tool: "skill_search", input: { query: "skill-199" } },
      { tool: "skill", input: { skill: "skill-199" } },
    ]);
    const result = await generateText({
      model,
      tools: { ...tools },
      prompt: "x",
      stopWhen: stepCountIs(4),
    });
    const [found, activated] = toolOutputs(result.steps);
    assert.ok(found!.includes("- skill-199: Task 199"), found);
    assert.ok(activated!.includes("Body 199."), activated);
  });
});
