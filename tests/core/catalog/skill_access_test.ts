/**
 * The one rule of who may see and use a skill (`lib/core/catalog/skill_access.ts`):
 * its laws, and the skill tool's dependency check with a resolver the host gave
 * (the table of docs/large-libraries.md is walked in `tests/skill_access_table_test.ts`).
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { fc, runs } from "../../_fc.ts";
import {
  createBundle,
  createLockfile,
  handleLockedSkillTool,
  handleSkillTool,
  lockEntry,
  offeredToModel,
  SKILL_MODES,
  SKILL_SURFACES,
  SKILL_TRUSTS,
  skillAccess,
  skillDependencies,
  skillManifest,
  wasActivated,
} from "../../../mod.ts";

const surface = fc.constantFrom(...SKILL_SURFACES);
const mode = fc.constantFrom(...SKILL_MODES);
const trust = fc.constantFrom(...SKILL_TRUSTS);

describe("skillAccess", () => {
  it("an untrusted or disabled skill is on no surface", () => {
    fc.assert(
      fc.property(surface, mode, trust, fc.boolean(), (s, m, t, activated) => {
        if (t !== "trusted" || m === "disabled") {
          assert.equal(skillAccess(s, { mode: m, trust: t, activated }), false);
        }
      }),
      runs(200),
    );
  });

  it("activation only ever opens a surface, and never one that offers the skill to the model", () => {
    fc.assert(
      fc.property(surface, mode, trust, (s, m, t) => {
        const before = skillAccess(s, { mode: m, trust: t });
        const after = skillAccess(s, { mode: m, trust: t, activated: true });
        assert.ok(!before || after);
        if (["catalog", "skill-tool", "search", "model-activation"].includes(s)) {
          assert.equal(after, before);
        }
      }),
      runs(200),
    );
  });

  it("offeredToModel is the catalog surface", () => {
    for (const m of SKILL_MODES) {
      assert.equal(offeredToModel(m), skillAccess("catalog", { mode: m }));
    }
  });

  it("refuses a surface, mode or trust that does not exist", () => {
    assert.throws(() => skillAccess("prompt" as never, { mode: "auto" }), {
      name: "RangeError",
      message: 'Unknown surface "prompt"',
    });
    assert.throws(() => skillAccess("catalog", { mode: "on" as never }), {
      name: "RangeError",
      message: 'Unknown mode "on"',
    });
    assert.throws(() => skillAccess("catalog", { mode: "auto", trust: "sure" as never }), {
      name: "RangeError",
      message: 'Unknown trust "sure"',
    });
  });

  it("wasActivated reads a set or a function", () => {
    assert.equal(wasActivated(new Set(["a"]), "a"), true);
    assert.equal(wasActivated((n) => n === "a", "b"), false);
    assert.equal(wasActivated(undefined, "a"), false);
  });
});

describe("the skill tool's dependencies follow the rule", () => {
  const bundle = (name: string, metadata?: Record<string, string>) =>
    createBundle({
      frontmatter: {
        name,
        description: `The ${name} skill`,
        ...(metadata === undefined ? {} : { metadata }),
      },
      instructions: `Do ${name}.`,
    });
  const report = bundle("report", { "requires-skills": "charts" });
  const charts = bundle("charts");
  const skills = [report, charts];
  const refused = {
    content: 'Skill "report" cannot be activated: a skill it requires is not available',
    is_error: true,
  };

  it("a disabled or unactivated manual skill never satisfies one, even through a resolver the host gave", () => {
    const dependencies = skillDependencies(skills);
    for (const m of ["disabled", "manual"] as const) {
      const modes = new Map([["charts", m]]);
      assert.deepEqual(
        handleSkillTool({ skill: "report" }, { skills, modes, dependencies }),
        refused,
      );
      // Built from the skills, the resolver leaves it out: the gap names only what report declares.
      const built = handleSkillTool({ skill: "report" }, { skills, modes });
      assert.equal(built.is_error, true);
      assert.doesNotMatch(built.content, /with the skill tool\): .*"charts"/);
    }
    // Once the user activated the manual one, it satisfies the dependency.
    const activated = handleSkillTool({ skill: "report" }, {
      skills,
      modes: new Map([["charts", "manual"]]),
      activated: new Set(["charts"]),
      dependencies,
    });
    assert.equal(activated.is_error, false, activated.content);
    assert.match(activated.content, /"charts", "report"|"charts"/);
  });

  it("through the locked skill tool too", async () => {
    const lock = createLockfile(
      await Promise.all(
        skills.map(async (s) => lockEntry(await skillManifest(s), { scope: "p", source: s.name })),
      ),
    );
    const answer = await handleLockedSkillTool({ skill: "report" }, {
      skills,
      lock,
      modes: new Map([["charts", "disabled"]]),
    });
    // Its resolver leaves the disabled skill out, as the plain tool's does: the gap names only
    // what report declares.
    assert.deepEqual({ content: answer.content, is_error: answer.is_error }, {
      content: 'Skill "report" cannot activate: "report" requires "charts", which is not available',
      is_error: true,
    });
    // Through a resolver the host gave, the rule still refuses it.
    const given = await handleLockedSkillTool({ skill: "report" }, {
      skills,
      lock,
      modes: new Map([["charts", "disabled"]]),
      dependencies: skillDependencies(skills),
    });
    assert.deepEqual({ content: given.content, is_error: given.is_error }, refused);
  });
});
