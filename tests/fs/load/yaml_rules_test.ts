import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { parseCatalogText, parseSkillMd } from "../../../lib/load.ts";

describe("strict YAML in catalogs and SKILL.md", () => {
  it("refuses tags outside the core schema in a catalog, with line and column", () => {
    const cases: [string, string][] = [
      [
        "description: !!js/function 'f'",
        "YAML error: Unresolved tag: tag:yaml.org,2002:js/function (c.yaml:2:14)",
      ],
      ["description: !custom x", "YAML error: Unresolved tag: !custom (c.yaml:2:14)"],
      [
        "tool_refs: !!set {a, b}",
        'YAML error: the tag "!!set" is outside the core schema (c.yaml:2:18)',
      ],
      [
        "tool_refs: !!omap [a: 1]",
        'YAML error: the tag "!!omap" is outside the core schema (c.yaml:2:19)',
      ],
    ];
    for (const [line, message] of cases) {
      assert.throws(() => parseCatalogText(`name: a/b\n${line}\n`, "c.yaml"), {
        name: "SkillDefinitionError",
        message: `Invalid skill: ${message}`,
      });
    }
  });

  it("refuses a frontmatter of more than one document", () => {
    const md = "---\nname: x\ndescription: d\n...\nname: y\n---\nbody\n";
    assert.throws(() => parseSkillMd(md, { file: "x/SKILL.md" }), {
      name: "AgentSkillError",
      message:
        "Invalid SKILL.md: YAML error: the frontmatter holds more than one document (x/SKILL.md:5:1)",
    });
  });

  it("treats yaml warnings as errors", () => {
    // A %YAML 1.3 directive is only a warning for the yaml package.
    assert.throws(() => parseCatalogText("%YAML 1.3\n---\nname: a/b\n", "c.yaml"), {
      name: "SkillDefinitionError",
      message: "Invalid skill: YAML error: Unsupported YAML version 1.3 (c.yaml:1:7)",
    });
  });

  it("finds duplicate keys in every mapping (a set per mapping)", () => {
    const keys = Array.from({ length: 20000 }, (_, i) => `  k${i}: {}`);
    const text = `name: a/b\noverrides:\n${keys.join("\n")}\n  k7: {}\n`;
    assert.throws(() => parseCatalogText(text, "c.yaml"), {
      message: "Invalid skill: YAML error: Map keys must be unique (c.yaml:20003:3)",
    });
    const md = `---\nname: x\ndescription: d\nmetadata:\n  a: "1"\n  a: "2"\n---\n`;
    assert.throws(() => parseSkillMd(md, { file: "x/SKILL.md" }), {
      message: "Invalid SKILL.md: YAML error: Map keys must be unique (x/SKILL.md:6:3)",
    });
  });
});
