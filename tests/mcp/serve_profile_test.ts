/**
 * `serveSkills` under a profile and the host's paths (`profile`, `paths` of
 * `lib/mcp/_serve_options.ts`): the `skill` tool and `skill_search` offer only
 * the profile's skills; the others stay resources for the host.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { Client, InMemoryTransport } from "@modelcontextprotocol/client";
import {
  handleSkillSearchTool,
  handleSkillTool,
  resolveSkillProfile,
  skillTools,
} from "../../mod.ts";
import { serveSkills } from "../../lib/mcp.ts";
import { put, skillMd, tempDir } from "../_mcp.ts";

function folder(): string {
  const dir = tempDir();
  for (const name of ["code-review", "git-log", "pdf"]) put(dir, `${name}/SKILL.md`, skillMd(name));
  put(
    dir,
    "ui/SKILL.md",
    '---\nname: ui\ndescription: The ui skill\npaths: ["**/*.tsx"]\n---\nDo ui.\n',
  );
  return dir;
}

const review = resolveSkillProfile(
  new Map([["review", { include: ["code-*", "git-*", "ui"] }]]),
  "review",
);

async function connect(served: Awaited<ReturnType<typeof serveSkills>>): Promise<Client> {
  const [here, there] = InMemoryTransport.createLinkedPair();
  await served.server.connect(there);
  const client = new Client({ name: "profile-test", version: "1.0.0" });
  await client.connect(here);
  return client;
}

describe("serveSkills with a profile", () => {
  it("offers only the profile's skills in the tool; a left-out one is unknown to the model", async () => {
    const served = await serveSkills([folder()], { onWarning: () => {}, profile: review });
    const client = await connect(served);
    try {
      const { tools } = await client.listTools();
      const skill = tools.find((t) => t.name === "skill")!;
      const schema = skill.inputSchema as unknown as { properties: { skill: { enum: string[] } } };
      assert.deepEqual(schema.properties.skill.enum, ["code-review", "git-log"]);
      // Still resources for the host.
      assert.ok(served.catalog.entries.some((e) => e.uri === "skill://pdf/SKILL.md"));
    } finally {
      await client.close();
    }
  });

  it("offers a skill with paths only when the host's paths match", async () => {
    const served = await serveSkills([folder()], {
      onWarning: () => {},
      profile: review,
      paths: ["src/App.tsx"],
    });
    const client = await connect(served);
    try {
      const { tools } = await client.listTools();
      const schema = tools.find((t) => t.name === "skill")!.inputSchema as unknown as {
        properties: { skill: { enum: string[] } };
      };
      assert.deepEqual(schema.properties.skill.enum, ["code-review", "git-log", "ui"]);
    } finally {
      await client.close();
    }
  });

  it("skill_search's index and the skill tool's handler keep to the profile", async () => {
    const served = await serveSkills([folder()], { onWarning: () => {} });
    const tools = skillTools(served.skills.values(), { profile: review, search: true });
    const found = handleSkillSearchTool({ query: "pdf skill" }, tools.search_index!);
    assert.doesNotMatch(found.content, /- pdf/);
    const context = { skills: served.skills, profile: review };
    assert.deepEqual(handleSkillTool({ skill: "pdf" }, context), {
      content: 'Unknown skill "pdf"',
      is_error: true,
    });
    // The user may still name it.
    assert.equal(handleSkillTool({ skill: "pdf" }, context, { user: true }).is_error, false);
  });

  it("skill_search takes the model's paths: a skill with paths is found when one matches, and hostile paths are refused", async () => {
    const served = await serveSkills([folder()], { onWarning: () => {}, profile: review });
    const client = await connect(served);
    try {
      const { tools } = await client.listTools();
      const search = tools.find((t) => t.name === "skill_search")!;
      const schema = search.inputSchema as unknown as {
        properties: { paths: { maxItems: number; items: { maxLength: number } } };
      };
      assert.deepEqual(schema.properties.paths.maxItems, 100);
      assert.deepEqual(schema.properties.paths.items.maxLength, 1024);
      const call = async (args: Record<string, unknown>) => {
        const r = await client.callTool({ name: "skill_search", arguments: args });
        return { text: (r.content as { text: string }[])[0]!.text, isError: r.isError === true };
      };
      assert.doesNotMatch((await call({ query: "ui skill" })).text, /^- ui/m);
      assert.match((await call({ query: "ui skill", paths: ["src/App.tsx"] })).text, /^- ui/m);
      assert.doesNotMatch((await call({ query: "ui skill", paths: ["README.md"] })).text, /^- ui/m);
      const many = Array.from({ length: 101 }, (_, i) => `src/f${i}.tsx`);
      const refused = await call({ query: "ui skill", paths: many });
      assert.equal(refused.isError, true);
      assert.match(refused.text, /paths/);
      const long = await call({ query: "ui skill", paths: ["x".repeat(1025)] });
      assert.equal(long.isError, true);
      // The profile still wins: a path never brings in a skill the profile leaves out.
      assert.doesNotMatch((await call({ query: "pdf skill", paths: ["a.pdf"] })).text, /^- pdf/m);
    } finally {
      await client.close();
    }
  });
});
