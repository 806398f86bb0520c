// @slow: runs the CLI as a subprocess (left out of `npm run test:quick`)
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { cli, ROOT } from "../_cli.ts";
import { fc, runs } from "../_fc.ts";
import { SKILL_MD_CASES } from "../_skill_md_cases.ts";
import {
  computeCapabilitySummary,
  resolveTools,
  type Skill,
  SkillResolutionError,
} from "../../mod.ts";
import { type Diagnostic, loadCatalog } from "../../lib/load.ts";
import { main } from "../../lib/cli.ts";
import { write } from "../_tree.ts";

let temp = "";
const t = (...parts: string[]) => join(temp, ...parts);

before(() => {
  temp = mkdtempSync(join(tmpdir(), "skillset-cli-"));
});
after(() => rmSync(temp, { recursive: true, force: true }));

const EXAMPLE = join(ROOT, "examples", "catalog.yaml");
const PDF = join(ROOT, "examples", "skills", "pdf");

describe("skillset resolve", () => {
  it("prints the entries table and the capability summary", () => {
    const r = cli(["resolve", EXAMPLE, "local/pdf-tools"]);
    assert.equal(r.code, 0, r.stderr);
    const lines = r.stdout.split("\n");
    assert.equal(lines[0], "local/pdf-tools: 11 tools");
    assert.match(
      r.stdout,
      /\n {2}1 {3}read_file {16}tool_ref {5}local\/pdf-tools {2}\{"timeout_s":5\}\n/,
    );
    assert.match(r.stdout, /mcp:github\/create_issue +mcp +local\/net +-/);
    assert.match(r.stdout, /side effects +filesystem, network/);
    assert.match(r.stdout, /MCP tools +2 from 1 server/);
  });

  it("--json equals resolveTools and computeCapabilitySummary in-process", () => {
    const r = cli(["resolve", EXAMPLE, "local/pdf-tools", "--json"]);
    assert.equal(r.code, 0, r.stderr);
    const catalog = loadCatalog(EXAMPLE);
    const skill = catalog.skills.get("local/pdf-tools")!;
    const tools = resolveTools(skill, catalog.skills);
    assert.deepEqual(JSON.parse(r.stdout), {
      entries: JSON.parse(JSON.stringify([...tools.values()])),
      summary: JSON.parse(JSON.stringify(computeCapabilitySummary(skill, tools))),
    });
  });

  it("names a skill the catalog lacks", () => {
    const r = cli(["resolve", EXAMPLE, "local/none"]);
    assert.equal(r.code, 1);
    assert.equal(
      r.stderr,
      `skillset: error: Unknown skill "local/none" in catalog ${EXAMPLE} (it has: local/file-ops, local/docs, local/net, local/pdf-tools)\n`,
    );
  });
});

describe("skillset on bad input", () => {
  it("a missing file", () => {
    const r = cli(["resolve", t("nope.yaml"), "a/b"]);
    assert.deepEqual([r.code, r.stderr], [
      1,
      `${t("nope.yaml")}: error: Invalid skill: no such file or folder\n`,
    ]);
  });

  it("a YAML syntax error, with line and column", () => {
    const file = write(t("syntax.yaml"), "name: a/b\ntool_refs: [x, y\n");
    const r = cli(["resolve", file, "a/b"]);
    assert.equal(r.code, 1);
    assert.match(
      r.stderr,
      new RegExp(
        `^${
          file.replaceAll(/[.*+?^${}()|[\]\\]/g, "\\$&")
        }:3:1: error: Invalid skill: YAML error: Flow sequence`,
      ),
    );
  });

  it("an unknown field, with line and column", () => {
    const file = write(t("unknown.yaml"), "- name: a/b\n  tool_refs: [x]\n  colour: red\n");
    const r = cli(["resolve", file, "a/b"]);
    assert.deepEqual([r.code, r.stderr], [
      1,
      `${file}:3:3: error: Invalid skill "a/b" at colour: unknown field "colour" (known: name, description, safety, includes, tool_refs, inline_tools, mcp_servers, agent_skills, overrides)\n`,
    ]);
  });

  it("read_only and writes both true, with the field path", () => {
    const file = write(
      t("both.yaml"),
      "name: a/b\ninline_tools:\n  - {}\n  - read_only: true\n    writes: true\n",
    );
    const r = cli(["resolve", file, "a/b"]);
    assert.deepEqual([r.code, r.stderr], [
      1,
      `${file}:4:5: error: Invalid skill "a/b" at inline_tools[1]: read_only and writes are both true\n`,
    ]);
  });

  it("a duplicate skill name, naming both places", () => {
    write(t("dup", "a.yaml"), "name: a/b\n");
    write(t("dup", "b.yaml"), "# second\nname: a/b\n");
    const r = cli(["resolve", t("dup"), "a/b"]);
    assert.deepEqual([r.code, r.stderr], [
      1,
      `${
        t("dup", "b.yaml")
      }:2:1: error: Invalid skill "a/b" at name: duplicate skill name; first defined at ${
        t("dup", "a.yaml")
      }:1:1\n`,
    ]);
  });

  it("a cycle", () => {
    const file = write(
      t("cycle.yaml"),
      "- {name: a/a, includes: [a/b]}\n- {name: a/b, includes: [a/a]}\n",
    );
    const r = cli(["resolve", file, "a/a"]);
    assert.deepEqual([r.code, r.stderr], [
      1,
      "skillset: error: Cycle detected in skill includes: a/a -> a/b -> a/a\n",
    ]);
  });

  it("an unknown include", () => {
    const file = write(t("unknown-include.yaml"), "- {name: a/a, includes: [a/zz]}\n");
    const r = cli(["resolve", file, "a/a"]);
    assert.deepEqual([r.code, r.stderr], [
      1,
      'skillset: error: Unknown skill "a/zz" included by "a/a" (path: a/a -> a/zz)\n',
    ]);
  });

  it("an alias bomb", () => {
    const file = write(
      t("bomb.yaml"),
      'name: a/b\nx: &a ["x","x","x","x","x","x","x","x","x","x"]\ny: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a,*a]\nz: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b,*b]\n',
    );
    const r = cli(["resolve", file, "a/b"]);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /error: Invalid skill: YAML error: /);
  });

  it("a refused read and an invalid path", () => {
    const refused = cli(["read", PDF, "canvas-fonts/NOTICE.txt", "--global-safety", "false"]);
    assert.deepEqual([refused.code, refused.stdout, refused.stderr], [
      1,
      "",
      'skillset: error: Refused to read non-standard resource "canvas-fonts/NOTICE.txt": global safety is false, skill safety is true (both must be false)\n',
    ]);
    const invalid = cli(["read", PDF, "../catalog.yaml"]);
    assert.deepEqual([invalid.code, invalid.stderr], [
      1,
      'skillset: error: Invalid resource path "../catalog.yaml": it contains ".." and could leave the skill folder\n',
    ]);
    const missing = cli(["read", PDF, "references/none.md"]);
    assert.deepEqual([missing.code, missing.stderr], [
      1,
      'skillset: error: No resource "references/none.md" in skill "pdf"\n',
    ]);
  });

  it("bad usage exits 2 with the usage line", () => {
    for (
      const args of [
        [],
        ["bogus"],
        ["read", PDF],
        ["read", PDF, "x", "--limit", "0"],
        ["activate", PDF, "--skill-safety", "maybe"],
        ["graph", EXAMPLE, "--format", "png"],
        ["resolve", EXAMPLE, "x", "--frobnicate"],
      ]
    ) {
      const r = cli(args);
      assert.equal(r.code, 2, `${args.join(" ")}: ${r.stderr}`);
      assert.ok(!/\n\s+at /.test(r.stderr), "no stack trace");
    }
    assert.equal(
      cli(["read", PDF]).stderr,
      "skillset: read: expected 2 arguments, got 1\nusage: skillset read <skill-dir> <path> [--offset N|L+B] [--limit N] [--max-page-bytes N] [--class NAME=references|assets|scripts]... [--global-safety true|false] [--skill-safety true|false] [--lockfile FILE] [--approvals FILE] [--json]\n",
    );
  });

  it("--help and --version", () => {
    const help = cli(["--help"]);
    assert.equal(help.code, 0);
    for (const c of ["resolve", "graph", "validate", "activate", "read", "to-prompt"]) {
      assert.match(help.stdout, new RegExp(`skillset ${c} `));
    }
    const one = cli(["read", "--help"]);
    assert.equal(one.code, 0);
    assert.match(one.stdout, /^usage: skillset read <skill-dir> <path>/);
    assert.match(cli(["--version"]).stdout, /^skillset \d+\.\d+\.\d+\n$/);
  });
});

describe("skillset graph", () => {
  it("marks cycle edges and shows missing includes, as mermaid, dot and JSON", () => {
    const file = write(
      t("graph.yaml"),
      "- {name: g/a, includes: [g/b, g/gone]}\n- {name: g/b, includes: [g/a, g/c]}\n- {name: g/c}\n",
    );
    const mermaid = cli(["graph", file]);
    assert.equal(mermaid.code, 0, mermaid.stderr);
    assert.equal(
      mermaid.stdout,
      [
        "flowchart TD",
        '  n0["g/a"]',
        '  n1["g/b"]',
        '  n2["g/c"]',
        '  n3["g/gone (missing)"]:::missing',
        "  n0 -->|cycle| n1",
        "  n0 --> n3",
        "  n1 -->|cycle| n0",
        "  n1 --> n2",
        "  linkStyle 0,2 stroke:red,stroke-width:2px",
        "  classDef missing stroke-dasharray: 5 5,color:#a00",
        "",
      ].join("\n"),
    );
    const dot = cli(["graph", file, "g/b", "--format", "dot"]);
    assert.match(dot.stdout, /"g\/b" -> "g\/a" \[color=red, label="cycle"\];/);
    assert.match(dot.stdout, /"g\/gone" \[label="g\/gone \(missing\)", style=dashed, color=red\];/);
    const json = JSON.parse(cli(["graph", file, "--json"]).stdout);
    assert.deepEqual(json.cycles, [["g/a", "g/b", "g/a"]]);
    assert.deepEqual(json.edges[1], { from: "g/a", to: "g/gone", cycle: false });
  });
});

describe("skillset activate, read and to-prompt", () => {
  it("activates with the gate closed and open", () => {
    const closed = cli(["activate", PDF]);
    assert.equal(closed.code, 0, closed.stderr);
    assert.match(closed.stdout, /\[asset\] assets\/logo\.png \(70 bytes, image\/png\)/);
    assert.ok(!closed.stdout.includes("canvas-fonts"));
    const open = cli([
      "activate",
      PDF,
      "--global-safety",
      "false",
      "--skill-safety=false",
      "--json",
    ]);
    const activation = JSON.parse(open.stdout);
    assert.deepEqual(activation.resources.nonstandard.map((e: { path: string }) => e.path), [
      "canvas-fonts/NOTICE.txt",
      "canvas-fonts/glyphs.bin",
    ]);
  });

  it("caps pages with --max-page-bytes, continues a line with --offset L+B, pages the manifest", () => {
    const piece = JSON.parse(
      cli(["read", PDF, "references/forms.md", "--max-page-bytes", "8", "--json"]).stdout,
    );
    assert.deepEqual([piece.content, piece.range, piece.next_offset], [
      "# Suppor",
      "line 1 of 122, bytes 0-7",
      "0+8",
    ]);
    const rest = JSON.parse(
      cli(["read", PDF, "references/forms.md", "--offset", "0+8", "--json"]).stdout,
    );
    assert.equal(rest.content.split("\n")[0], "ted forms");
    const bad = cli(["read", PDF, "references/forms.md", "--max-page-bytes", "3"]);
    assert.deepEqual([bad.code, bad.stderr], [
      2,
      'skillset: --max-page-bytes takes a whole number of at least 4, got "3"\n',
    ]);
    const first = JSON.parse(cli(["activate", PDF, "--max-entries", "1", "--json"]).stdout);
    assert.deepEqual([first.resources.assets.length, first.not_shown.assets, first.next_offset], [
      1,
      1,
      1,
    ]);
    const next = cli(["activate", PDF, "--max-entries", "1", "--offset", "1"]);
    assert.match(next.stdout, /\[asset\] assets\/template\.txt/);
  });

  it("reads pages in the envelope and as JSON", () => {
    const r = cli(["read", PDF, "references/forms.md", "--offset", "2", "--limit", "2"]);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(
      r.stdout.replace(/nonce=[0-9a-f]{32}/g, "nonce=N"),
      "[SKILL_RESOURCE_READ nonce=N]\nskill: pdf\npath: references/forms.md\nclass: references\nencoding: utf-8\nsize: 3899\n" +
        "range: lines 3-4 of 122\nnext_offset: 4\ncontent_bytes: 62\n---\n- field_001: text — optional\n- field_002: text — optional\n\n[/SKILL_RESOURCE_READ nonce=N]\n",
    );
    const json = JSON.parse(
      cli([
        "read",
        PDF,
        "canvas-fonts/glyphs.bin",
        "--global-safety",
        "false",
        "--skill-safety",
        "false",
        "--json",
        "--limit",
        "4",
      ]).stdout,
    );
    assert.deepEqual(json, {
      skill: "pdf",
      path: "canvas-fonts/glyphs.bin",
      class: "nonstandard",
      encoding: "base64",
      size: 256,
      range: "bytes 0-2 of 256",
      next_offset: 3,
      content: "AAEC",
    });
  });

  it("prints <available_skills> with XML escaping", () => {
    const dir = t("prompt", "esc");
    write(
      join(dir, "SKILL.md"),
      `---\nname: esc\ndescription: "Use <b> & 'quotes' \\"here\\""\n---\n`,
    );
    const r = cli(["to-prompt", t("prompt"), PDF]);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(
      r.stdout.split("\n").slice(0, 6).join("\n"),
      `<available_skills>\n<skill>\n<name>esc</name>\n<description>Use &lt;b&gt; &amp; &apos;quotes&apos; &quot;here&quot;</description>\n<location>${
        join(dir, "SKILL.md")
      }</location>\n</skill>`,
    );
    assert.match(r.stdout, /<name>pdf<\/name>/);
  });
});

describe("skillset validate", () => {
  it("passes the bundled example", () => {
    const r = cli(["validate", join(ROOT, "examples")]);
    assert.deepEqual([r.code, r.stdout], [0, "0 errors, 0 warnings\n"]);
  });

  it("reports errors and warnings as file:line:col", () => {
    const catalog = write(
      t("v", "catalog.yaml"),
      [
        "- name: v/a",
        "  includes: [v/b, v/zz]",
        "  tool_refs: [read_file]",
        "  overrides:",
        "    read_file: {x: 1}",
        "    unused: {y: 2}",
        "  agent_skills: [skills/doc, skills/none]",
        "- name: v/b",
        "  includes: [v/a]",
        "",
      ].join("\n"),
    );
    const skill = t("v", "skills", "doc");
    write(join(skill, "secret", "k.txt"), "k");
    write(join(skill, "references", "ok.md"), "ok");
    write(
      join(skill, "SKILL.md"),
      "---\nname: doc\ndescription: d\n---\nSee [ok](references/ok.md) and [gone](references/gone.md).\nAlso `assets/none.png` and [key](secret/k.txt).\n" +
        "line\n".repeat(510),
    );
    const r = cli(["validate", catalog]);
    assert.equal(r.code, 1);
    assert.equal(
      r.stdout,
      [
        `${catalog}:2:19: error: Unknown skill "v/zz" included by "v/a"`,
        `${catalog}:6:5: warning: Override "unused" of "v/a" matches no tool ref of that skill; it changes nothing`,
        `${
          join(skill, "SKILL.md")
        }:505:1: warning: The SKILL.md body is 513 lines; keep it under 500 and move detail into references/`,
        `${
          join(skill, "SKILL.md")
        }:5:39: warning: Link to "references/gone.md" points to a missing file`,
        `${join(skill, "SKILL.md")}:6:7: warning: Path "assets/none.png" points to a missing file`,
        `${
          join(skill, "SKILL.md")
        }:6:34: warning: The body points to "secret/k.txt", in the non-standard folder "secret": the safety gate refuses it while it is closed (open it for this skill, move the file into references/, assets/ or scripts/, or map "secret" to a standard class)`,
        `${catalog}:7:30: error: Agent Skill folder "skills/none" of "v/a" not found (no SKILL.md in ${
          t("v", "skills", "none")
        })`,
        `${catalog}:2:14: error: Cycle detected in skill includes: v/a -> v/b -> v/a`,
        "3 errors, 5 warnings",
        "",
      ].join("\n"),
    );
  });

  it("agrees with the Agent Skills rules on the SKILL.md table", () => {
    const base = t("table");
    SKILL_MD_CASES.forEach((c, i) =>
      write(join(base, `${String(i).padStart(2, "0")}`, c.folder, "SKILL.md"), c.text)
    );
    const r = cli([
      "validate",
      ...SKILL_MD_CASES.map((c, i) => join(base, String(i).padStart(2, "0"), c.folder)),
      "--json",
    ]);
    const { diagnostics } = JSON.parse(r.stdout) as { diagnostics: Diagnostic[] };
    SKILL_MD_CASES.forEach((c, i) => {
      const file = join(base, String(i).padStart(2, "0"), c.folder, "SKILL.md");
      const found = diagnostics.filter((d) => d.file === file && d.severity === "error");
      if (c.error === null) assert.deepEqual(found, [], c.label);
      else {
        assert.equal(found.length, 1, c.label);
        if (c.prefix === true) assert.ok(found[0]!.message.startsWith(c.error), c.label);
        else assert.equal(found[0]!.message, c.error, c.label);
        if (c.line !== undefined) assert.equal(found[0]!.line, c.line, c.label);
      }
    });
    assert.equal(r.code, 1);
  });
});

describe("skillset resolve --json on generated catalogs", () => {
  const TOOLS = ["read_file", "__proto__", "constructor", "mcp:gh/x", "toString"];
  const catalogArb = fc.integer({ min: 1, max: 6 }).chain((n) =>
    fc.tuple(
      ...Array.from({ length: n }, (_, i) =>
        fc.record({
          includes: fc.array(fc.integer({ min: 0, max: n }), { maxLength: 3 }),
          tool_refs: fc.array(fc.constantFrom(...TOOLS), { maxLength: 3 }),
          overrides: fc.dictionary(fc.constantFrom(...TOOLS), fc.record({ t: fc.nat(9) }), {
            maxKeys: 2,
          }),
          inline: fc.array(
            fc.record({ read_only: fc.boolean(), side_effects: fc.subarray(["network", "fs"]) }),
            { maxLength: 2 },
          ),
          mcp: fc.array(
            fc.record({ server: fc.constantFrom("gh", "fs"), tools: fc.subarray(["x", "y"]) }),
            { maxLength: 2 },
          ),
        }).map((r): Skill => ({
          name: `gen/s${i}`,
          includes: r.includes.map((j) => (j === n ? "gen/missing" : `gen/s${j}`)),
          tool_refs: r.tool_refs,
          overrides: Object.fromEntries(Object.entries(r.overrides)),
          inline_tools: r.inline,
          mcp_servers: r.mcp,
        }))),
    )
  );

  it("prints exactly what resolveTools gives in-process (or its error)", () => {
    let k = 0;
    fc.assert(
      fc.property(catalogArb, (skills) => {
        const file = write(t("gen", `c${k++}.json`), JSON.stringify(skills));
        const r = cli(["resolve", file, "gen/s0", "--json"]);
        const catalog = new Map(skills.map((s) => [s.name, s]));
        try {
          const tools = resolveTools(skills[0]!, catalog);
          assert.equal(r.code, 0, r.stderr);
          assert.deepEqual(
            JSON.parse(r.stdout),
            JSON.parse(JSON.stringify({
              entries: [...tools.values()],
              summary: computeCapabilitySummary(skills[0]!, tools),
            })),
          );
        } catch (e) {
          if (!(e instanceof SkillResolutionError)) throw e;
          assert.deepEqual([r.code, r.stderr], [1, `skillset: error: ${e.message}\n`]);
        }
      }),
      runs(12),
    );
  });
});

describe("skillset colour", () => {
  function capture(args: string[], color: boolean): { code: number; out: string; err: string } {
    let out = "", err = "";
    const code = main(args, { stdout: (s) => (out += s), stderr: (s) => (err += s), color });
    return { code, out, err };
  }

  it("colours labels only when asked (a TTY without NO_COLOR)", () => {
    const file = write(t("colour.yaml"), "name: c/a\ntool_refs: [x]\noverrides: {y: {}}\n");
    const plain = capture(["validate", file], false);
    assert.equal(
      plain.out,
      `${file}:3:13: warning: Override "y" of "c/a" matches no tool ref of that skill; it changes nothing\n0 errors, 1 warning\n`,
    );
    const colored = capture(["validate", file], true);
    assert.ok(colored.out.includes("\x1b[33mwarning:\x1b[0m"));
    assert.ok(capture(["resolve", file, "c/a"], true).out.startsWith("\x1b[1mc/a: 1 tool\x1b[0m"));
    assert.ok(capture(["resolve", file, "c/zz"], true).err.includes("\x1b[31merror:\x1b[0m"));
    // the subprocess runs without a TTY: no colour
    assert.ok(!cli(["validate", file]).stdout.includes("\x1b["));
  });
});
