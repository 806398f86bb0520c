/**
 * The everyday command line: the project config file (`skillset.json`, found
 * upwards, flags override it, keys only to commands whose spec takes them),
 * `skillset init`, did-you-mean, findings once per run with a summary by code
 * (`--quiet`, `--verbose`), `to-prompt --rank`, and the path checks of
 * `validate` (globs, headings, archive parts, written paths).
 */
// @slow: runs the CLI as a subprocess (left out of `npm run test:quick`)
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { cli, runInProcess } from "../_cli.ts";
import { write } from "../_tree.ts";
import { fc } from "../_fc.ts";
import { findConfig, readConfig, withConfig } from "../../lib/cli/_config.ts";
import { nearest } from "../../lib/cli/_suggest.ts";
import { Report } from "../../lib/cli/_report.ts";
import { validatePaths } from "../../lib/fs/discovery/validate.ts";
import type { ArgSpec } from "../../lib/cli/_args.ts";
import { cliAdvice } from "../../lib/cli/mcp/_mcp.ts";
import { McpSkillError } from "../../lib/mcp.ts";

let temp = "";
const t = (...parts: string[]) => join(temp, ...parts);

const skill = (name: string, body = "Body.\n", extra = "") =>
  `---\nname: ${name}\ndescription: The ${name} skill does ${name} things.\n${extra}---\n${body}`;

before(() => {
  temp = mkdtempSync(join(tmpdir(), "skillset-config-"));
  write(
    t("proj", ".agents", "skills", "pdf", "SKILL.md"),
    skill("pdf", "Body.\n", "colour: red\n"),
  );
  write(t("proj", ".agents", "skills", "docx", "SKILL.md"), skill("docx"));
  write(t("proj", "sub", "deeper", ".keep"), "");
  write(
    t("proj", "skillset.json"),
    JSON.stringify({
      roots: [{ scope: "project", path: ".agents/skills" }],
      lockfile: "my.lock.json",
    }),
  );
  // The user approved it (docs/security.md#config-approval): its lockfile and roots are honoured.
  const approve = cli(["config", "approve"], t("proj"));
  assert.equal(approve.code, 0, approve.stderr);
});
after(() => rmSync(temp, { recursive: true, force: true }));

const SPEC: ArgSpec = {
  values: ["--root", "--lockfile", "--class"],
  repeated: ["--root", "--class"],
  switches: ["--frozen"],
  positional: [0, 0],
  usage: "",
};

describe("skillset.json", () => {
  it("verify and serve need no arguments in a configured project, from any folder below it", () => {
    const lock = cli(["lock"], t("proj", "sub", "deeper"));
    assert.equal(lock.code, 0, lock.stderr);
    assert.ok(readFileSync(t("proj", "my.lock.json"), "utf8").includes('"docx"'));
    const verify = cli(["verify", "--json"], t("proj", "sub", "deeper"));
    assert.equal(verify.code, 0, verify.stdout + verify.stderr);
    // to-prompt and validate: the config's roots as their folders.
    const prompt = cli(["to-prompt", "--json"], t("proj", "sub"));
    assert.equal(prompt.code, 0, prompt.stderr);
    assert.deepEqual(JSON.parse(prompt.stdout).skills.map((s: { name: string }) => s.name).sort(), [
      "docx",
      "pdf",
    ]);
    // serve: the config's roots (stdin closes at once, so it stops after starting).
    const serve = cli(["serve"], t("proj", "sub"));
    assert.equal(serve.code, 0, serve.stderr);
    assert.match(serve.stderr, /serving 2 skills: (docx, pdf|pdf, docx)/);
    // A flag overrides the file: another root is named as differing from the lockfile's.
    write(t("other", "x", "SKILL.md"), skill("x"));
    const other = cli(["verify", "--root", `o=${t("other")}`], t("proj"));
    assert.equal(other.code, 1);
    assert.match(
      other.stderr,
      /the roots differ from the lockfile's: given o=.*other; locked project=/,
    );
  });

  it("is searched upwards, but not beyond a repository's root", () => {
    assert.equal(findConfig(t("proj", "sub", "deeper")), t("proj", "skillset.json"));
    write(t("proj", "repo", ".git", "HEAD"), "ref: refs/heads/main\n");
    write(t("proj", "repo", "inner", ".keep"), "");
    assert.equal(findConfig(t("proj", "repo", "inner")), undefined);
  });

  it("passes a key only to a command whose flag spec takes it, and flags win", () => {
    const config = readConfig(t("proj", "skillset.json"));
    const argv = withConfig(["verify"], SPEC, config);
    assert.ok(
      argv.includes("--lockfile=my.lock.json") || argv.some((a) => a.endsWith("my.lock.json")),
    );
    assert.ok(argv.some((a) => a.startsWith("--root=project=")));
    // A command without --lockfile does not get it (a later flag just works once the spec has it).
    const noLock = withConfig(["list"], { ...SPEC, values: ["--root"] }, config);
    assert.ok(!noLock.some((a) => a.startsWith("--lockfile")));
    // Modes: a true switch goes to a command that has it; diagnostics become --quiet/--verbose.
    const modes = t("modes", "skillset.json");
    write(modes, JSON.stringify({ frozen: true, allow_empty: false, diagnostics: "quiet" }));
    assert.deepEqual(withConfig(["verify"], SPEC, readConfig(modes)), [
      "verify",
      "--frozen",
      "--quiet",
    ]);
    assert.deepEqual(withConfig(["verify", "--verbose"], SPEC, readConfig(modes)), [
      "verify",
      "--frozen",
      "--verbose",
    ]);
    // Given on the command line: the file's value is not added at all (repeated flags too).
    const given = withConfig(["verify", "--root", "a=b"], SPEC, config);
    assert.deepEqual(given.filter((a) => a.startsWith("--root")), ["--root"]);
  });

  it("names a bad key with a did-you-mean, and a value of the wrong kind", () => {
    const bad = t("bad", "skillset.json");
    write(bad, JSON.stringify({ lockfle: "x" }));
    assert.throws(() => readConfig(bad), {
      name: "UsageError",
      message: `${bad}: unknown key "lockfle" (did you mean "lockfile"?)`,
    });
    write(bad, JSON.stringify({ budget: -1 }));
    assert.throws(() => readConfig(bad), {
      message: `${bad}: "budget" takes a whole number, got -1`,
    });
    write(bad, JSON.stringify({ roots: [{ scope: "a=b", path: "x" }] }));
    assert.throws(() => readConfig(bad), { name: "UsageError" });
    write(bad, "{ nope");
    assert.throws(() => readConfig(bad), { message: new RegExp(`^${bad}: not valid JSON: `) });
    write(bad, JSON.stringify({ classes: ["examples"] }));
    assert.throws(() => readConfig(bad), { message: /"classes" takes an object like/ });
    write(bad, JSON.stringify({ classes: { examples: 1 } }));
    assert.throws(() => readConfig(bad), { message: /"classes\.examples" takes references/ });
    write(bad, JSON.stringify({ classes: { examples: "references" }, rank: "name" }));
    assert.deepEqual([...readConfig(bad).flags], [
      ["--class", ["examples=references"]],
      ["--rank", ["name"]],
    ]);
    write(bad, "[]");
    assert.throws(() => readConfig(bad), { message: `${bad}: must hold a JSON object` });
    write(bad, '{ "__proto__": 1 }');
    assert.throws(() => readConfig(bad), { message: /unknown key "__proto__"/ });
  });

  it("init writes one with the conventional roots, and will not overwrite it", () => {
    mkdirSync(t("fresh", ".claude", "skills", "a"), { recursive: true });
    write(t("fresh", ".claude", "skills", "a", "SKILL.md"), skill("a"));
    const init = cli(["init"], t("fresh"));
    assert.equal(init.code, 0, init.stderr);
    const written = JSON.parse(readFileSync(t("fresh", "skillset.json"), "utf8"));
    assert.deepEqual(written.roots, [{ scope: "project", path: ".claude/skills" }]);
    // Run from a clone, its $schema is this clone's schema, and it resolves from the config's folder.
    assert.ok(existsSync(resolve(t("fresh"), written.$schema)), written.$schema);
    assert.equal(cli(["init"], t("fresh")).code, 1);
    // The scope's paths are shown as typed: relative, not the absolute path again on every row.
    const table = cli(["list"], t("fresh"));
    assert.match(table.stdout, /project {2}loaded {2}a {5}\.claude\/skills\/a\n/);
    assert.match(table.stdout, /\(roots: project=\.claude\/skills\)/);
    const list = cli(["list", "--json"], t("fresh"));
    assert.deepEqual(JSON.parse(list.stdout).skills.map((s: { name: string }) => s.name), ["a"]);
  });
});

describe("did you mean", () => {
  it("suggests the nearest command and option", () => {
    const r = cli(["verfy"], t("proj"));
    assert.equal(r.code, 2);
    assert.equal(r.stderr, 'skillset: unknown command "verfy" (did you mean "verify"?)\n');
    const flag = cli(["list", "--rot", "x=y"], temp);
    assert.match(flag.stderr, /unknown option "--rot" \(did you mean "--root"\?\)/);
  });

  it("suggests the nearest skill folder and file", () => {
    const r = runInProcess(["activate", t("proj", ".agents", "skills", "pfd")]);
    assert.equal(r.code, 1);
    assert.equal(
      r.stderr,
      `skillset: error: No such folder "pfd" (did you mean ${
        JSON.stringify(t("proj", ".agents", "skills", "pdf"))
      }?)\n`,
    );
    write(t("proj", ".agents", "skills", "docx", "references", "forms.md"), "# Forms\n");
    const read = runInProcess([
      "read",
      t("proj", ".agents", "skills", "docx"),
      "references/form.md",
    ]);
    assert.equal(read.code, 1);
    assert.match(
      read.stderr,
      /No resource "references\/form\.md" in skill "docx" \(did you mean "references\/forms\.md"\?\)\n$/,
    );
  });

  it("suggests only near words, and one it knows", () => {
    fc.assert(
      fc.property(
        fc.string({ maxLength: 20 }),
        fc.array(fc.string({ maxLength: 20 })),
        (w, words) => {
          const near = nearest(w, words);
          assert.ok(near === undefined || words.includes(near));
          if (words.includes(w) && w !== "") assert.equal(nearest(w, words), w);
        },
      ),
    );
    assert.equal(nearest("x".repeat(100_000), ["x"]), undefined); // no quadratic blow-up
    // A shared start and end do not make two different names near.
    assert.equal(nearest("references/none.md", ["references/forms.md"]), undefined);
    assert.equal(nearest("references/form.md", ["references/forms.md"]), "references/forms.md");
  });
});

describe("findings once per run", () => {
  it("prints each distinct line once, counts by code, and hides as the verbosity says", () => {
    let err = "";
    const io = { stderr: (s: string) => void (err += s) };
    const report = new Report(io, "normal");
    report.note("a: warning: x", "warning", "UNKNOWN_FIELD");
    report.note("a: warning: x", "warning", "UNKNOWN_FIELD");
    report.note("b: error: y", "error");
    report.summary();
    assert.equal(
      err,
      "b: error: y\nskillset: 2 findings: 1 error, 1 warning (1 UNKNOWN_FIELD); --verbose shows each\n",
    );
    err = "";
    // --quiet: errors only, and every one of them.
    const quiet = new Report(io, "quiet");
    quiet.note("a: warning: x", "warning");
    quiet.note("b: error: y", "error", "INVALID_NAME");
    quiet.note("c: error: z", "error", "INVALID_NAME");
    quiet.note("d: info: w", "info");
    quiet.summary();
    assert.equal(err, "b: error: y\nc: error: z\n");
  });

  it("to-prompt over a project prints a summary line, --verbose each, --quiet nothing", () => {
    // The project's config names a lockfile, which to-prompt honours: lock the skills as they are now.
    assert.equal(cli(["lock"], t("proj")).code, 0);
    const normal = cli(["to-prompt", ".agents/skills"], t("proj"));
    assert.equal(normal.code, 0, normal.stderr);
    assert.equal(
      normal.stderr,
      "skillset: 1 finding: 1 warning (1 UNKNOWN_FIELD); skillset validate or --verbose shows each\n",
    );
    const quiet = cli(["to-prompt", ".agents/skills", "--quiet", "--rank", "name"], t("proj"));
    assert.equal(quiet.stderr, "");
    assert.ok(quiet.stdout.indexOf("<name>docx") < quiet.stdout.indexOf("<name>pdf"));
    const bad = cli(["to-prompt", ".agents/skills", "--rank", "usage"], t("proj"));
    assert.equal(bad.code, 2);
  });
});

describe("validate's path checks", () => {
  it("skips globs, headings and archive parts; a path to write is information", () => {
    write(
      t("v", "s", "SKILL.md"),
      skill(
        "s",
        [
          "Read `shared/managed-agents-*` and `docs/{a,b}.md`.",
          "### scripts/",
          "Run `python tool.py -o figures/output.png`, or save it to results/out.csv.",
          "Add the image to `word/media/` and `word/_rels/document.xml.rels`.",
          "```xml",
          '<Relationship Target="media/image1.png"/>',
          "```",
          "```python",
          "rxn = '[C:1](=[O:2])[OH:3]>>[C:1](=[O:2])[Cl:3]'",
          "```",
          "Use anthropic/claude-opus-4.5 on path/to/data.csv.",
          "See references/missing.md and --extra-index-url=https://x.org/simple.",
        ].join("\n") + "\n",
      ),
    );
    const found = validatePaths([t("v", "s")]);
    assert.deepEqual(
      found.map((d) => [d.severity, d.code, d.message]),
      [
        [
          "info",
          "WRITTEN_PATH",
          'Path "figures/output.png" is written by the model, not a file of the skill',
        ],
        [
          "info",
          "WRITTEN_PATH",
          'Path "results/out.csv" is written by the model, not a file of the skill',
        ],
        ["warning", "MISSING_REFERENCE", 'Path "references/missing.md" points to a missing file'],
      ],
    );
    const r = cli(["validate", t("v", "s")], temp);
    assert.equal(r.code, 0);
    assert.ok(!r.stdout.includes("info:"), r.stdout);
    assert.match(r.stdout, /0 errors, 1 warning, 2 info/);
    assert.match(
      r.stderr,
      /^skillset validate: 3 findings: 1 warning \(1 MISSING_REFERENCE\), 2 info \(2 WRITTEN_PATH\)/,
    );
    assert.match(cli(["validate", t("v", "s"), "--verbose"], temp).stdout, /info: Path "figures/);
  });
});

describe("one wording", () => {
  it("list and validate word a gated reference the same", () => {
    write(t("w", "s", "SKILL.md"), skill("s", "Open `extra/notes.md` first.\n"));
    write(t("w", "s", "extra", "notes.md"), "# Notes\n");
    const message =
      /The body points to "extra\/notes\.md", in the non-standard folder "extra": [^\n]*/;
    const listed = runInProcess(["list", t("w"), "--verbose"]).stdout.match(message)?.[0];
    const validated = runInProcess(["validate", t("w")]).stdout.match(message)?.[0];
    assert.ok(listed !== undefined && listed === validated, `${listed}\n${validated}`);
  });
});

describe("CLI advice", () => {
  it("a verification failure says to run the command again, not to call refresh()", () => {
    const library = new McpSkillError(
      "VERIFICATION_FAILED",
      '"references/a.md" of skill "s:pdf" failed verification (digest); call refresh("s:pdf") to fetch the entry again',
      "skill://pdf/references/a.md",
    );
    const said = cliAdvice(library) as McpSkillError;
    assert.equal(
      said.message,
      '"references/a.md" of skill "s:pdf" failed verification (digest); run the command again to fetch the entry anew',
    );
    assert.deepEqual([said.code, said.uri], ["VERIFICATION_FAILED", "skill://pdf/references/a.md"]);
    const other = new Error("x");
    assert.equal(cliAdvice(other), other);
  });
});

describe("serve's messages", () => {
  it('names a missing folder instead of ".: no skills found"', () => {
    const r = cli(["serve", t("nonexistent")], temp);
    assert.equal(r.code, 1);
    assert.ok(!r.stderr.includes(".: no skills found"), r.stderr);
    assert.ok(
      r.stderr.includes(`error: root "${t("nonexistent")}" does not exist (or give --allow-empty)`),
      r.stderr,
    );
  });
});
