/**
 * docs/trust.md's shell recipe recomputes `skillManifest`'s skill digest
 * over generated skill folders (its blocks also run as written in
 * tests/readme_test.ts).
 *
 * @module
 */
import { after, describe, it } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fc, runs } from "../../_fc.ts";
import { ROOT } from "../../_cli.ts";
import { renderLockfile, skillManifest } from "../../../mod.ts";
import { discoverSkills, loadSkillFolder, lockSkills } from "../../../lib/load.ts";

const DOC = readFileSync(join(ROOT, "docs", "trust.md"), "utf8");

/** The fenced blocks of one language, with the line each starts on. */
function blocks(language: string): { line: number; code: string }[] {
  const out: { line: number; code: string }[] = [];
  const lines = DOC.split("\n");
  for (let i = 0; i < lines.length; i++) {
    if (lines[i]!.trim() !== "```" + language) continue;
    let end = i + 1;
    while (end < lines.length && lines[end]!.trim() !== "```") end++;
    out.push({ line: i + 2, code: lines.slice(i + 1, end).join("\n") });
    i = end;
  }
  return out;
}

const SH = blocks("sh");
const RECIPE = SH.find((b) => b.code.includes("skill_digest() {"))!;
const temps: string[] = [];
after(() => {
  for (const t of temps) rmSync(t, { recursive: true, force: true });
});

function bash(
  script: string,
  cwd: string = ROOT,
): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync("bash", ["-euo", "pipefail", "-c", script], {
    cwd,
    encoding: "utf8",
    timeout: 120_000,
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

const SEGMENT = fc.stringMatching(/^[A-Za-z0-9][A-Za-z0-9 ._é-]{0,6}$/).filter((s) =>
  !s.endsWith(" ")
);

describe("docs/trust.md", () => {
  it("has the recipe", () => {
    assert.ok(RECIPE !== undefined);
  });

  it("shows the lockfile `skillset lock` writes for the worked example", async () => {
    const base = realpathSync(mkdtempSync(join(tmpdir(), "skillset-lock-doc-")));
    temps.push(base);
    const dir = join(base, "skills", "hello");
    mkdirSync(join(dir, "references"), { recursive: true });
    writeFileSync(
      join(dir, "SKILL.md"),
      "---\nname: hello\ndescription: Say hello\n---\nSay hello.\n",
    );
    writeFileSync(join(dir, "references", "greeting.md"), "Hello, world!\n");
    const { lock } = await lockSkills(
      discoverSkills([{ scope: "project", path: join(base, "skills") }]),
      { base },
    );
    const shown = blocks("text").find((b) => b.code.includes('"source": "skills/hello"'));
    assert.equal(`${shown?.code}\n`, renderLockfile(lock));
  });

  it("its shell recipe recomputes skillManifest's skill digest over generated folders", async () => {
    const temp = realpathSync(mkdtempSync(join(tmpdir(), "skillset-recipe-")));
    temps.push(temp);
    let n = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.uniqueArray(
          fc.tuple(
            fc.constantFrom("", "references/", "assets/", "x/y/"),
            SEGMENT,
            fc.uint8Array({ maxLength: 40 }),
          ),
          { maxLength: 6, selector: ([f, s]) => `${f}${s}`.toLowerCase() },
        ).filter((files) =>
          // A file at the top named like a folder in use ("x" beside "x/y/A") cannot be made.
          !files.some(([f, s]) =>
            f === "" && files.some(([g]) => g.split("/")[0] === s.toLowerCase())
          )
        ),
        async (files) => {
          const dir = join(temp, `s${n++}`, "skill");
          mkdirSync(dir, { recursive: true });
          writeFileSync(join(dir, "SKILL.md"), "---\nname: skill\ndescription: S\n---\nBody\n");
          for (const [folder, name, bytes] of files) {
            if (`${folder}${name}` === "SKILL.md") continue;
            mkdirSync(join(dir, folder), { recursive: true });
            writeFileSync(join(dir, folder, name), bytes);
          }
          const manifest = await skillManifest(loadSkillFolder(dir));
          const r = bash(`${RECIPE.code}\nskill_digest ${JSON.stringify(dir)}`);
          assert.equal(r.status, 0, r.stderr);
          assert.equal(`sha256:${r.stdout.trim()}`, manifest.digest);
        },
      ),
      runs(15),
    );
  });
});
