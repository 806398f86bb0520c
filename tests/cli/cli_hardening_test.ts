// @slow: runs the CLI as a subprocess, as another user (left out of `npm run test:quick`)
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { chmodSync, mkdirSync, mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { cli, runInProcess as run } from "../_cli.ts";
import { runChild, unreadableBy } from "../_spawn.ts";
import { write } from "../_tree.ts";

let temp = "";
const t = (...parts: string[]) => join(temp, ...parts);

function skill(dir: string, name: string, description = "d", body = "body\n"): string {
  write(
    join(dir, "SKILL.md"),
    `---\nname: ${name}\ndescription: ${JSON.stringify(description)}\n---\n${body}`,
  );
  return dir;
}

const UNSAFE =
  // deno-lint-ignore no-control-regex -- looking for control characters is the point
  /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029]/;
const ESC = "\x1b";
const HOSTILE = `x${ESC}]0;pwned\x07${ESC}[2J\u202e\u2028\nfake: error`;

before(() => {
  temp = mkdtempSync(join(tmpdir(), "skillset-cli-hardening-"));
});
after(() => rmSync(temp, { recursive: true, force: true }));

describe("CLI: terminal and log injection", () => {
  it("escapes controls in file names and descriptions in human output; --json stays exact", () => {
    const dir = skill(t("inject", "evil"), "evil", `Tables${HOSTILE}`, "Read references/a.md\n");
    mkdirSync(join(dir, "references"));
    // A broken link whose name carries an OSC title sequence, BEL and a newline.
    symlinkSync("nowhere", join(dir, "references", HOSTILE));
    const outputs = [
      run(["validate", dir]),
      run(["to-prompt", dir]),
      run(["activate", dir]),
      run(["read", dir, `references/${HOSTILE}`]),
      run(["resolve", join(dir, "SKILL.md"), HOSTILE]),
      run([HOSTILE]),
    ];
    for (const r of outputs) {
      assert.ok(!UNSAFE.test(r.stdout + r.stderr), JSON.stringify(r));
    }
    const [validate, toPrompt] = outputs;
    assert.match(
      validate!.stdout,
      /references\/x\\x1b\]0;pwned\\x07\\x1b\[2J\\u202e\\u2028\\nfake: error: warning: /,
    );
    assert.match(
      toPrompt!.stdout,
      // (Line breaks, U+2028 included, are folded into one space, as skills-ref folds them.)
      /<description>Tablesx\\x1b\]0;pwned\\x07\\x1b\[2J\\u202e fake: error<\/description>/,
    );
    // --json is exact: the raw characters, JSON-escaped only where JSON requires.
    const json = JSON.parse(run(["to-prompt", dir, "--json"]).stdout);
    assert.equal(json.skills[0].description, `Tables${HOSTILE}`);
    const diagnostics = JSON.parse(run(["validate", dir, "--json"]).stdout).diagnostics;
    assert.ok(diagnostics.some((d: { file: string }) => d.file.endsWith(`references/${HOSTILE}`)));
  });
});

describe("CLI: one failure does not hide the rest", () => {
  it("to-prompt lists every loadable skill, reports each broken one, and exits 1", () => {
    const a = skill(t("many", "a"), "a", "First");
    // (Since issue 14 a name mismatch loads with a warning; no description is what skips a skill.)
    const broken = t("many", "b");
    write(join(broken, "SKILL.md"), "---\nname: b\n---\nbody\n");
    const c = skill(t("many", "c"), "c", "Third");
    const r = run(["to-prompt", a, broken, t("many", "missing"), c]);
    assert.equal(r.code, 1);
    assert.match(r.stdout, /<name>a<\/name>[\s\S]*<name>c<\/name>/);
    assert.equal(
      r.stderr,
      `${t("many", "missing")}: error: Invalid SKILL.md: no such folder\n` +
        `${
          join(broken, "SKILL.md")
        }:2:1: error: Invalid SKILL.md at description: missing required field "description"\n` +
        "",
    );
    // A folder of skill folders: the same, skill by skill.
    const folder = run(["to-prompt", t("many")]);
    assert.equal(folder.code, 1);
    assert.match(folder.stdout, /<name>a<\/name>[\s\S]*<name>c<\/name>/);
  });

  // The child runs as nobody when the tests run as root: that user must be able to start the
  // runtime and reach the temporary folder (runChild stages the child where it can read it).
  const unprivileged = process.getuid?.() === 0 ? unreadableBy(65534, 65534, [tmpdir()]) : null;
  (unprivileged === null ? it : it.skip)(
    `validate and to-prompt report every skill, also after one that cannot be read (EACCES)${
      unprivileged === null ? "" : ` (skipped: ${unprivileged})`
    }`,
    () => {
      // Run as an unprivileged user when the tests run as root (root reads any file).
      const as = process.getuid?.() === 0 ? { uid: 65534, gid: 65534 } : {};
      chmodSync(temp, 0o755);
      const locked = skill(t("perm", "locked"), "locked");
      const ok = skill(t("perm", "ok"), "ok", "d", "See references/none.md\n");
      chmodSync(join(locked, "SKILL.md"), 0o000);
      try {
        const validate = runChild(["cli", "validate", locked, ok], 60_000, as);
        assert.equal(validate.code, 1, validate.stderr);
        // (The child prints the fast-check seed of the helpers it shares.)
        const lines = validate.stdout.split("\n").filter((l) => !l.startsWith("fast-check seed"));
        assert.deepEqual(lines, [
          `${locked}: error: Cannot read "SKILL.md": permission denied`,
          `${
            join(ok, "SKILL.md")
          }:5:5: warning: Path "references/none.md" points to a missing file`,
          "1 error, 1 warning",
          "",
        ]);
        const toPrompt = runChild(["cli", "to-prompt", locked, ok], 60_000, as);
        assert.equal(toPrompt.code, 1, toPrompt.stderr);
        assert.match(toPrompt.stdout, /<name>ok<\/name>/);
        // (Under c8, the unprivileged child also says it cannot write coverage: first line only.)
        assert.equal(
          toPrompt.stderr.split("\n")[0],
          `${join(locked, "SKILL.md")}: error: Skipped: permission denied reading SKILL.md`,
        );
      } finally {
        chmodSync(join(locked, "SKILL.md"), 0o644);
      }
    },
  );

  it("validate reports every broken skill and catalog on its own; the exit code is the worst", () => {
    const broken = skill(t("each", "one"), "two");
    const warned = skill(t("each", "warned"), "warned", "d", "See references/none.md\n");
    const catalog = write(t("each", "c.yaml"), "name: a/b\ntool_refs: !!set {x}\n");
    const r = run(["validate", broken, catalog, warned]);
    assert.equal(r.code, 1);
    assert.deepEqual(r.stdout.split("\n"), [
      `${
        join(broken, "SKILL.md")
      }:2:1: error: Invalid SKILL.md at name: "two" must equal the folder name "one"`,
      `${catalog}:2:18: error: Invalid skill: YAML error: the tag "!!set" is outside the core schema`,
      `${
        join(warned, "SKILL.md")
      }:5:5: warning: Path "references/none.md" points to a missing file`,
      "2 errors, 1 warning",
      "",
    ]);
    assert.equal(run(["validate", warned]).code, 0);
  });
});

describe("CLI: validate with nothing to validate", () => {
  it("exits 1 naming the folder and what it looked for", () => {
    mkdirSync(t("nothing", "deep", "er"), { recursive: true });
    write(t("nothing", "README.md"), "not a skill");
    const r = run(["validate", t("nothing")]);
    assert.equal(r.code, 1);
    assert.equal(
      r.stdout,
      `${
        t("nothing")
      }: error: Nothing to validate: no SKILL.md or skill.md in the folder, no catalog ` +
        "file (.yaml, .yml, .json naming the skill schema or a scope/name skill) in it, and no " +
        "sub-folder holding a SKILL.md\n1 error, 0 warnings\n",
    );
  });
});

describe("CLI: paths printed as typed", () => {
  it("names files relative when typed relative, absolute when typed absolute", () => {
    write(
      t("typed", "broken.yaml"),
      "name: a/b\ninline_tools:\n  - description: ok\n  - read_only: true\n    writes: true\n",
    );
    skill(t("typed", "skills", "x"), "y");
    const relative = cli(["resolve", "broken.yaml", "a/b"], t("typed"));
    assert.equal(relative.code, 1);
    assert.equal(
      relative.stderr,
      'broken.yaml:4:5: error: Invalid skill "a/b" at inline_tools[1]: read_only and writes are both true\n',
    );
    const absolute = cli(["resolve", t("typed", "broken.yaml"), "a/b"], t("typed"));
    assert.match(absolute.stderr, new RegExp(`^${t("typed", "broken.yaml")}:4:5: error: `));
    const validate = cli(["validate", "skills/x", "broken.yaml"], t("typed"));
    assert.deepEqual(validate.stdout.split("\n").slice(0, 2), [
      'skills/x/SKILL.md:2:1: error: Invalid SKILL.md at name: "y" must equal the folder name "x"',
      'broken.yaml:4:5: error: Invalid skill "a/b" at inline_tools[1]: read_only and writes are both true',
    ]);
    const activate = cli(["activate", "./skills/x", "--verbose"], t("typed"));
    assert.equal(
      activate.stderr,
      'skills/x/SKILL.md:2:1: warning: Invalid SKILL.md at name: "y" must equal the folder name "x"\n' +
        "skillset: 1 finding: 1 warning (1 NAME_MISMATCH)\n",
    );
  });
});
