/**
 * The adapters' shared core (`lib/core/activation/_tool_kit.ts`): the tools
 * it gives are the core's definitions, and each call answers exactly as the
 * core's handlers do under the same options — the definition's options kept
 * out of the handler's context, `maxPageBytes` passed on as its page cap.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  createBundle,
  handleSkillSearchTool,
  handleSkillTool,
  type SkillBundle,
  skillTools,
} from "../../../mod.ts";
import { skillToolKit } from "../../../lib/core/activation/_tool_kit.ts";

const bundle = (i: number): SkillBundle =>
  createBundle({
    frontmatter: {
      name: `skill-${i}`,
      description: `Task number ${i}: fill in forms of kind ${i}`,
    },
    instructions: `Read references/r.md for kind ${i}.\n`,
    files: {
      "references/r.md": Array.from({ length: 300 }, (_, n) => `Line ${n} of ${i}.`).join("\n"),
      "extras/secret.txt": "do not show\n",
    },
  });

/** An answer with its envelope's nonce (random per activation) left out. */
const same = (text: string) => text.replaceAll(/nonce=[0-9a-f]+/g, "nonce=…");

describe("skillToolKit", () => {
  it("gives the core's definitions, and answers each call as the core's handlers do", () => {
    const skills = Array.from({ length: 40 }, (_, i) => bundle(i));
    const options = { budget: 2_800, maxPageBytes: 2_000 };
    const kit = skillToolKit(new Map(skills.map((s) => [s.frontmatter.name, s])), options);
    const made = skillTools(skills, options);
    assert.equal(kit.skill.description, made.skill.description);
    assert.deepEqual(kit.skill.input_schema, made.skill.input_schema);
    assert.ok(kit.skill_search !== undefined && made.skill_search !== undefined);
    assert.equal(kit.skill_search.description, made.skill_search.description);
    const context = { skills, max_page_bytes: 2_000, search: true };
    for (
      const input of [
        { skill: "skill-3" },
        { skill: "skill-3", resource: "references/r.md" },
        { skill: "skill-3", resource: "references/r.md", page: 2 },
        { skill: "skill-3", resource: "extras/secret.txt" },
        { skill: "nope" },
        "not an object",
      ]
    ) {
      assert.equal(same(kit.skill.call(input)), same(handleSkillTool(input, context).content));
    }
    for (const input of [{ query: "forms of kind 7" }, { query: 3 }]) {
      assert.equal(
        kit.skill_search.call(input),
        handleSkillSearchTool(input, made.search_index!).content,
      );
    }
  });

  it("offers no skill_search where the description holds every skill", () => {
    const kit = skillToolKit([bundle(1), bundle(2)], {});
    assert.equal(kit.skill_search, undefined);
    assert.match(kit.skill.call({ skill: "skill-2" }), /Read references\/r\.md for kind 2\./);
  });
});
