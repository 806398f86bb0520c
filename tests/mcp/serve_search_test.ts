// @slow: serves over MCP through a child process (left out of `npm run test:quick`)
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { Client, InMemoryTransport } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import type { McpServer } from "@modelcontextprotocol/server";
import { serveSkills } from "../../lib/mcp.ts";
import { cliCommand, put, skillMd, tempDir } from "../_mcp.ts";

const SKILLS = 300;
let root = "";

before(() => {
  root = tempDir();
  for (let i = 0; i < SKILLS; i++) {
    const name = `skill-${String(i).padStart(3, "0")}`;
    put(
      root,
      join("skills", name, "SKILL.md"),
      skillMd(
        name,
        `Use when the task needs gadget ${i}, with ${"careful steps ".repeat(10).trim()}`,
      ),
    );
  }
  put(
    root,
    join("skills", "pdf", "SKILL.md"),
    skillMd("pdf", "Fill in PDF forms", "# Stamps\nAdd a signature stamp to each page.\n"),
  );
});
after(() => rmSync(root, { recursive: true, force: true }));

async function connect(server: McpServer): Promise<Client> {
  const [here, there] = InMemoryTransport.createLinkedPair();
  await server.connect(there);
  const client = new Client({ name: "test-host", version: "1.0.0" });
  await client.connect(here);
  return client;
}

const text = (result: { content: unknown }): string =>
  (result.content as { type: string; text: string }[])[0]!.text;

describe("serve offers skill_search when the skill tool's description was cut", () => {
  it("publishes skill within the default 8,000 characters as sent and skill_search beside it", async () => {
    const served = await serveSkills([join(root, "skills")], { onWarning: () => {} });
    const client = await connect(served.createServer());
    try {
      const { tools } = await client.listTools();
      assert.deepEqual(tools.map((t) => t.name), ["skill", "skill_search"]);
      const skill = tools[0]!;
      // The whole definition as sent, not only its description, fits: the name is a plain string.
      assert.ok([...JSON.stringify(skill)].length <= 8000, `${JSON.stringify(skill).length}`);
      const property =
        (skill.inputSchema as unknown as { properties: { skill: { enum?: string[] } } }).properties
          .skill;
      assert.equal(property.enum, undefined);
      const unknown = await client.callTool({ name: "skill", arguments: { skill: "skill-28" } });
      assert.equal(unknown.isError, true);
      assert.equal(
        text(unknown),
        'Unknown skill "skill-28" (nearest: "skill-028", "skill-128", "skill-208"); ' +
          "call skill_search with words from the task to find one",
      );
      assert.match(skill.description!, /call `skill_search` with words from the task/);
      const found = await client.callTool({
        name: "skill_search",
        arguments: { query: "gadget 287", limit: 2 },
      });
      assert.equal(found.isError, false);
      assert.equal(text(found).split("\n")[1]!.split(":")[0], "- skill-287");
      // The served skills' bodies are indexed, and each line says why it matched.
      const byBody = await client.callTool({
        name: "skill_search",
        arguments: { query: "put a signature stamp on it", limit: 1 },
      });
      assert.equal(
        text(byBody).split("\n")[1],
        "- pdf: Fill in PDF forms [matched: signature (body), stamp (headings, body)]",
      );
      const bad = await client.callTool({ name: "skill_search", arguments: { query: "" } });
      assert.equal(bad.isError, true);
    } finally {
      await client.close();
    }
  });

  it("takes the budget from toolBudget, and offers no skill_search when every skill fits", async () => {
    const served = await serveSkills([join(root, "skills")], {
      onWarning: () => {},
      toolBudget: Infinity,
    });
    const client = await connect(served.createServer());
    try {
      const { tools } = await client.listTools();
      assert.deepEqual(tools.map((t) => t.name), ["skill"]);
      assert.ok([...tools[0]!.description!].length > 30_000);
    } finally {
      await client.close();
    }
    const small = await serveSkills([join(root, "skills")], {
      onWarning: () => {},
      toolBudget: 3000,
    });
    const other = await connect(small.createServer());
    try {
      const { tools } = await other.listTools();
      assert.ok([...JSON.stringify(tools[0]!)].length <= 3000);
    } finally {
      await other.close();
    }
  });

  it("skillset serve --tool-budget N over stdio, with the official client", async () => {
    const { command, args } = cliCommand(["serve", join(root, "skills"), "--tool-budget", "4000"]);
    const client = new Client({ name: "test-host", version: "1.0.0" });
    await client.connect(new StdioClientTransport({ command, args, stderr: "ignore" }));
    try {
      const { tools } = await client.listTools();
      assert.deepEqual(tools.map((t) => t.name), ["skill", "skill_search"]);
      assert.ok([...JSON.stringify(tools[0]!)].length <= 4000);
      const found = await client.callTool({ name: "skill_search", arguments: { query: "pdf" } });
      assert.equal(
        text(found).split("\n")[1],
        "- pdf: Fill in PDF forms [matched: pdf (name, description)]",
      );
    } finally {
      await client.close();
    }
  });
});

describe("serve caps an activation's body with maxBodyTokens (issue 43)", () => {
  it("the skill tool shows the first lines within the budget and points to SKILL.md's rest", async () => {
    const words = (text: string): number => text.split(/\s+/).filter((w) => w !== "").length;
    const served = await serveSkills([join(root, "skills")], {
      onWarning: () => {},
      maxBodyTokens: 4,
      countTokens: words,
    });
    const client = await connect(served.createServer());
    try {
      const result = await client.callTool({ name: "skill", arguments: { skill: "pdf" } });
      const body = text(result);
      assert.ok(body.includes("# Stamps"));
      assert.ok(!body.includes("signature"));
      assert.ok(
        body.includes(
          "The instructions above stop at 2 of 9 tokens (budget 4, counted by the host); read " +
            'the rest with the skill tool: skill "pdf", resource "SKILL.md", offset 5',
        ),
        body,
      );
      // The published SKILL.md stays whole.
      const read = await client.readResource({ uri: "skill://pdf/SKILL.md" });
      assert.ok(JSON.stringify(read).includes("signature stamp"));
    } finally {
      await client.close();
    }
    await assert.rejects(serveSkills([join(root, "skills")], { maxBodyTokens: 0 }), {
      name: "RangeError",
      message: "max_body_tokens must be a whole number of at least 1, got 0",
    });
  });
});
