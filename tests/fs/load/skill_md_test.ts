import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { AgentSkillError } from "../../../mod.ts";
import { parseSkillMd } from "../../../lib/load.ts";
import { SKILL_MD_CASES } from "../../_skill_md_cases.ts";

describe("parseSkillMd: the Agent Skills rules", () => {
  it("has a passing and a failing case for every rule (at least 25 cases)", () => {
    assert.ok(SKILL_MD_CASES.length >= 25);
    assert.ok(SKILL_MD_CASES.filter((c) => c.error === null).length >= 8);
  });

  for (const c of SKILL_MD_CASES) {
    it(`${c.error === null ? "accepts" : "rejects"}: ${c.label}`, () => {
      const file = `${c.folder}/SKILL.md`;
      if (c.error === null) {
        const md = parseSkillMd(c.text, { file, folder: c.folder });
        assert.equal(md.frontmatter.name, c.folder.normalize("NFKC"));
        assert.match(md.body, /^# Instructions\n$|^body\r\n$/);
        return;
      }
      assert.throws(() => parseSkillMd(c.text, { file, folder: c.folder }), (e: unknown) => {
        assert.ok(e instanceof AgentSkillError, String(e));
        assert.equal(e.code, "INVALID_AGENT_SKILL");
        const bare = e.message.replace(/ \([^()]*SKILL\.md(:\d+:\d+)?\)$/, "");
        if (c.prefix === true) assert.ok(bare.startsWith(c.error!), bare);
        else assert.equal(bare, c.error);
        assert.equal(e.location?.file, file);
        if (c.line !== undefined) assert.equal(e.location?.line, c.line, e.message);
        return true;
      });
    });
  }

  it("expands a bounded number of aliases only", () => {
    const bomb = [
      "---",
      "name: pdf",
      "description: d",
      'a: &a ["x","x","x","x","x","x","x","x","x","x"]',
      "b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a,*a]",
      "c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b,*b]",
      "d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c,*c]",
      "---",
    ].join("\n");
    assert.throws(() => parseSkillMd(bomb, { file: "pdf/SKILL.md" }), (e: unknown) => {
      assert.ok(e instanceof AgentSkillError);
      assert.match(e.message, /^Invalid SKILL\.md: YAML error: /);
      return true;
    });
  });

  it("refuses every tag outside the core schema, with line and column", () => {
    const cases: [string, string][] = [
      [
        "description: !!js/function 'function () { throw 1 }'",
        "YAML error: Unresolved tag: tag:yaml.org,2002:js/function (pdf/SKILL.md:3:14)",
      ],
      ["description: !custom x", "YAML error: Unresolved tag: !custom (pdf/SKILL.md:3:14)"],
      [
        "description: d\nmetadata: !!set {a, b}",
        'YAML error: the tag "!!set" is outside the core schema (pdf/SKILL.md:4:17)',
      ],
      [
        "description: !!binary aGk=",
        'YAML error: the tag "!!binary" is outside the core schema (pdf/SKILL.md:3:23)',
      ],
    ];
    for (const [yaml, message] of cases) {
      const text = `---\nname: pdf\n${yaml}\n---\n`;
      assert.throws(() => parseSkillMd(text, { file: "pdf/SKILL.md" }), {
        name: "AgentSkillError",
        message: `Invalid SKILL.md: ${message}`,
      });
    }
    // Core tags stay fine.
    const md = parseSkillMd("---\nname: pdf\ndescription: !!str 12\n---\n");
    assert.equal(md.frontmatter.description, "12");
  });

  it('refuses a duplicate key, also one spelled differently (1 and "1")', () => {
    const text = '---\nname: pdf\ndescription: d\nmetadata:\n  1: a\n  "1": b\n---\n';
    assert.throws(() => parseSkillMd(text, { file: "pdf/SKILL.md" }), {
      message: "Invalid SKILL.md: YAML error: Map keys must be unique (pdf/SKILL.md:6:3)",
    });
  });
});
