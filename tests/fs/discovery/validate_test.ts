import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { linkSync, mkdirSync, mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { spawnSync } from "node:child_process";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  type Diagnostic,
  formatDiagnostic,
  loadCatalog,
  MAX_CATALOG_FILE_BYTES,
  parseCatalogText,
  validatePaths,
} from "../../../lib/load.ts";
import { SkillDefinitionError } from "../../../mod.ts";
import { fc, runs } from "../../_fc.ts";
import { write } from "../../_tree.ts";

let temp = "";
const t = (...parts: string[]) => join(temp, ...parts);
const lines = (ds: Diagnostic[]) => ds.map((d) => formatDiagnostic(d).replaceAll(temp, "T"));

before(() => {
  temp = mkdtempSync(join(tmpdir(), "skillset-validate-"));
});
after(() => rmSync(temp, { recursive: true, force: true }));

describe("validatePaths", () => {
  it("reports a missing path and a folder with nothing to validate", () => {
    mkdirSync(t("empty"));
    assert.deepEqual(lines(validatePaths([t("missing"), t("empty")])), [
      "T/missing: error: no such file or folder",
      "T/empty: error: Nothing to validate: no SKILL.md or skill.md in the folder, no catalog file " +
      "(.yaml, .yml, .json naming the skill schema or a scope/name skill) in it, and no " +
      "sub-folder holding a SKILL.md",
    ]);
  });

  it("takes a SKILL.md path, a folder of skill folders with catalogs, and visits each skill once", () => {
    write(t("mixed", "one", "SKILL.md"), "---\nname: one\ndescription: d\n---\nbody\n");
    write(t("mixed", "two", "SKILL.md"), "---\nname: wrong\ndescription: d\n---\n");
    write(t("mixed", "c.yaml"), "name: m/a\nagent_skills: [one]\n");
    assert.deepEqual(lines(validatePaths([t("mixed"), t("mixed", "one", "SKILL.md")])), [
      'T/mixed/two/SKILL.md:2:1: error: Invalid SKILL.md at name: "wrong" must equal the folder name "two"',
    ]);
  });

  it("checks links: invalid, outside the folder, into a folder, and not-a-link text", () => {
    const dir = t("links", "doc");
    write(join(dir, "references", "a.md"), "a");
    write(t("links", "outside.md"), "secret");
    symlinkSync("../../outside.md", join(dir, "references", "out.md"));
    write(
      join(dir, "SKILL.md"),
      [
        "---",
        "name: doc",
        "description: d",
        "---",
        "[abs](/etc/passwd) [web](https://example.com/x) [anchor](#top) [up](../x.md)",
        "[folder](references) [out](references/out.md) [ok](references/a.md#part) [enc](references/a%2Emd)",
        "Paths in prose: references/a.md, references/gone.md. And see scripts/none.sh!",
      ].join("\n"),
    );
    assert.deepEqual(lines(validatePaths([dir])), [
      'T/links/doc/SKILL.md:5:69: warning: Link to "../x.md" is not a path inside the skill: Invalid resource path "../x.md": it contains ".." and could leave the skill folder',
      'T/links/doc/SKILL.md:6:28: warning: Link to "references/out.md" leads outside the skill folder; it is never readable',
      'T/links/doc/SKILL.md:7:34: warning: Path "references/gone.md" points to a missing file',
      'T/links/doc/SKILL.md:7:62: warning: Path "scripts/none.sh" points to a missing file',
    ]);
  });

  it("warns for every path a model may follow: backticked, bare, gated, missing, case-mismatched, outside", () => {
    const dir = t("paths", "canvas");
    write(join(dir, "templates", "viewer.html"), "<html>");
    write(join(dir, "canvas-fonts", "a.ttf"), "font");
    write(join(dir, "forms.md"), "forms");
    write(join(dir, "references", "Guide.md"), "guide");
    write(join(dir, "scripts", "run.py"), "print(1)");
    write(t("paths", "shared.md"), "shared");
    write(
      join(dir, "SKILL.md"),
      [
        "---",
        "name: canvas",
        "description: d",
        "---",
        "Open `templates/viewer.html` and search the `./canvas-fonts` directory.",
        "See [forms](FORMS.md), references/guide.md and ../shared.md too.",
        "Fine: `scripts/run.py`, forms.md, ./forms.md, [g](references/Guide.md), /tmp/out.pdf.",
        "Not paths: and/or, input/output, https://example.com/a.md, example.com/x.md, 1/2.",
        "Missing: `references/none.md`, assets/logo.png; gated: canvas-fonts/a.ttf.",
      ].join("\n"),
    );
    assert.deepEqual(lines(validatePaths([dir])), [
      'T/paths/canvas/SKILL.md:5:7: warning: The body points to "templates/viewer.html", in the non-standard folder "templates": the safety gate refuses it while it is closed (open it for this skill, move the file into references/, assets/ or scripts/, or map "templates" to a standard class)',
      'T/paths/canvas/SKILL.md:5:46: warning: The body points to "canvas-fonts", in the non-standard folder "canvas-fonts": the safety gate refuses it while it is closed (open it for this skill, move the file into references/, assets/ or scripts/, or map "canvas-fonts" to a standard class)',
      'T/paths/canvas/SKILL.md:6:13: warning: Link to "FORMS.md" points to a missing file; "forms.md" differs only in case',
      'T/paths/canvas/SKILL.md:6:24: warning: Path "references/guide.md" points to a missing file; "references/Guide.md" differs only in case',
      'T/paths/canvas/SKILL.md:6:48: warning: Path "../shared.md" is not a path inside the skill: Invalid resource path "../shared.md": it contains ".." and could leave the skill folder',
      'T/paths/canvas/SKILL.md:9:11: warning: Path "references/none.md" points to a missing file',
      'T/paths/canvas/SKILL.md:9:32: warning: Path "assets/logo.png" points to a missing file',
      'T/paths/canvas/SKILL.md:9:56: warning: The body points to "canvas-fonts/a.ttf", in the non-standard folder "canvas-fonts": the safety gate refuses it while it is closed (open it for this skill, move the file into references/, assets/ or scripts/, or map "canvas-fonts" to a standard class)',
    ]);
  });

  it("leaves out the user's data in code, stand-ins and outputs, and names a missing file once", () => {
    const dir = t("data", "sci");
    write(join(dir, "scripts", "run.py"), "print(1)");
    write(join(dir, "assets", "example.json"), "{}");
    write(
      join(dir, "SKILL.md"),
      [
        "---",
        "name: sci",
        "description: d",
        "---",
        "```python",
        "dataset = Planetoid(root='./data', name='Cora')",
        'artifact = curator.save_artifact(key="scrna/validated.h5ad")',
        'cfg = {"path": "inputs/table.csv"}',
        "```",
        "```bash",
        "mkdir -p runs/today && cd runs/today",
        "tool --test_data data/test.json --download-dir ./data",
        "python scripts/run.py && python scripts/missing.py",
        "```",
        "Put your config in ./your_task/config.yaml or data/<sample>/reads.fq or example/in.csv.",
        "Results land in output/forecast.json; see `assets/example.json`.",
        "Prose is checked: data/test.json, `scripts/missing.py` again, and scripts/missing.py.",
        "`scripts/gone.sh` differs from `assets/example.json`.",
      ].join("\n"),
    );
    assert.deepEqual(lines(validatePaths([dir])).filter((l) => !l.includes(": info: ")), [
      'T/data/sci/SKILL.md:13:33: warning: Path "scripts/missing.py" points to a missing file (and 2 more places)',
      'T/data/sci/SKILL.md:17:19: warning: Path "data/test.json" points to a missing file',
      'T/data/sci/SKILL.md:18:2: warning: Path "scripts/gone.sh" points to a missing file',
    ]);
    assert.deepEqual(
      validatePaths([dir]).filter((d) => d.severity === "info")
        .map((d) => d.message),
      ['Path "output/forecast.json" is written by the model, not a file of the skill'],
    );
  });

  it("reads outputs, defaults, section-relative paths, formats, words and stand-ins in prose as such, and still reports what is missing", () => {
    // Arrange: each class the scientific collection showed, beside a true missing path like it.
    const dir = t("classes", "sci");
    write(join(dir, "assets", "templates", "procedures", "capa.md"), "capa");
    write(join(dir, "scripts", "gen.py"), "print(1)");
    write(
      join(dir, "SKILL.md"),
      [
        "---",
        "name: sci",
        "description: d",
        "---",
        "[12:00] SAVED: Search results to sources/search_1.md",
        "See sources/search_2.md for more.",
        "```bash",
        "# Results in: ./data/tcga/CT/",
        "python scripts/gen.py -o qc.sh",
        "./qc.sh && ./other.sh",
        "# Creates: review/slide-001.jpg, review/slide-002.jpg, etc.",
        "```",
        "- `-dd/--data_dir`: Cache directory (default: ./cbio_cache)",
        "- Read the notes (see ./cbio_notes/a.md)",
        "### assets/templates/",
        "- `procedures/capa.md` and `procedures/none.md`",
        "## Formats",
        "- `sequence`: a string or path to FASTA/.txt file; unlimited references/appendix",
        "- built with CuPy/cupyx.scipy.sparse; read `references/appendix` and data/x.tar.gz",
        "```markdown",
        "- Page limit: 8 pages + unlimited references/extra",
        "```",
        "Help: `python scripts/script_name.py --help`; keys like `project/batch/file.h5ad`.",
      ].join("\n"),
    );
    // Act
    const found = validatePaths([dir]);
    // Assert: the true missing paths are still warned of; the written ones are info.
    assert.deepEqual(lines(found.filter((d) => d.severity === "warning")), [
      'T/classes/sci/SKILL.md:6:5: warning: Path "sources/search_2.md" points to a missing file',
      'T/classes/sci/SKILL.md:10:12: warning: Path "./other.sh" points to a missing file',
      'T/classes/sci/SKILL.md:14:23: warning: Path "./cbio_notes/a.md" points to a missing file',
      'T/classes/sci/SKILL.md:16:29: warning: Path "procedures/none.md" points to a missing file',
      'T/classes/sci/SKILL.md:19:45: warning: Path "references/appendix" points to a missing file',
      'T/classes/sci/SKILL.md:19:70: warning: Path "data/x.tar.gz" points to a missing file',
    ]);
    assert.deepEqual(
      found.filter((d) => d.severity === "info").map((d) => `${d.line} ${d.message}`),
      [
        '5 Path "sources/search_1.md" is written by the model, not a file of the skill',
        '8 Path "./data/tcga/CT/" is written by the model, not a file of the skill',
        '10 Path "./qc.sh" is written by the model, not a file of the skill',
        '11 Path "review/slide-001.jpg" is written by the model, not a file of the skill',
        '11 Path "review/slide-002.jpg" is written by the model, not a file of the skill',
      ],
    );
  });

  it("a class rule never hides a missing file of the skill's own folders, in any context it reads", () => {
    // Arrange: a skill with an assets/ folder; the body names a file of a standard folder that is
    // not there, in prose, a list, a link, a command — plain, under a heading naming a folder of
    // the skill, or in a markdown block. Names a stand-in rule would take are left out.
    let n = 0;
    const contexts: ((p: string) => string)[] = [
      (p) => `See \`${p}\` for details.`,
      (p) => `- \`${p}\`: the guide`,
      (p) => `Read ${p} first.`,
      (p) => `Follow [the guide](${p}).`,
      (p) => `python ${p} --help`,
    ];
    fc.assert(
      fc.property(
        fc.stringMatching(/^[a-z]{3,10}$/).filter((w) => !/^(?:file|filename|examples?)$/.test(w)),
        fc.constantFrom("references", "scripts", "assets"),
        fc.constantFrom("md", "py", "json", "txt"),
        fc.integer({ min: 0, max: contexts.length - 1 }),
        fc.constantFrom("plain", "section", "markdown"),
        (name, folder, ext, context, where) => {
          const dir = t("law", `s${n++}`);
          write(join(dir, "assets", "x.txt"), "x");
          const target = `${folder}/${name}.${ext}`;
          const line = contexts[context]!(target);
          const body = where === "section"
            ? ["### assets/", line]
            : where === "markdown"
            ? ["```markdown", line, "```"]
            : [line];
          write(
            join(dir, "SKILL.md"),
            ["---", "name: law", "description: d", "---", ...body].join("\n"),
          );
          // Act
          const found = validatePaths([dir]).filter((d) => d.code === "MISSING_REFERENCE");
          // Assert (a link inside a code block is no link: `](` there is text)
          const link = context === 3;
          assert.equal(found.length, link && where === "markdown" ? 0 : 1, `${where}: ${line}`);
        },
      ),
      runs(100),
    );
  });

  it("scans hostile body lines (once quadratic) and finds nothing in them", () => {
    const dir = t("hostile", "h");
    write(join(dir, "references", "a"), "a");
    const body = [
      "[".repeat(100_000),
      "](".repeat(50_000),
      "references/a ".repeat(40_000),
      `${".".repeat(50_000)}x/`,
    ];
    write(join(dir, "SKILL.md"), `---\nname: h\ndescription: d\n---\n${body.join("\n")}\n`);
    assert.deepEqual(lines(validatePaths([dir])), []);
  });

  it("judges a folder named on its own from one listing as a stat of its SKILL.md would", () => {
    // Arrange: each folder's SKILL.md is something the one listing must not take for a file.
    const md = (name: string) => `---\nname: ${name}\ndescription: d\n---\nbody\n`;
    const dir = t("one-listing");
    write(join(dir, "lower", "skill.md"), md("lower"));
    write(join(dir, "linked-in", "references", "real.md"), md("linked-in"));
    symlinkSync("references/real.md", join(dir, "linked-in", "SKILL.md"));
    write(join(dir, "secret.md"), md("link-out"));
    mkdirSync(join(dir, "link-out"));
    symlinkSync("../secret.md", join(dir, "link-out", "SKILL.md"));
    mkdirSync(join(dir, "pipe"));
    spawnSync("mkfifo", [join(dir, "pipe", "SKILL.md")]);
    write(join(dir, "folder", "SKILL.md", "x.md"), "x");
    write(join(dir, "folder", "skill.md"), md("folder"));
    write(join(dir, "real", "SKILL.md"), md("real"));
    symlinkSync("real", join(dir, "alias"));
    const names = ["lower", "linked-in", "link-out", "pipe", "folder", "alias"];
    // Act
    const found = lines(validatePaths(names.map((name) => join(dir, name))));
    // Assert
    assert.deepEqual(found, [
      "T/one-listing/link-out/SKILL.md: error: Invalid SKILL.md: SKILL.md is a link that does not lead to a regular file inside the skill folder",
      "T/one-listing/pipe: error: Invalid SKILL.md: no SKILL.md in the folder",
      'T/one-listing/alias/SKILL.md:2:1: error: Invalid SKILL.md at name: "real" must equal the folder name "alias"',
    ]);
  });

  it("checks references against the files the loader listed, not against the disk", () => {
    // Arrange: a linked folder (not followed), a hard link, and paths of both cases.
    const dir = t("listed", "doc");
    write(join(dir, "references", "a.md"), "a");
    symlinkSync("references", join(dir, "refs"));
    write(t("listed", "shared.txt"), "shared");
    mkdirSync(join(dir, "assets"));
    linkSync(t("listed", "shared.txt"), join(dir, "assets", "h.txt"));
    write(
      join(dir, "SKILL.md"),
      [
        "---",
        "name: doc",
        "description: d",
        "---",
        "Read refs/a.md, References/a.md and references/A.md; fill assets/h.txt.",
        "See [a](references/a.md) and [b](references/sub/b.md).",
      ].join("\n"),
    );
    // Act
    const found = lines(validatePaths([dir]));
    // Assert
    assert.deepEqual(found, [
      "T/listed/doc/refs: warning: a linked folder; not followed",
      "T/listed/doc/assets/h.txt: warning: has 2 hard links: its content is shared with another name, perhaps outside the folder; listed",
      'T/listed/doc/SKILL.md:5:6: warning: Path "refs/a.md" points to a missing file',
      'T/listed/doc/SKILL.md:5:17: warning: Path "References/a.md" points to a missing file; "references/a.md" differs only in case',
      'T/listed/doc/SKILL.md:5:37: warning: Path "references/A.md" points to a missing file; "references/a.md" differs only in case',
      'T/listed/doc/SKILL.md:6:34: warning: Link to "references/sub/b.md" points to a missing file',
    ]);
  });

  it("reports a catalog that fails to parse once, with its place", () => {
    const file = write(t("bad", "c.yaml"), "name: a/b\nincludes: 3\n");
    assert.deepEqual(lines(validatePaths([file])), [
      'T/bad/c.yaml:2:1: error: Invalid skill "a/b" at includes: expected a list, got number 3',
    ]);
  });
});

describe("catalogs", () => {
  it("refuses a file over the size limit", () => {
    const file = write(
      t("big.yaml"),
      `name: a/b\ndescription: "${"x".repeat(MAX_CATALOG_FILE_BYTES)}"\n`,
    );
    assert.throws(() => loadCatalog(file), (e: unknown) => {
      assert.ok(e instanceof SkillDefinitionError);
      assert.match(
        e.message,
        /^Invalid skill: the file is \d+ bytes; the limit is 4194304 \(.*big\.yaml\)$/,
      );
      return true;
    });
  });

  it("reads several documents, skips empty ones, and locates nested fields", () => {
    const text = "---\nname: a/one\n---\n---\n- name: a/two\n  inline_tools:\n    - writes: yes\n";
    assert.throws(() => parseCatalogText(text, "c.yaml"), {
      message:
        'Invalid skill "a/two" at inline_tools[0].writes: expected true or false, got "yes" (c.yaml:7:7)',
    });
    assert.deepEqual(
      parseCatalogText("---\nname: a/one\n---\n", "c.yaml").map((s) => s.skill.name),
      ["a/one"],
    );
  });

  it("resolves Agent Skill paths relative to a catalog folder", () => {
    write(t("folder-cat", "b.yaml"), "name: f/b\n");
    write(t("folder-cat", "a.json"), '{"name": "f/a", "includes": ["f/b"]}');
    write(t("folder-cat", "notes.txt"), "ignored");
    const catalog = loadCatalog(t("folder-cat"));
    assert.equal(catalog.base, t("folder-cat"));
    assert.deepEqual([...catalog.skills.keys()], ["f/a", "f/b"]);
    assert.deepEqual(catalog.locations.get("f/b"), {
      file: t("folder-cat", "b.yaml"),
      line: 1,
      column: 1,
    });
  });
});
