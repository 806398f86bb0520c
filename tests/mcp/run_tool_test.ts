// @slow: runs scripts in the sandbox through an MCP server (left out of `npm run test:quick`)
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { chmodSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { Client, InMemoryTransport } from "@modelcontextprotocol/client";
import type { McpServer } from "@modelcontextprotocol/server";
import { serveSkills } from "../../lib/mcp.ts";
import { loadSkillFolder, runSkillScript } from "../../lib/load.ts";
import { put } from "../_tree.ts";
import { copySkillCreator, tempFolders } from "../_run.ts";
/** skill-creator from anthropics/skills, with its stdlib-only scripts/aggregate_benchmark.py. */

const temp = tempFolders("skillset-run-tool-", 0o777);
/** skill-creator (anthropics/skills) copied where the sandbox's user can read it. */
const skillCreator = (): string => copySkillCreator(temp());

/** A benchmark folder as skill-creator's iterations write it: one eval, two configurations. */
function benchmark(): string {
  const dir = temp();
  const grading = (passed: number) =>
    JSON.stringify({ summary: { pass_rate: passed / 2, passed, failed: 2 - passed, total: 2 } });
  put(dir, "eval-1/with_skill/run-1/grading.json", grading(2));
  put(dir, "eval-1/without_skill/run-1/grading.json", grading(1));
  for (
    const sub of [
      "eval-1",
      "eval-1/with_skill",
      "eval-1/with_skill/run-1",
      "eval-1/without_skill",
      "eval-1/without_skill/run-1",
    ]
  ) {
    chmodSync(join(dir, sub), 0o777);
  }
  return dir;
}

async function connect(server: McpServer): Promise<Client> {
  const [here, there] = InMemoryTransport.createLinkedPair();
  await server.connect(there);
  const client = new Client({ name: "test-host", version: "1.0.0" });
  await client.connect(here);
  return client;
}

const text = (result: { content: unknown }): string =>
  (result.content as { type: string; text: string }[])[0]!.text;

const probe = await runSkillScript(
  loadSkillFolder(skillCreator()),
  "scripts/aggregate_benchmark.py",
  ["--help"],
)
  .then((r) => (r.exit_code === 0 ? false : `the sandbox does not run here: ${r.stderr.trim()}`))
  .catch((e: Error) => `the sandbox does not run here: ${e.message}`);

describe("serve --allow-scripts: the run_skill_script tool", () => {
  it("is not offered unless the host asks for it, and activations then list no scripts", async () => {
    const served = await serveSkills([skillCreator()], { onWarning: () => {} });
    const client = await connect(served.createServer());
    try {
      const { tools } = await client.listTools();
      assert.deepEqual(tools.map((t) => t.name), ["skill"]);
      const activation = await client.callTool({
        name: "skill",
        arguments: { skill: "skill-creator" },
      });
      assert.doesNotMatch(text(activation), /Runnable scripts/);
    } finally {
      await client.close();
    }
  });

  it(
    "runs skill-creator's aggregate_benchmark.py (anthropics/skills) and answers with its output",
    { skip: probe },
    async () => {
      const work = benchmark();
      const served = await serveSkills([skillCreator()], {
        onWarning: () => {},
        scripts: { cwd: work },
      });
      const client = await connect(served.createServer());
      try {
        const { tools } = await client.listTools();
        assert.deepEqual(tools.map((t) => t.name).sort(), ["run_skill_script", "skill"]);
        const activation = await client.callTool({
          name: "skill",
          arguments: { skill: "skill-creator" },
        });
        assert.match(text(activation), /\[run\] scripts\/aggregate_benchmark\.py \(python3\)/);
        const result = await client.callTool({
          name: "run_skill_script",
          arguments: {
            skill: "skill-creator",
            path: "scripts/aggregate_benchmark.py",
            args: [".", "--skill-name", "demo"],
          },
        });
        assert.equal(result.isError, false, text(result));
        const run = JSON.parse(text(result));
        assert.deepEqual([run.exit_code, run.sandbox, run.interpreter], [
          0,
          "bubblewrap",
          "python3",
        ]);
        assert.match(run.stdout, /Generated: benchmark\.json/);
        assert.match(run.stdout, /With Skill: 100\.0% pass rate/);
        assert.equal(
          JSON.parse(readFileSync(join(work, "benchmark.json"), "utf8")).metadata.skill_name,
          "demo",
        );
      } finally {
        await client.close();
      }
    },
  );

  it("answers a refusal as an error result: a gated path, an unknown skill", async () => {
    const dir = skillCreator();
    put(dir, "private/x.py", "print('gated')\n");
    const served = await serveSkills([dir], { onWarning: () => {}, scripts: {} });
    const client = await connect(served.createServer());
    try {
      const gated = await client.callTool({
        name: "run_skill_script",
        arguments: { skill: "skill-creator", path: "private/x.py" },
      });
      assert.equal(gated.isError, true);
      assert.match(text(gated), /^Refused to run non-standard resource "private\/x\.py"/);
      const unknown = await client.callTool({
        name: "run_skill_script",
        arguments: { skill: "nope", path: "scripts/a.py" },
      });
      assert.deepEqual([unknown.isError, text(unknown)], [true, 'Unknown skill "nope"']);
    } finally {
      await client.close();
    }
  });
});
