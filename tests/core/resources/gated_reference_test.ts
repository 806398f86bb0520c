import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fc, runs } from "../../_fc.ts";
import {
  classifyResource,
  decideAccess,
  normalizeResourcePath,
  resourceClassMap,
} from "../../../mod.ts";
import { discoverSkills, loadSkillFolder, validatePaths } from "../../../lib/load.ts";
import { write } from "../../_tree.ts";

let temp = "";
let counter = 0;

before(() => {
  temp = realpathSync(mkdtempSync(join(tmpdir(), "skillset-gated-")));
});
after(() => rmSync(temp, { recursive: true, force: true }));

function fresh(name: string): string {
  const dir = join(temp, `${name}-${counter++}`);
  mkdirSync(dir, { recursive: true });
  return dir;
}

const TOPS = ["references", "assets", "scripts", "reference", "rules", "shared", "templates"];
const FORMS = ["link", "backtick", "bare", "dot"] as const;

describe("GATED_REFERENCE", () => {
  it("is emitted exactly for the referenced paths decideAccess refuses, under any switches and mapping", () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            top: fc.constantFrom(...TOPS),
            file: fc.constantFrom("a.md", "b.py", "deep/c.txt", "x"),
            form: fc.constantFrom(...FORMS),
            line: fc.boolean(),
          }),
          { maxLength: 8 },
        ),
        fc.uniqueArray(
          fc.tuple(
            fc.constantFrom("reference", "rules", "shared", "templates"),
            fc.constantFrom("references", "assets", "scripts"),
          ),
          { selector: ([n]) => n, maxLength: 2 },
        ),
        fc.record({ global_safety: fc.boolean(), skill_safety: fc.boolean() }, {
          requiredKeys: [],
        }),
        (refs, mapping, safety) => {
          // Arrange: a skill whose body points to each path in one of four ways.
          const dir = join(fresh("prop"), "sk");
          const body = refs.map((r) => {
            const path = `${r.top}/${r.file}`;
            const text = {
              link: `See [the guide](${path}) first.`,
              backtick: `Load \`${path}\` now.`,
              bare: `Read ${path} when asked.`,
              dot: `Open ./${path}.`,
            }[r.form];
            return r.line ? `${text}\n` : `${text} `;
          }).join("");
          write(join(dir, "SKILL.md"), `---\nname: sk\ndescription: Prop\n---\n${body}\n`);
          for (const top of TOPS) write(join(dir, top, "keep"), "");
          const classes = resourceClassMap(mapping);
          const expected = new Set<string>();
          for (const r of refs) {
            const path = normalizeResourcePath(`${r.top}/${r.file}`);
            if (decideAccess(path, classifyResource(path, classes), safety, "read") !== null) {
              expected.add(path);
            }
          }

          // Act: the loader and discovery.
          const loaded = loadSkillFolder(dir, { resourceClasses: mapping, safety });
          const found = discoverSkills([{ scope: "s", path: dir }], {
            resourceClasses: mapping,
            safety,
          });

          // Assert: exactly the refused paths, once each, with their class and place.
          for (
            const diagnostics of [loaded.diagnostics, found.skills[0]!.diagnostics]
          ) {
            const gated = diagnostics.filter((d) => d.code === "GATED_REFERENCE");
            assert.deepEqual(gated.map((d) => d.target).sort(), [...expected].sort());
            for (const d of gated) {
              assert.equal(d.class, "nonstandard");
              assert.ok(d.line !== null && d.line >= 5 && d.column !== null && d.column > 0);
            }
          }
        },
      ),
      runs(60),
    );
  });

  it("places each kind of reference at its line and column, in list, validate and the loader", () => {
    const dir = join(fresh("kinds"), "eval");
    write(
      join(dir, "SKILL.md"),
      "---\nname: eval\ndescription: Evaluate\n---\n" +
        "Load `./reference/evaluation.md` first.\n" +
        "See [rules](rules/style.md) and resources/data.csv.\n" +
        "Use references/ok.md and https://example.com/rules/x.md freely.\n",
    );
    write(join(dir, "reference", "evaluation.md"), "# E\n");
    write(join(dir, "rules", "style.md"), "# S\n");
    write(join(dir, "resources", "data.csv"), "a,b\n");
    write(join(dir, "references", "ok.md"), "# OK\n");

    const loaded = loadSkillFolder(dir);
    const gated = loaded.diagnostics.filter((d) => d.code === "GATED_REFERENCE");

    assert.deepEqual(gated.map((d) => [d.target, d.line, d.column]), [
      ["reference/evaluation.md", 5, 7],
      ["rules/style.md", 6, 13],
      ["resources/data.csv", 6, 33],
    ]);
    assert.equal(
      gated[0]!.message,
      'The body points to "reference/evaluation.md", in the non-standard folder "reference": the safety gate refuses it while it is closed (open it for this skill, move the file into references/, assets/ or scripts/, or map "reference" to a standard class)',
    );
    // Open gate: nothing to say. A mapped folder: not gated.
    assert.equal(
      loadSkillFolder(dir, { safety: { global_safety: false, skill_safety: false } }).diagnostics
        .length,
      0,
    );
    assert.deepEqual(
      loadSkillFolder(dir, { resourceClasses: { reference: "references" } }).diagnostics.map((d) =>
        d.target
      ),
      ["rules/style.md", "resources/data.csv"],
    );
    // validate says so too, with the code.
    const v = validatePaths([dir]).filter((d) => d.code === "GATED_REFERENCE");
    assert.deepEqual(v.map((d) => [d.line, d.column]), [[5, 7], [6, 13], [6, 33]]);
    assert.equal(
      validatePaths([dir], {
        resourceClasses: { reference: "references", rules: "references", resources: "assets" },
      })
        .filter((d) => d.code === "GATED_REFERENCE").length,
      0,
    );
  });
});
