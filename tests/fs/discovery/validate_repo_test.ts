import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { formatDiagnostic, isCatalogFile, validatePaths } from "../../../lib/load.ts";
import { runInProcess as cli } from "../../_cli.ts";
import { write } from "../../_tree.ts";

let temp = "";

before(() => {
  temp = realpathSync(mkdtempSync(join(tmpdir(), "skillset-validate-repo-")));
});
after(() => rmSync(temp, { recursive: true, force: true }));

describe("validate from a repository root", () => {
  it("reads no non-skill file as a catalog, but a catalog by convention or when named", () => {
    const repo = join(temp, "repo");
    write(join(repo, "package.json"), '{ "name": "@acme/skills", "version": "1.0.0" }\n');
    write(join(repo, ".pre-commit-config.yaml"), "repos:\n  - repo: local\n    hooks: []\n");
    write(join(repo, ".mcp.json"), '{ "mcpServers": { "x": { "command": "x" } } }\n');
    write(join(repo, "mkdocs.yml"), "site_name: Skills\nnav:\n  - Home: index.md\n");
    write(
      join(repo, "skills", "pdf", "SKILL.md"),
      "---\nname: pdf\ndescription: PDF\n---\n# PDF\n",
    );
    write(
      join(repo, "catalog.yaml"),
      "- name: local/pdf\n  description: PDF\n  agent_skills: [skills/pdf]\n",
    );
    write(
      join(repo, "schema.yaml"),
      "# yaml-language-server: $schema=../skill.schema.json\nname: x-y/x\ndescription: X\nincludes: [local/nope]\n",
    );

    const found = validatePaths([repo]);

    assert.deepEqual(found.map(formatDiagnostic), [
      `${join(repo, "schema.yaml")}:4:12: error: Unknown skill "local/nope" included by "x-y/x"`,
    ]);
    assert.deepEqual(
      [
        "package.json",
        ".pre-commit-config.yaml",
        ".mcp.json",
        "mkdocs.yml",
        "catalog.yaml",
        "schema.yaml",
      ]
        .map((f) => isCatalogFile(join(repo, f))),
      [false, false, false, false, true, true],
    );
    // Named on the command line, a file is read as a catalog whatever it holds.
    assert.equal(validatePaths([join(repo, "package.json")])[0]!.severity, "error");
  });

  it("reports every frontmatter error with its line and column, and checks the body anyway", () => {
    const dir = join(temp, "three", "bad-skill");
    write(
      join(dir, "SKILL.md"),
      "---\nname: Bad_Skill\ncolour: red\nlicense: [1]\n---\n# Bad\n\nSee [the guide](references/missing.md).\n",
    );

    const r = cli(["validate", dir]);

    assert.equal(r.code, 1);
    assert.deepEqual(r.stdout.split("\n"), [
      `${
        join(dir, "SKILL.md")
      }:2:1: error: Invalid SKILL.md at name: "B" is not allowed (lowercase letters, digits and hyphens only)`,
      `${
        join(dir, "SKILL.md")
      }:2:1: error: Invalid SKILL.md at description: missing required field "description"`,
      `${
        join(dir, "SKILL.md")
      }:3:1: error: Invalid SKILL.md at colour: unknown field "colour" (known: name, description, license, compatibility, metadata, allowed-tools)`,
      `${
        join(dir, "SKILL.md")
      }:4:1: error: Invalid SKILL.md at license: must be a string, got a list`,
      `${
        join(dir, "SKILL.md")
      }:8:17: warning: Link to "references/missing.md" points to a missing file`,
      "4 errors, 1 warning",
      "",
    ]);
  });
});

describe("to-prompt folds block-scalar descriptions", () => {
  it("holds no literal \\n for a | or > description", () => {
    const root = join(temp, "blocks");
    write(
      join(root, "lit", "SKILL.md"),
      "---\nname: lit\ndescription: |\n  Fill PDF forms.\n  Use when asked.\n---\n# Lit\n",
    );
    write(
      join(root, "fold", "SKILL.md"),
      "---\nname: fold\ndescription: >\n  Clean CSV\n  files.\n\n  Join them.\n---\n# Fold\n",
    );

    const r = cli(["to-prompt", root]);

    assert.equal(r.code, 0, r.stderr);
    assert.ok(!r.stdout.includes("\\n"), r.stdout);
    assert.ok(
      r.stdout.includes("<description>Clean CSV files. Join them.</description>"),
      r.stdout,
    );
    assert.ok(
      r.stdout.includes("<description>Fill PDF forms. Use when asked.</description>"),
      r.stdout,
    );
  });
});
