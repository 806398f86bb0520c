/**
 * Plain-JavaScript misuse at the entry points most used: a TypeError naming
 * what was passed and what to pass instead.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { activateSkill, handleSkillTool, readResource, resolveTools } from "../../mod.ts";
import { discoverSkills } from "../../lib/load.ts";
import { write } from "../_tree.ts";

describe("wrong shapes from plain JavaScript", () => {
  it("activateSkill and readResource name a discovered skill and say how to load it", () => {
    const temp = mkdtempSync(join(tmpdir(), "skillset-shape-"));
    try {
      write(join(temp, "pdf", "SKILL.md"), "---\nname: pdf\ndescription: Reads PDFs.\n---\nBody\n");
      const found = discoverSkills([{ scope: "s", path: temp }]);
      const skill = found.skills[0] as never;
      const message =
        /takes a SkillBundle .*got a discovered skill \(from discoverSkills: load it with loadSkillFolder\(skill\.path\)/;
      assert.throws(() => activateSkill(skill), { name: "TypeError", message });
      assert.throws(() => readResource(skill, "SKILL.md"), { name: "TypeError", message });
    } finally {
      rmSync(temp, { recursive: true, force: true });
    }
    for (const bad of [undefined, null, 3, "pdf", [], {}, Promise.resolve()]) {
      assert.throws(() => activateSkill(bad as never), {
        name: "TypeError",
        message: /^activateSkill\(bundle\) takes a SkillBundle/,
      });
    }
    assert.throws(() => activateSkill({ name: "x", files: new Map() } as never, null as never), {
      name: "TypeError",
      message: "activateSkill(bundle, options) takes an options object, got null",
    });
  });

  it("handleSkillTool and resolveTools name the missing shape", () => {
    assert.throws(() => handleSkillTool({ skill: "x" }, undefined as never), {
      name: "TypeError",
      message: /^handleSkillTool\(input, context\) takes a context object with "skills"/,
    });
    assert.throws(() => handleSkillTool({ skill: "x" }, [] as never), { name: "TypeError" });
    // resolveTools already names it, as a SkillDefinitionError with the skill and field.
    assert.throws(() => resolveTools(undefined as never, new Map()), {
      message: "Invalid skill: expected a skill object, got undefined",
    });
    assert.throws(() => readResource({ name: "x", files: new Map() } as never, 3 as never), {
      name: "TypeError",
      message: "readResource(bundle, path) takes the path as a string, got number",
    });
  });
});
