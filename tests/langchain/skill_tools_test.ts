/**
 * `skillset/langchain`: the skill tools driven end to end by LangChain's own
 * fake chat model (`fakeModel` from `@langchain/core/testing`), offline: the
 * model is bound to the tools, its tool calls run as LangChain runs them
 * (`tool.invoke(toolCall)` gives a `ToolMessage`), and the answers go back
 * to it.
 *
 * @module
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { AIMessage, type BaseMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import { fakeModel } from "@langchain/core/testing";
import { ToolInputParsingException } from "@langchain/core/tools";
import { type LangchainSkillTool, langchainSkillTools } from "../../lib/langchain.ts";
import { createBundle } from "../../mod.ts";

const PDF = createBundle({
  frontmatter: { name: "pdf", description: "Fill PDF forms" },
  instructions: "Read references/forms.md first.\n",
  files: { "references/forms.md": "# Forms\nField one.\n", "extras/secret.txt": "do not show\n" },
});

/** An agent loop: the model's tool calls run until it answers with text (at most `steps` turns). */
async function run(
  model: ReturnType<typeof fakeModel>,
  tools: readonly LangchainSkillTool[],
  steps = 6,
): Promise<{ text: string; outputs: string[]; messages: BaseMessage[] }> {
  const bound = model.bindTools([...tools]);
  const messages: BaseMessage[] = [new HumanMessage("Fill the form")];
  const outputs: string[] = [];
  for (let i = 0; i < steps; i++) {
    const reply = await bound.invoke(messages);
    messages.push(reply);
    const calls = reply.tool_calls ?? [];
    if (calls.length === 0) return { text: String(reply.content), outputs, messages };
    for (const call of calls) {
      const chosen = tools.find((t) => t.name === call.name);
      assert.ok(chosen !== undefined, `no tool ${call.name}`);
      const answer: unknown = await chosen.invoke({ ...call, type: "tool_call" });
      assert.ok(answer instanceof ToolMessage);
      messages.push(answer);
      outputs.push(String(answer.content));
    }
  }
  assert.fail("the loop did not end");
}

describe("langchainSkillTools with LangChain's fake model", () => {
  it("a full round trip: the model activates a skill and reads its file, the gate refuses the rest", async () => {
    const model = fakeModel()
      .respondWithTools([{ name: "skill", args: { skill: "pdf" } }])
      .respondWithTools([{
        name: "skill",
        args: { skill: "pdf", resource: "references/forms.md" },
      }])
      .respondWithTools([{ name: "skill", args: { skill: "pdf", resource: "extras/secret.txt" } }])
      .respond(new AIMessage("done"));
    const { text, outputs, messages } = await run(model, langchainSkillTools([PDF]));
    assert.equal(text, "done");
    const [activated, read, refused] = outputs;
    assert.ok(activated!.includes("Read references/forms.md first."), activated);
    assert.ok(read!.includes("Field one."), read);
    assert.ok(!refused!.includes("do not show"), refused);
    assert.match(refused!, /Refused to read non-standard resource "extras\/secret.txt"/);
    // The model saw each answer: the last call's messages end with the refusal.
    assert.equal(model.callCount, 4);
    assert.equal(messages.filter((m) => m instanceof ToolMessage).length, 3);
  });

  it("the model is offered the core's definition, and the handler takes the host's switches", async () => {
    const tools = langchainSkillTools([PDF], {
      global_safety: false,
      skill_safety: { pdf: false },
    });
    assert.deepEqual(tools.map((t) => t.name), ["skill"]);
    assert.ok(tools[0]!.description.includes("pdf: Fill PDF forms"), tools[0]!.description);
    const model = fakeModel()
      .respondWithTools([{ name: "skill", args: { skill: "pdf", resource: "extras/secret.txt" } }])
      .respond(new AIMessage("done"));
    const { outputs } = await run(model, tools);
    assert.ok(outputs[0]!.includes("do not show"), outputs[0]);
  });

  it("an unknown skill is outside the schema's enum: LangChain refuses it before the handler", async () => {
    const [skill] = langchainSkillTools([PDF]);
    await assert.rejects(
      skill!.invoke({ name: "skill", args: { skill: "nope" }, id: "1", type: "tool_call" }),
      (e: unknown) =>
        e instanceof ToolInputParsingException &&
        e.message === "Received tool input did not match expected schema",
    );
  });

  it("an input the schema takes but the core refuses comes back as the core's text", async () => {
    const model = fakeModel()
      .respondWithTools([{ name: "skill", args: { skill: "pdf", resource: "../../etc/passwd" } }])
      .respond(new AIMessage("done"));
    const { text, outputs } = await run(model, langchainSkillTools([PDF]));
    assert.equal(text, "done");
    assert.equal(
      outputs[0],
      `Invalid resource path "../../etc/passwd": it contains ".." and could leave the skill folder`,
    );
    assert.ok(!outputs[0]!.includes("root:"), outputs[0]);
  });

  it("offers skill_search when the budget leaves skills out, and it finds them", async () => {
    const many = Array.from({ length: 200 }, (_, i) =>
      createBundle({
        frontmatter: { name: `skill-${i}`, description: `Task ${i}: ${"details ".repeat(20)}` },
        instructions: `Body ${i}.\n`,
      }));
    const tools = langchainSkillTools(many);
    assert.deepEqual(tools.map((t) => t.name), ["skill", "skill_search"]);
    const model = fakeModel()
      .respondWithTools([{ name: "skill_search", args: { query: "skill-199" } }])
      .respondWithTools([{ name: "skill", args: { skill: "skill-199" } }])
      .respond(new AIMessage("done"));
    const { outputs } = await run(model, tools);
    assert.ok(outputs[0]!.includes("- skill-199: Task 199"), outputs[0]);
    assert.ok(outputs[1]!.includes("Body 199."), outputs[1]);
  });
});
