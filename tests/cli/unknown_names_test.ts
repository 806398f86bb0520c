/**
 * Every name a user types is checked where it is used (issue 41): a skill
 * in a modes file, `approve`, `remove`, `update`, `run --root`, a
 * `requires-skills` value, `--rank` and `--lang` values. An unknown one is
 * a usage error (exit 2) naming up to three nearest names, in one shape.
 * In-process, so it runs unchanged under Node, Deno and Bun.
 */
import { after, describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runIn } from "../_cli.ts";
import { put } from "../_tree.ts";
import { didYouMean, suggestions } from "../../lib/cli/_suggest.ts";
import { unknownName } from "../../lib/cli/_unknown_name.ts";
import { fc, runs } from "../_fc.ts";

const temps: string[] = [];
after(() => temps.forEach((t) => rmSync(t, { recursive: true, force: true })));

function skill(root: string, name: string, extra = ""): void {
  put(
    root,
    `${name}/SKILL.md`,
    `---\nname: ${name}\ndescription: Does ${name} things.\n${extra}---\n# ${name}\n`,
  );
}

/** A project with skills pptx, pdf, docx and hello under skills/, and a modes file. */
function project(modes: unknown): { root: string; skills: string; modes: string } {
  const root = mkdtempSync(join(tmpdir(), "skillset-names-"));
  temps.push(root);
  const skills = join(root, "skills");
  for (const name of ["pptx", "pdf", "docx", "hello"]) skill(skills, name);
  const file = join(root, "modes.json");
  writeFileSync(file, JSON.stringify(modes));
  return { root, skills, modes: file };
}

describe("a modes file naming no skill is an error", () => {
  const typo = 'skillset: unknown skill "ppt" in modes.json (did you mean "pptx"?)\n';

  it("to-prompt fails with the nearest names, and the skill it meant is not silently offered", async () => {
    const { root } = project({ modes: { ppt: "disabled" } });
    const r = await runIn(root, "to-prompt", "skills", "--modes", "modes.json");
    assert.deepEqual([r.code, r.err, r.out], [2, typo, ""]);
  });

  it("serve refuses to start", { timeout: 60_000 }, async () => {
    const { root } = project({ modes: { ppt: "disabled" } });
    const r = await runIn(root, "serve", "skills", "--modes", "modes.json");
    assert.equal(r.code, 2);
    assert.ok(r.err.endsWith(typo), r.err);
  });

  it("activate checks the names against the skills beside the one named", async () => {
    const { root } = project({ modes: { ppt: "disabled" } });
    const r = await runIn(root, "activate", "skills/pptx", "--modes", "modes.json");
    assert.deepEqual([r.code, r.err], [2, typo]);
  });

  it("to-prompt with --lockfile checks them before trust narrows the skills", async () => {
    const { root } = project({ modes: { ppt: "disabled" } });
    assert.equal((await runIn(root, "lock", "--root", "local=skills")).code, 0);
    const r = await runIn(
      root,
      "to-prompt",
      "skills",
      "--modes",
      "modes.json",
      "--lockfile",
      "skills.lock.json",
    );
    assert.deepEqual([r.code, r.err], [2, typo]);
  });

  it("a modes file naming only real skills is used", async () => {
    const { root } = project({ modes: { pptx: "disabled", pdf: "pinned" } });
    const r = await runIn(root, "to-prompt", "skills", "--modes", "modes.json");
    assert.equal(r.code, 0, r.err);
    assert.ok(!r.out.includes("<name>pptx</name>"));
    assert.ok(r.out.indexOf("<name>pdf</name>") < r.out.indexOf("<name>docx</name>"));
  });
});

describe("names on the command line", () => {
  it("approve names the nearest skills", async () => {
    const { root } = project({ modes: {} });
    const r = await runIn(root, "approve", "helo", "--root", "local=skills");
    assert.deepEqual([r.code, r.err], [
      2,
      'skillset: unknown skill "helo" (did you mean "hello"?)\n',
    ]);
  });

  it("remove and update name the nearest installed skills", async () => {
    const { root } = project({ modes: {} });
    const added = await runIn(root, "add", "skills", "--skill", "hello", "--skill", "pdf");
    assert.equal(added.code, 0, added.err);
    for (const command of ["remove", "update"]) {
      const r = await runIn(root, command, "helo");
      assert.deepEqual([command, r.code, r.err], [
        command,
        2,
        'skillset: unknown skill "helo" (not installed by skillset add) (did you mean "hello"?)\n',
      ]);
    }
  });

  it("run --root names the nearest skills", async () => {
    const { root } = project({ modes: {} });
    const r = await runIn(root, "run", "--root", "local=skills", "pfd", "scripts/x.sh");
    assert.deepEqual([r.code, r.err], [
      2,
      'skillset: unknown skill "pfd" under the roots given (did you mean "pdf"?)\n',
    ]);
  });

  it("--rank names its values; --lang the languages the skills have", async () => {
    const { root, skills } = project({ modes: {} });
    skill(skills, "tabellen", "metadata:\n  description-de: Tabellen bearbeiten.\n");
    const rank = await runIn(root, "to-prompt", "skills", "--rank", "nmae");
    assert.deepEqual([rank.code, rank.err], [
      2,
      'skillset: unknown --rank value "nmae" (did you mean "name"?)\n',
    ]);
    const lang = await runIn(root, "search", "tabellen", "--root", "local=skills", "--lang", "dk");
    assert.deepEqual([lang.code, lang.err], [
      2,
      'skillset: unknown --lang value "dk" (did you mean "de"?)\n',
    ]);
    const known = await runIn(
      root,
      "search",
      "tabellen",
      "--root",
      "local=skills",
      "--lang",
      "de-AT",
    );
    assert.equal(known.code, 0, known.err);
    assert.match(known.out, /Tabellen bearbeiten/);
  });

  it("a requires-skills value that names no skill says which it may have meant", async () => {
    const { root, skills } = project({ modes: {} });
    skill(skills, "deck", "metadata:\n  requires-skills: pptz\n");
    const r = await runIn(root, "activate", "skills/deck");
    assert.equal(r.code, 1);
    assert.match(r.err, /cannot activate: .*"pptz".* \(did you mean "pptx"\?\)\n$/);
  });
});

describe("the one helper", () => {
  it("suggests at most three names, each within reach, nearest first", () => {
    fc.assert(
      fc.property(
        fc.string({ maxLength: 12 }),
        fc.array(fc.string({ maxLength: 12 })),
        (w, names) => {
          const near = suggestions(w, names);
          assert.ok(near.length <= 3);
          for (const n of near) assert.ok(names.includes(n));
          if (names.includes(w) && w !== "") assert.equal(near[0], w);
        },
      ),
      runs(200),
    );
  });

  it("says one, two or three names the same way", () => {
    assert.equal(didYouMean("dcx", ["docx", "dox"]), ' (did you mean "docx" or "dox"?)');
    assert.equal(
      didYouMean("skill-28", ["skill-028", "skill-128", "skill-208", "skill-280"]),
      ' (did you mean "skill-028", "skill-128" or "skill-208"?)',
    );
    assert.equal(
      unknownName("skill", "zzz", ["a", "b"]).message,
      'unknown skill "zzz" (one of "a" or "b")',
    );
    assert.equal(unknownName("skill", "\u001b[2J", []).message, 'unknown skill "\\u001b[2J"');
    assert.equal(unknownName("skill", "a\u202eb", []).message, 'unknown skill "a\\u202eb"');
  });
});
