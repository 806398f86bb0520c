import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { activateSkill, readResource, resourceClassMap } from "../../../mod.ts";
import { discoverSkills, loadSkillFolder } from "../../../lib/load.ts";
import { runInProcess as cli } from "../../_cli.ts";
import { link, write } from "../../_tree.ts";

let temp = "";
let dir = "";

before(() => {
  temp = realpathSync(mkdtempSync(join(tmpdir(), "skillset-classes-")));
  dir = join(temp, "skills", "eval");
  write(
    join(dir, "SKILL.md"),
    "---\nname: eval\ndescription: Evaluate\n---\nLoad `./reference/evaluation.md` and rules/a.md.\n",
  );
  write(join(dir, "reference", "evaluation.md"), "# Evaluation\n");
  write(join(dir, "rules", "a.md"), "# A\n");
  write(join(dir, "private", "key.md"), "SECRET\n");
  // A mapped folder's link into a gated one is still gated: the class comes from the real path too.
  link("../private/key.md", join(dir, "reference", "key.md"));
});
after(() => rmSync(temp, { recursive: true, force: true }));

describe("resourceClasses: extra folders mapped to a standard class", () => {
  it("lists and reads a mapped folder as its class with the gate closed, and recomputes the class from the real path", () => {
    const skill = loadSkillFolder(dir, { resourceClasses: { reference: "references" } });

    const activation = activateSkill(skill);

    assert.deepEqual(activation.resources.references.map((e) => e.path), [
      "reference/evaluation.md",
    ]);
    assert.equal(readResource(skill, "reference/evaluation.md").content, "# Evaluation\n");
    assert.throws(() => readResource(skill, "reference/key.md"), { name: "ExecutionError" });
    assert.throws(() => readResource(skill, "rules/a.md"), { name: "ExecutionError" });
    // Unmapped (the default): gated.
    assert.throws(() => readResource(loadSkillFolder(dir), "reference/evaluation.md"), {
      name: "ExecutionError",
    });
  });

  it("is applied by discovery's bundles and refused when it is not a plain folder or a standard class", () => {
    const found = discoverSkills([{ scope: "s", path: join(temp, "skills") }], {
      resourceClasses: new Map([["rules", "assets"]]),
    });
    assert.equal(readResource(found.bundle("eval")!, "rules/a.md").content, "# A\n");
    assert.deepEqual(
      found.skills[0]!.diagnostics.map((d) => d.target),
      ["reference/evaluation.md"],
    );
    assert.throws(() => resourceClassMap({ "../x": "references" }), RangeError);
    assert.throws(() => resourceClassMap({ references: "assets" }), RangeError);
    assert.throws(() => resourceClassMap({ rules: "nonstandard" }), RangeError);
  });

  it("is --class NAME=CLASS on the command line, for list, to-prompt, validate, activate and read", () => {
    const list = cli(["list", join(temp, "skills"), "--json", "--class", "reference=references"]);
    assert.equal(list.code, 0, list.stderr);
    const gated = JSON.parse(list.stdout).skills[0].diagnostics.map((d: { target: string }) =>
      d.target
    );
    assert.deepEqual(gated, ["rules/a.md"]);
    const read = cli(["read", dir, "rules/a.md", "--class=rules=references"]);
    assert.equal(read.code, 0, read.stderr);
    assert.ok(read.stdout.includes("# A"));
    const toPrompt = cli(["to-prompt", join(temp, "skills")]);
    assert.ok(toPrompt.stderr.includes("GATED") || toPrompt.stderr.includes("non-standard folder"));
    const validate = cli([
      "validate",
      dir,
      "--class",
      "reference=references",
      "--class",
      "rules=references",
    ]);
    assert.ok(!validate.stdout.includes("non-standard"), validate.stdout);
    const bad = cli(["list", "--class", "references=assets"]);
    assert.equal(bad.code, 2);
    assert.equal(
      bad.stderr,
      'skillset: --class: Folder "references" is a standard folder already\n',
    );
  });
});
