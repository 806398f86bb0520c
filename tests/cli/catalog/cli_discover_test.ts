// @slow: runs the CLI as a subprocess (left out of `npm run test:quick`)
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { cli, CLI_TIMEOUT_MS, runInProcess as run } from "../../_cli.ts";
import { write } from "../../_tree.ts";

let temp = "";
const t = (...parts: string[]) => join(temp, ...parts);

function skillMd(name: string, description: string, extra = ""): string {
  return `---\nname: ${name}\ndescription: ${description}\n${extra}---\n# ${name}\n`;
}

before(() => {
  temp = realpathSync(mkdtempSync(join(tmpdir(), "skillset-cli-discover-")));
  // A repository with a skills/ folder of skills at several depths, and a user folder.
  write(t("repo", "README.md"), "# Repo\n");
  write(t("repo", "skills", "pdf", "SKILL.md"), skillMd("pdf", "Fill PDF forms"));
  write(t("repo", "skills", "pdf", "references", "forms.md"), "# Forms\n");
  write(
    t("repo", "skills", "vendor", "long", "SKILL.md"),
    skillMd("long", "word ".repeat(300).trim(), "colour: red\n"),
  );
  write(t("repo", "skills", "vendor", "broken", "SKILL.md"), "---\nname: [\n---\n");
  write(t("user", "pdf", "SKILL.md"), skillMd("pdf", "My PDF skill"));
  write(t("user", "notes", "SKILL.md"), skillMd("notes", "Take notes"));
});
after(() => rmSync(temp, { recursive: true, force: true }));

describe("skillset list", () => {
  it("lists loaded, shadowed and skipped skills with their diagnostics as JSON", () => {
    const r = run(["list", "--root", `project=${t("repo")}`, "--root=user=" + t("user"), "--json"]);
    assert.equal(r.code, 0, r.stderr);
    const out = JSON.parse(r.stdout);
    assert.deepEqual(out.roots, [
      { scope: "project", path: t("repo") },
      { scope: "user", path: t("user") },
    ]);
    assert.deepEqual(
      out.skills.map((s: { status: string; scope: string; name: string | null; path: string }) => [
        s.status,
        s.scope,
        s.name,
        s.path,
      ]),
      [
        ["loaded", "project", "pdf", t("repo", "skills", "pdf")],
        ["loaded", "project", "long", t("repo", "skills", "vendor", "long")],
        ["loaded", "user", "notes", t("user", "notes")],
        ["shadowed", "user", "pdf", t("user", "pdf")],
        ["skipped", "project", null, t("repo", "skills", "vendor", "broken")],
      ],
    );
    assert.deepEqual(out.skills[3].winner, { scope: "project", path: t("repo", "skills", "pdf") });
    assert.deepEqual(
      out.skills[1].diagnostics.map((d: { code: string; line: number }) => [d.code, d.line]),
      [["UNKNOWN_FIELD", 4], ["FRONTMATTER_RULE", 3]],
    );
    assert.equal(out.skills[4].diagnostics[0].severity, "error");
  });

  it("prints a table, the diagnostics and a summary", () => {
    const roots = ["--root", `project=${t("repo")}`, "--root", `user=${t("user")}`];
    // Without --verbose, a skill's warnings are counted on stderr, not listed.
    const counted = run(["list", ...roots]);
    assert.ok(!counted.stdout.includes("must be 1 to 1024 characters"), counted.stdout);
    assert.match(counted.stderr, /^skillset list: \d+ findings: .*--verbose lists each\n$/);
    const r = run(["list", ...roots, "--verbose"]);
    assert.equal(r.code, 0, r.stderr);
    const lines = r.stdout.split("\n");
    assert.equal(lines[0], "scope    status    name   path");
    assert.equal(lines[4], `user     shadowed  pdf    ${t("user", "pdf")}`);
    assert.ok(
      r.stdout.includes(
        `  ${t("user", "pdf")}: shadowed by ${t("repo", "skills", "pdf")} (scope project)\n`,
      ),
    );
    assert.ok(
      r.stdout.includes(
        `  ${
          t("repo", "skills", "vendor", "long", "SKILL.md")
        }:3:1: warning: Invalid SKILL.md at ` +
          "description: must be 1 to 1024 characters, got 1499\n",
      ),
    );
    assert.equal(
      lines.at(-2),
      `3 loaded, 1 shadowed, 1 skipped (roots: project=${t("repo")}, user=${t("user")})`,
    );
  });

  it("escapes control and bidi characters in names it prints", () => {
    write(t("odd", "x", "SKILL.md"), skillMd('"x\\u202e\\u001b[31m"', "Odd"));
    const r = run(["list", "--root", `s=${t("odd")}`]);
    assert.equal(r.code, 0, r.stderr);
    assert.ok(r.stdout.includes("x\\u{202e}\\u{1b}[31m"), r.stdout);
    assert.ok(!r.stdout.includes("\u202e") && !r.stdout.includes("\x1b"));
  });

  it("rejects a --root without scope=path", () => {
    const r = run(["list", "--root", "nowhere"]);
    assert.deepEqual([r.code, r.stderr], [2, 'skillset: --root takes scope=path, got "nowhere"\n']);
  });

  it("defaults to the project and user roots (a real process)", () => {
    const home = t("home");
    write(join(home, ".agents", "skills", "notes", "SKILL.md"), skillMd("notes", "User notes"));
    write(join(home, ".claude", "skills", "old", "SKILL.md"), skillMd("old", "Old user skill"));
    write(t("cwd", ".agents", "skills", "notes", "SKILL.md"), skillMd("notes", "Project notes"));
    write(t("cwd", ".claude", "skills", "claude", "SKILL.md"), skillMd("claude", "Claude skill"));
    const r = cli(["list", "--json"], t("cwd"), CLI_TIMEOUT_MS, { HOME: home, USERPROFILE: home });
    assert.equal(r.code, 0, r.stderr);
    const out = JSON.parse(r.stdout);
    assert.deepEqual(out.roots, [
      { scope: "project", path: t("cwd", ".agents", "skills") },
      { scope: "project", path: t("cwd", ".claude", "skills") },
      { scope: "user", path: join(home, ".agents", "skills") },
      { scope: "user", path: join(home, ".claude", "skills") },
    ]);
    assert.deepEqual(
      out.skills.map((s: { status: string; scope: string; description: string }) => [
        s.status,
        s.scope,
        s.description,
      ]),
      [
        ["loaded", "project", "Project notes"],
        ["loaded", "project", "Claude skill"],
        ["loaded", "user", "Old user skill"],
        ["shadowed", "user", "User notes"],
      ],
    );
  });
});

describe("skillset to-prompt over discovered skills", () => {
  it("lists a skill that breaks a rule, warns on stderr, and scans nested folders", () => {
    const r = run(["to-prompt", t("repo"), "--verbose"]);
    assert.equal(r.code, 1, r.stderr); // the broken skill: listed skills, and exit 1
    assert.match(r.stdout, /<name>pdf<\/name>[\s\S]*<name>long<\/name>/);
    assert.equal(
      r.stderr,
      [
        `${t("repo", "skills", "vendor", "long", "SKILL.md")}:4:1: warning: Invalid SKILL.md at ` +
        'colour: unknown field "colour" (known: name, description, license, compatibility, metadata, allowed-tools)',
        `${t("repo", "skills", "vendor", "long", "SKILL.md")}:3:1: warning: Invalid SKILL.md at ` +
        "description: must be 1 to 1024 characters, got 1499",
        `${
          t("repo", "skills", "vendor", "broken", "SKILL.md")
        }:3:1: error: Invalid SKILL.md: YAML ` +
        "error: Flow sequence in block collection must be sufficiently indented and end with a ]",
        "skillset: 3 findings: 1 error (1 SKILL_SKIPPED), 2 warnings (1 FRONTMATTER_RULE, 1 UNKNOWN_FIELD)",
        "",
      ].join("\n"),
    );
  });

  it("fits --budget and says how many skills were left out", () => {
    const full = run(["to-prompt", t("repo"), t("user"), "--verbose"]);
    assert.ok(full.stderr.includes('warning: skill "pdf" is shadowed by'));
    const r = run(["to-prompt", t("repo"), t("user"), "--budget", "600"]);
    assert.equal(r.code, 1, r.stderr);
    assert.ok([...r.stdout].length <= 601);
    assert.match(r.stdout, /<description>word word [^<]*…<\/description>/);
    const small = run(["to-prompt", t("repo"), t("user"), "--budget", "400", "--json"]);
    const out = JSON.parse(small.stdout);
    assert.deepEqual(out.skills.map((s: { name: string }) => s.name), ["pdf"]);
    assert.deepEqual(out.left_out, ["long", "notes"]);
    const bad = run(["to-prompt", t("repo"), "--budget", "many"]);
    assert.deepEqual([bad.code, bad.stderr], [
      2,
      'skillset: --budget takes a whole number of at least 0, got "many"\n',
    ]);
  });

  it("reports a folder argument that does not exist and lists the rest", () => {
    const r = run(["to-prompt", t("user"), t("nowhere")]);
    assert.equal(r.code, 1);
    assert.match(r.stdout, /<name>notes<\/name>[\s\S]*<name>pdf<\/name>/);
    assert.equal(r.stderr, `${t("nowhere")}: error: Invalid SKILL.md: no such folder\n`);
  });

  it("fails when no usable skill is found", () => {
    const r = run(["to-prompt", t("repo", "skills", "vendor", "broken")]);
    assert.equal(r.code, 1);
    assert.ok(
      r.stderr.endsWith(
        `${
          t("repo", "skills", "vendor", "broken")
        }: error: Invalid SKILL.md: no usable SKILL.md in ` +
          "the folder or its sub-folders\n",
      ),
      r.stderr,
    );
  });
});

describe("skillset validate and activate with nested and lenient skills", () => {
  it("validate finds skills below the first level and stays strict", () => {
    const r = run(["validate", t("repo")]);
    assert.equal(r.code, 1);
    assert.ok(
      r.stdout.includes(`${t("repo", "skills", "vendor", "long", "SKILL.md")}:4:1: error:`),
    );
    assert.ok(
      r.stdout.includes(`${t("repo", "skills", "vendor", "broken", "SKILL.md")}:3:1: error:`),
    );
    // Every rule break of a SKILL.md, not only the first.
    assert.ok(
      r.stdout.includes(`${t("repo", "skills", "vendor", "long", "SKILL.md")}:3:1: error:`),
    );
    assert.ok(r.stdout.endsWith("3 errors, 0 warnings\n"), r.stdout);
  });

  it("activate and read load leniently, with the rule breaks on stderr", () => {
    const dir = t("repo", "skills", "vendor", "long");
    const activated = run(["activate", dir, "--verbose"]);
    assert.equal(activated.code, 0, activated.stderr);
    assert.match(activated.stdout, /skill: long/);
    assert.match(activated.stderr, /warning: Invalid SKILL\.md at colour/);
    const read = run(["read", dir, "SKILL.md", "--verbose"]);
    assert.equal(read.code, 0, read.stderr);
    assert.match(read.stderr, /warning: Invalid SKILL\.md at description/);
  });
});
