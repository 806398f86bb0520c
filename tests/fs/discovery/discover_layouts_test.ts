import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { discoverSkills, findSkillFolders } from "../../../lib/load.ts";
import { link, write } from "../../_tree.ts";

let temp = "";
let counter = 0;

before(() => {
  temp = realpathSync(mkdtempSync(join(tmpdir(), "skillset-layouts-")));
});
after(() => rmSync(temp, { recursive: true, force: true }));

function fresh(name: string): string {
  const dir = join(temp, `${name}-${counter++}`);
  mkdirSync(dir, { recursive: true });
  return dir;
}

function skillMd(name: string, description: string, body = ""): string {
  return `---\nname: ${name}\ndescription: ${description}\n---\n# ${name}\n${body}`;
}

describe("discoverSkills on real-collection layouts", () => {
  it("enters dot-folders (skills/.curated, .system) but not .git or node_modules, and says what it skipped", () => {
    const root = fresh("dot");
    write(join(root, "skills", ".curated", "gh-fix-ci", "SKILL.md"), skillMd("gh-fix-ci", "CI"));
    write(
      join(root, "skills", ".system", "skill-creator", "SKILL.md"),
      skillMd("skill-creator", "S"),
    );
    write(join(root, ".git", "hooks", "x", "SKILL.md"), skillMd("x", "In git"));
    write(join(root, "node_modules", "p", "SKILL.md"), skillMd("p", "In a package"));

    const found = discoverSkills([{ scope: "project", path: root }]);

    assert.deepEqual(found.skills.map((s) => s.name).sort(), ["gh-fix-ci", "skill-creator"]);
    assert.deepEqual(
      found.diagnostics.filter((d) => d.code === "SKIPPED_FOLDER").map((d) => d.path),
      [join(root, ".git"), join(root, "node_modules")],
    );
    const all = discoverSkills([{ scope: "project", path: root }], { skipFolders: [] });
    assert.deepEqual(all.skills.map((s) => s.name).sort(), [
      "gh-fix-ci",
      "p",
      "skill-creator",
      "x",
    ]);
  });

  it("finds nested skills with their parent and nested: true", () => {
    const root = fresh("nested");
    write(join(root, "game-development", "SKILL.md"), skillMd("game-development", "Games"));
    write(join(root, "game-development", "2d-games", "SKILL.md"), skillMd("2d-games", "2D"));
    write(join(root, "game-development", "references", "a.md"), "# A\n");

    const found = discoverSkills([{ scope: "s", path: root }]);

    assert.deepEqual(
      found.skills.map((s) => [s.name, s.nested, s.parent]),
      [
        ["game-development", false, null],
        ["2d-games", true, join(root, "game-development")],
      ],
    );
  });

  it("treats a SKILL.md linked to another folder's SKILL.md in the same root as that skill, once", () => {
    const root = fresh("mirror");
    write(
      join(root, "engineering", "senior-frontend", "SKILL.md"),
      skillMd("senior-frontend", "FE"),
    );
    write(join(root, "engineering", "senior-frontend", "references", "a.md"), "# A\n");
    mkdirSync(join(root, ".gemini", "skills", "senior-frontend"), { recursive: true });
    link(
      "../../../engineering/senior-frontend/SKILL.md",
      join(root, ".gemini", "skills", "senior-frontend", "SKILL.md"),
    );
    // Only reachable through its alias: the real folder is on the skip list.
    write(join(root, "node_modules", "only", "SKILL.md"), skillMd("only", "Only"));
    mkdirSync(join(root, ".claude", "skills", "only"), { recursive: true });
    link(
      "../../../node_modules/only/SKILL.md",
      join(root, ".claude", "skills", "only", "SKILL.md"),
    );
    // A link to a file that is not a SKILL.md, and one out of the root: refused, with a diagnostic.
    write(join(root, "commands", "story.md"), skillMd("story", "A command"));
    mkdirSync(join(root, ".gemini", "skills", "story"), { recursive: true });
    link("../../../commands/story.md", join(root, ".gemini", "skills", "story", "SKILL.md"));

    const found = discoverSkills([{ scope: "project", path: root }]);

    const fe = found.skill("senior-frontend")!;
    assert.deepEqual([fe.path, fe.real_path, fe.alias], [
      join(root, "engineering", "senior-frontend"),
      join(root, "engineering", "senior-frontend"),
      false,
    ]);
    assert.ok(
      found.diagnostics.some((d) =>
        d.code === "SAME_FOLDER" && d.path === join(root, ".gemini", "skills", "senior-frontend")
      ),
    );
    const only = found.skill("only")!;
    assert.deepEqual([only.path, only.real_path, only.alias], [
      join(root, ".claude", "skills", "only"),
      join(root, "node_modules", "only"),
      true,
    ]);
    assert.equal(found.bundle("only")!.location, join(root, "node_modules", "only"));
    assert.deepEqual(found.skipped.map((s) => [s.path, s.diagnostics[0]!.code]), [
      [join(root, ".gemini", "skills", "story"), "SKILL_MD_UNREADABLE"],
    ]);
    assert.equal(found.skill("story"), undefined);
    // Scanned from the client folder alone, the target is outside the root: refused.
    const apart = discoverSkills([{ scope: "p", path: join(root, ".gemini", "skills") }]);
    assert.deepEqual(apart.skills, []);
    assert.equal(apart.skipped.length, 2);
    // validate's scan visits the real folder once.
    assert.deepEqual(
      findSkillFolders(root).folders.filter((f) => f.includes("senior-frontend")),
      [join(root, "engineering", "senior-frontend")],
    );
  });

  it("refuses a SKILL.md that links into a non-standard folder of its own skill, so its text reaches no prompt", () => {
    const root = fresh("gated-md");
    write(join(root, "sk", "private", "real.md"), skillMd("sk", "GATED TEXT"));
    link("private/real.md", join(root, "sk", "SKILL.md"));
    write(join(root, "ok", "references", "real.md"), skillMd("ok", "Fine"));
    link("references/real.md", join(root, "ok", "SKILL.md"));

    const found = discoverSkills([{ scope: "s", path: root }]);

    assert.deepEqual(found.skills.map((s) => s.name), ["ok"]);
    assert.deepEqual(found.skipped.map((s) => s.diagnostics[0]!.message), [
      'Skipped: SKILL.md is a link into the non-standard folder "private", which the safety gate guards',
    ]);
    assert.ok(!JSON.stringify(found).includes("GATED TEXT"));
    // Mapped to a standard class by the host, the folder is no longer gated.
    const mapped = discoverSkills([{ scope: "s", path: root }], {
      resourceClasses: { private: "references" },
    });
    assert.deepEqual(mapped.skills.map((s) => s.name), ["ok", "sk"]);
  });

  it("scans a project root's conventional folders first with conventionalRoots", () => {
    const root = fresh("project");
    write(join(root, ".claude", "skills", "pdf", "SKILL.md"), skillMd("pdf", "Client PDF"));
    write(join(root, "skills", "pdf", "SKILL.md"), skillMd("pdf", "Repo PDF"));
    write(join(root, ".agents", "skills", "csv", "SKILL.md"), skillMd("csv", "CSV"));

    const plain = discoverSkills([{ scope: "p", path: root }]);
    const project = discoverSkills([{ scope: "p", path: root }], { conventionalRoots: true });

    assert.equal(plain.skill("pdf")!.description, "Repo PDF");
    assert.equal(project.skill("pdf")!.description, "Client PDF");
    assert.equal(project.skill("csv")!.path, join(root, ".agents", "skills", "csv"));
    assert.deepEqual(project.shadowed.map((s) => s.path), [join(root, "skills", "pdf")]);
    assert.equal(project.diagnostics.filter((d) => d.code === "SAME_FOLDER").length, 0);
  });
});
