import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { resolve } from "node:path";
import { Client, InMemoryTransport } from "@modelcontextprotocol/client";
import { activateSkill, compileToolPolicy } from "../../mod.ts";
import { loadSkillFolder } from "../../lib/load.ts";
import { mcpSkillBundles, serveSkills } from "../../lib/mcp.ts";

const EXAMPLES = resolve(import.meta.dirname ?? ".", "../..", "examples", "skills");

describe("a skill consumed over MCP grants no tools until the user approves it", () => {
  it("its allowed-tools do not count under trusted: true, and do once it is named", async () => {
    const served = await serveSkills([EXAMPLES]);
    const [here, there] = InMemoryTransport.createLinkedPair();
    await served.server.connect(there);
    const client = new Client({ name: "host", version: "1.0.0" });
    await client.connect(here);
    try {
      const skills = await mcpSkillBundles(client, { origin: "examples" });
      const remote = skills.bundles.get("examples:pdf");
      assert.ok(remote !== undefined, "the served pdf skill");
      assert.equal(remote.frontmatter["allowed-tools"], "read_file builtin/write_pdf");
      const local = loadSkillFolder(`${EXAMPLES}/pdf`);
      const call = { name: "read_file" };

      const both = compileToolPolicy({ active: [local, remote], mode: "restrict", trusted: true });
      assert.equal(both.decide(call).verdict, "allow"); // the local copy grants it
      assert.deepEqual(both.ignored, ["examples:pdf"]);

      const only = compileToolPolicy({ active: [remote], mode: "restrict", trusted: true });
      const refused = only.decide(call);
      assert.equal(refused.verdict, "deny");
      assert.equal(
        refused.reasons[1],
        'The allowed-tools of "examples:pdf" do not count: not trusted (a skill served over MCP grants tools only once the user approves it)',
      );
      const approved = compileToolPolicy({
        active: [remote],
        mode: "restrict",
        trusted: new Set(["examples:pdf"]),
      });
      assert.equal(approved.decide(call).verdict, "allow");
      const loaded = await skills.load("examples:pdf");
      assert.equal(activateSkill(loaded, { tool_policy: "restrict" }).tools?.counted, false);
    } finally {
      await client.close();
    }
  });
});
