import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  closeSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  rmSync,
  symlinkSync,
  unlinkSync,
  writeSync,
} from "node:fs";
import { spawnSync } from "node:child_process";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  activateSkill,
  AgentSkillError,
  decodeBase64,
  ExecutionError,
  readResource,
  renderActivation,
} from "../../../mod.ts";
import { type LoadedSkill, loadSkillFolder } from "../../../lib/load.ts";
import { _loadIfSkillMdListed } from "../../../lib/fs/load/skill_folder.ts";
import { write } from "../../_tree.ts";

const PNG = Uint8Array.of(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13);
const BIG = 50 * 1024 * 1024;

/** The byte at position i of the 50 MiB file. */
const bigByte = (i: number): number => (i * 2654435761) >>> 24;

let temp = "";
let skillDir = "";

before(() => {
  temp = mkdtempSync(join(tmpdir(), "skillset-load-"));
  skillDir = join(temp, "pdf");
  write(
    join(skillDir, "SKILL.md"),
    "---\nname: pdf\ndescription: Fill PDF forms\n---\n# PDF\nSee references/forms.md.\n",
  );
  write(join(skillDir, "LICENSE.txt"), "MIT\n");
  write(join(skillDir, "references/forms.md"), "# Forms\nline 2\n");
  write(join(skillDir, "assets/template.txt"), "Dear {name},\n");
  write(join(skillDir, "assets/logo.png"), PNG);
  write(join(skillDir, "scripts/fill.py"), "import sys\nprint('never run')\n");
  write(join(skillDir, "canvas-fonts/a.ttf"), Uint8Array.of(0, 1, 0, 0));
  write(join(temp, "outside/secret.txt"), "top secret\n");
  symlinkSync("../canvas-fonts/a.ttf", join(skillDir, "references/font-link.ttf"));
  symlinkSync("../../outside/secret.txt", join(skillDir, "references/escape.md"));
  symlinkSync("loop-b", join(skillDir, "references/loop-a"));
  symlinkSync("loop-a", join(skillDir, "references/loop-b"));
  symlinkSync("missing.md", join(skillDir, "references/broken.md"));
  symlinkSync("../references", join(skillDir, "assets/linked-folder"));
  // 50 MiB binary, written in chunks
  const fd = openSync(join(skillDir, "assets/big.bin"), "w");
  const chunk = new Uint8Array(1024 * 1024);
  for (let at = 0; at < BIG; at += chunk.length) {
    for (let i = 0; i < chunk.length; i++) chunk[i] = bigByte(at + i);
    writeSync(fd, chunk);
  }
  closeSync(fd);
});

after(() => rmSync(temp, { recursive: true, force: true }));

const closed = {};
const open = { global_safety: false, skill_safety: false };

describe("loadSkillFolder on a real folder", () => {
  it("lists files by class, hides the gated folder and links that leave the root", () => {
    const skill = loadSkillFolder(skillDir);
    assert.equal(skill.name, "pdf");
    assert.equal(skill.instructions, "# PDF\nSee references/forms.md.\n");
    const manifest = activateSkill(skill, closed).resources;
    assert.deepEqual(manifest.root.map((e) => e.path), ["LICENSE.txt"]);
    assert.deepEqual(manifest.references.map((e) => e.path), ["references/forms.md"]);
    assert.deepEqual(manifest.assets, [
      { path: "assets/big.bin", size: BIG, media_type: "application/octet-stream" },
      { path: "assets/logo.png", size: PNG.length, media_type: "image/png" },
      { path: "assets/template.txt", size: 13, media_type: "text/plain" },
    ]);
    assert.deepEqual(manifest.scripts.map((e) => e.path), ["scripts/fill.py"]);
    assert.equal(manifest.nonstandard, undefined);
    const openManifest = activateSkill(skill, open).resources;
    assert.deepEqual(openManifest.nonstandard?.map((e) => e.path), [
      "canvas-fonts/a.ttf",
      "references/font-link.ttf",
    ]);
    const all = Object.values(openManifest).flat().map((e) => e.path);
    assert.ok(!all.includes("references/escape.md"));
    const text = renderActivation(activateSkill(skill, closed));
    assert.ok(text.includes("[asset] assets/logo.png"));
    assert.ok(!text.includes("canvas-fonts") && !text.includes("font-link"));
  });

  it("reports link loops, broken links and linked folders as warnings", () => {
    const { warnings } = loadSkillFolder(skillDir);
    assert.deepEqual(warnings.map((w) => `${w.path}: ${w.message}`).sort(), [
      "assets/linked-folder: a linked folder; not followed",
      "references/broken.md: a broken symbolic link; refused",
      "references/loop-a: a symbolic link loop; refused",
      "references/loop-b: a symbolic link loop; refused",
    ]);
  });

  it("reads a text asset decoded and a binary asset as base64", () => {
    const skill = loadSkillFolder(skillDir);
    const text = readResource(skill, "assets/template.txt");
    assert.deepEqual([text.encoding, text.content, text.class], [
      "utf-8",
      "Dear {name},\n",
      "assets",
    ]);
    const png = readResource(skill, "assets/logo.png");
    assert.equal(png.encoding, "base64");
    assert.deepEqual(decodeBase64(png.content), PNG);
    const script = readResource(skill, "scripts/fill.py");
    assert.equal(script.content, "import sys\nprint('never run')\n");
  });

  it("refuses a non-standard read while either switch is on, and allows it when both are off", () => {
    const skill = loadSkillFolder(skillDir);
    assert.throws(() => readResource(skill, "canvas-fonts/a.ttf", { global_safety: false }), {
      name: "ExecutionError",
      message:
        'Refused to read non-standard resource "canvas-fonts/a.ttf": global safety is false, skill safety is true (both must be false)',
    });
    assert.equal(readResource(skill, "canvas-fonts/a.ttf", open).content, "AAEAAA==");
  });

  it("treats a references/ link into a non-standard folder as non-standard", () => {
    const skill = loadSkillFolder(skillDir);
    assert.throws(() => readResource(skill, "references/font-link.ttf", closed), {
      message:
        'Refused to read non-standard resource "references/font-link.ttf": global safety is true, skill safety is true (both must be false)',
    });
    const page = readResource(skill, "references/font-link.ttf", open);
    assert.deepEqual([page.class, page.content], ["nonstandard", "AAEAAA=="]);
  });

  it("never reads a link out of the root, whatever the switches", () => {
    const skill = loadSkillFolder(skillDir);
    for (const flags of [closed, open]) {
      assert.throws(() => readResource(skill, "references/escape.md", flags), (e: unknown) => {
        assert.ok(e instanceof ExecutionError);
        assert.equal(
          e.message,
          'Refused to read "references/escape.md": it does not lead to a regular file inside the skill folder',
        );
        return true;
      });
    }
  });

  it("pages a 50 MiB binary file without reading it whole", () => {
    const skill = loadSkillFolder(skillDir);
    const offset = 30 * 1024 * 1024 + 1;
    const page = readResource(skill, "assets/big.bin", { offset, limit: 3000 });
    assert.equal(page.range, `bytes ${offset}-${offset + 2999} of ${BIG}`);
    const bytes = decodeBase64(page.content);
    assert.equal(bytes.length, 3000);
    for (let i = 0; i < bytes.length; i++) assert.equal(bytes[i], bigByte(offset + i));
    const last = readResource(skill, "assets/big.bin", { offset: BIG - 2 });
    assert.deepEqual([last.next_offset, decodeBase64(last.content).length], [null, 2]);
  });

  it("accepts a lower-case skill.md and rejects a folder without one", () => {
    const lower = join(temp, "lower");
    write(join(lower, "skill.md"), "---\nname: lower\ndescription: d\n---\nbody\n");
    assert.equal(loadSkillFolder(lower).instructions, "body\n");
    const none = join(temp, "none");
    mkdirSync(none);
    assert.throws(() => loadSkillFolder(none), (e: unknown) => {
      assert.ok(e instanceof AgentSkillError);
      assert.equal(e.message, `Invalid SKILL.md: no SKILL.md in the folder (${none})`);
      return true;
    });
  });

  it("passes over odd names and special files with warnings", () => {
    const dir = join(temp, "odd");
    write(join(dir, "SKILL.md"), "---\nname: odd\ndescription: d\n---\n");
    write(join(dir, "assets", "back\\slash.txt"), "x");
    spawnSync("mkfifo", [join(dir, "assets", "pipe")]);
    const skill = loadSkillFolder(dir);
    assert.deepEqual(skill.warnings.map((w) => `${w.path}: ${w.message}`).sort(), [
      'assets/back\\slash.txt: Invalid resource path "assets/back\\\\slash.txt": it contains a backslash; skipped',
      "assets/pipe: a named pipe, not a regular file; skipped",
    ]);
    assert.deepEqual([...skill.files.keys()], ["SKILL.md"]);
  });

  it("refuses a SKILL.md over 1 MiB", () => {
    const dir = join(temp, "huge");
    write(
      join(dir, "SKILL.md"),
      `---\nname: huge\ndescription: d\n---\n${"x".repeat(1024 * 1024)}`,
    );
    assert.throws(() => loadSkillFolder(dir), {
      name: "AgentSkillError",
      message: `Invalid SKILL.md: SKILL.md is 1048610 bytes; the limit is 1048576 (${
        join(dir, "SKILL.md")
      })`,
    });
  });

  it("opens a listed file without following a link: a file swapped for a link out is refused", () => {
    const dir = join(temp, "swap");
    write(join(dir, "SKILL.md"), "---\nname: swap\ndescription: d\n---\n");
    write(join(dir, "references", "a.md"), "fine\n");
    const skill = loadSkillFolder(dir);
    assert.equal(readResource(skill, "references/a.md").content, "fine\n");
    const fresh = loadSkillFolder(dir); // no cached index for this bundle's file
    unlinkSync(join(dir, "references", "a.md"));
    symlinkSync(join(temp, "outside", "secret.txt"), join(dir, "references", "a.md"));
    assert.throws(() => readResource(fresh, "references/a.md"), {
      name: "ResourceReadError",
      code: "NOT_A_REGULAR_FILE",
      message:
        'Cannot read "references/a.md": it is now a symbolic link, not the file that was listed',
    });
  });

  it("refuses a SKILL.md that is a link out of the folder, and a missing folder", () => {
    const dir = join(temp, "linked-md");
    mkdirSync(dir);
    write(join(temp, "outside", "SKILL.md"), "---\nname: linked-md\ndescription: d\n---\n");
    symlinkSync(join(temp, "outside", "SKILL.md"), join(dir, "SKILL.md"));
    assert.throws(() => loadSkillFolder(dir), {
      message:
        `Invalid SKILL.md: SKILL.md is a link that does not lead to a regular file inside the skill folder (${
          join(dir, "SKILL.md")
        })`,
    });
    assert.throws(() => loadSkillFolder(join(temp, "no-such")), {
      name: "SkillFolderError",
      code: "NO_SUCH_FOLDER",
      message: 'No such folder "no-such"',
    });
  });

  it("loads from one top-level listing what loadSkillFolder loads, and declines what a stat must decide", () => {
    // Arrange: the rich folder (links in, out, loops, a linked folder), and folders to decline.
    const summary = (skill: LoadedSkill) => ({
      name: skill.name,
      instructions: skill.instructions,
      bodyLine: skill.bodyLine,
      skillMdPath: skill.skillMdPath,
      warnings: skill.warnings,
      files: [...skill.files.values()].map((f) => [f.path, f.size, f.real_path, f.outside_root]),
    });
    const decline = join(temp, "decline");
    write(join(decline, "none", "README.md"), "no SKILL.md here");
    mkdirSync(join(decline, "linked"));
    symlinkSync(join(skillDir, "SKILL.md"), join(decline, "linked", "SKILL.md"));
    mkdirSync(join(decline, "pipe"));
    spawnSync("mkfifo", [join(decline, "pipe", "SKILL.md")]);
    // Act
    const listed = _loadIfSkillMdListed(skillDir);
    // Assert
    assert.ok(listed !== null);
    assert.deepEqual(summary(listed), summary(loadSkillFolder(skillDir)));
    for (const name of ["none", "linked", "pipe", "missing"]) {
      assert.equal(_loadIfSkillMdListed(join(decline, name)), null, name);
    }
    assert.equal(_loadIfSkillMdListed(join(skillDir, "SKILL.md")), null);
    assert.throws(() => loadSkillFolder(join(skillDir, "SKILL.md")), {
      name: "SkillFolderError",
      message: 'No such folder "SKILL.md"',
    });
  });
});
