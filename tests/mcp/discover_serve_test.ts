import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { discoverSkills } from "../../lib/load.ts";
import { serveSkills } from "../../lib/mcp.ts";
import { handleSkillTool } from "../../mod.ts";
import { link, write } from "../_tree.ts";

let temp = "";

before(() => {
  temp = realpathSync(mkdtempSync(join(tmpdir(), "skillset-discover-serve-")));
});
after(() => rmSync(temp, { recursive: true, force: true }));

describe("serveSkills with a discovery result", () => {
  it("serves the winners, and skips with a warning what the SDK refuses", async () => {
    write(
      join(temp, "a", "pdf", "SKILL.md"),
      "---\nname: pdf\ndescription: Project PDF\n---\n# PDF\n",
    );
    write(join(temp, "a", "pdf", "references", "forms.md"), "# Forms\n");
    write(
      join(temp, "b", "pdf", "SKILL.md"),
      "---\nname: pdf\ndescription: User PDF\n---\n# PDF\n",
    );
    write(
      join(temp, "a", "vendor", "long", "SKILL.md"),
      `---\nname: long\ndescription: ${"word ".repeat(300).trim()}\ncolour: red\n---\n# Long\n`,
    );
    const found = discoverSkills([
      { scope: "project", path: join(temp, "a") },
      { scope: "user", path: join(temp, "b") },
    ]);
    const warnings: unknown[] = [];

    const served = await serveSkills(found, { onWarning: (w) => warnings.push(w) });

    assert.deepEqual([...served.skills.keys()], ["pdf"]);
    assert.equal(served.skills.get("pdf")!.location, join(temp, "a", "pdf"));
    assert.deepEqual(
      served.catalog.entries.map((e) => e.uri),
      ["skill://pdf/SKILL.md"],
    );
    assert.equal(warnings.length, 1);
    assert.match(JSON.stringify(warnings[0]), /long.*description must be 1-1024 characters/);
    // The skill tool over the discovery itself reaches the lenient skill.
    assert.equal(handleSkillTool({ skill: "long" }, { skills: found }).is_error, false);
  });

  it("serves every skill list loads: an alias is served from its real folder, once", async () => {
    // As in a repository whose .gemini/skills/<name>/SKILL.md link to the real skills.
    const repo = join(temp, "linked");
    for (const name of ["alpha", "beta"]) {
      write(
        join(repo, "engineering", "team", "skills", name, "SKILL.md"),
        `---\nname: ${name}\ndescription: The ${name} skill\n---\n# ${name}\n`,
      );
      write(join(repo, "engineering", "team", "skills", name, "references", "x.md"), "x\n");
      link(
        join("..", "..", "..", "engineering", "team", "skills", name, "SKILL.md"),
        join(repo, ".gemini", "skills", name, "SKILL.md"),
      );
    }
    const found = discoverSkills([{ scope: "repo", path: repo }]);
    assert.deepEqual(found.skills.map((s) => s.name).sort(), ["alpha", "beta"]);
    const warnings: unknown[] = [];
    const served = await serveSkills(found, { onWarning: (w) => warnings.push(w) });
    assert.deepEqual([...served.skills.keys()].sort(), ["alpha", "beta"]);
    assert.deepEqual(warnings, []);
    assert.equal(
      served.skills.get("alpha")!.location,
      join(repo, "engineering", "team", "skills", "alpha"),
    );
    assert.deepEqual(
      served.catalog.entries.map((e) => e.uri).sort(),
      ["skill://alpha/SKILL.md", "skill://beta/SKILL.md"],
    );
  });
});
