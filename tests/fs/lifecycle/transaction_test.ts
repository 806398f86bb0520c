/**
 * A change to the install roots moves only what skillset planned to move
 * (docs/security.md#own-files): a folder, file or link that appears at a
 * skill's folder or at an agent target after the command looked there —
 * another process writing skills while `add` or `update` runs — is never
 * renamed aside and deleted with the staging area; the change fails and is
 * undone instead. Folder sources, in-process (no git): the appearance is
 * made by the file-system seam at the first rename of the commit.
 *
 * @module
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  existsSync,
  lstatSync,
  mkdirSync,
  readFileSync,
  readlinkSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { addSkills } from "../../../lib/fs/lifecycle/_lifecycle.ts";
import { updateSkills } from "../../../lib/fs/lifecycle/_update.ts";
import { type LifecycleFs, nodeLifecycleFs } from "../../../lib/fs/lifecycle/_transaction.ts";
import { put } from "../../_tree.ts";
import { tempFolder } from "../../_git.ts";

const temp = () => tempFolder("skillset-transaction-");

const skillMd = (name: string, body = "Use it.\n") =>
  `---\nname: ${name}\ndescription: The ${name} skill\n---\n${body}`;

/** A folder source with pdf, and an empty project beside it. */
function fixture(): { source: string; proj: string } {
  const top = temp();
  const source = join(top, "source");
  put(source, "pdf/SKILL.md", skillMd("pdf"));
  const proj = join(top, "proj");
  mkdirSync(proj);
  return { source, proj };
}

/** The file system, with someone else's folder made at `at` just before the commit's first rename. */
function appearing(at: string): LifecycleFs {
  let done = false;
  return {
    rename(from, to) {
      if (!done) {
        done = true;
        mkdirSync(at, { recursive: true });
        writeFileSync(join(at, "mine.md"), "the user's own\n");
      }
      renameSync(from, to);
    },
    writeFile: nodeLifecycleFs.writeFile,
  };
}

describe("a folder that appears while a change is made", () => {
  for (
    const [what, where] of [
      ["the skill's folder", ".agents/skills/pdf"],
      ["an agent target", ".cursor/skills/pdf"],
    ] as const
  ) {
    it(`add leaves one that appears at ${what} as it is, and changes nothing`, async () => {
      const { source, proj } = fixture();
      const at = join(proj, ...where.split("/"));
      await assert.rejects(
        addSkills(source, { cwd: proj, agents: ["claude-code", "cursor"], fs: appearing(at) }),
        {
          name: "SkillSourceError",
          code: "APPLY_FAILED",
          message: new RegExp(`${JSON.stringify(at)} appeared meanwhile`),
        },
      );
      assert.equal(readFileSync(join(at, "mine.md"), "utf8"), "the user's own\n");
      assert.equal(existsSync(join(proj, "skills.lock.json")), false);
      assert.equal(existsSync(join(proj, ".claude", "skills", "pdf")), false);
    });
  }

  it("update --force leaves one that appears at a missing copy target as it is", async () => {
    const { source, proj } = fixture();
    await addSkills(source, { cwd: proj, agents: ["cursor"], copy: true });
    const target = join(proj, ".cursor", "skills", "pdf");
    rmSync(target, { recursive: true });
    put(source, "pdf/SKILL.md", skillMd("pdf", "Use it twice.\n"));
    const lock = readFileSync(join(proj, "skills.lock.json"), "utf8");
    await assert.rejects(
      updateSkills([], { cwd: proj, force: true, fs: appearing(target) }),
      { name: "SkillSourceError", code: "APPLY_FAILED" },
    );
    assert.equal(readFileSync(join(target, "mine.md"), "utf8"), "the user's own\n");
    assert.equal(readFileSync(join(proj, "skills.lock.json"), "utf8"), lock);
    assert.ok(lstatSync(join(proj, ".agents", "skills", "pdf")).isDirectory());
  });
});

describe("the lockfile a change writes (docs/security.md#own-files)", () => {
  it("a lockfile that is a link is refused and left as it was, with its target and the skills", async () => {
    const { source, proj } = fixture();
    // The project's lockfile, a link to another one (the user's own, say).
    const other = join(proj, "..", "other");
    await addSkills(source, { cwd: other });
    const target = join(other, "skills.lock.json");
    const text = readFileSync(target, "utf8");
    symlinkSync(target, join(proj, "skills.lock.json"));
    await assert.rejects(addSkills(source, { cwd: proj }), {
      name: "TrustFileError",
      code: "FOREIGN_FILE",
    });
    assert.equal(readlinkSync(join(proj, "skills.lock.json")), target);
    assert.equal(readFileSync(target, "utf8"), text);
    assert.equal(existsSync(join(proj, ".agents", "skills", "pdf")), false);
  });

  it("a lockfile that appears while a change is made is left as it is", async () => {
    const { source, proj } = fixture();
    const lockfile = join(proj, "skills.lock.json");
    const fs: LifecycleFs = {
      rename: (from, to) => renameSync(from, to),
      writeFile(path, text) {
        nodeLifecycleFs.writeFile(path, text);
        if (!existsSync(lockfile)) writeFileSync(lockfile, "someone else's\n");
      },
    };
    await assert.rejects(addSkills(source, { cwd: proj, fs }), {
      name: "SkillSourceError",
      code: "APPLY_FAILED",
    });
    assert.equal(readFileSync(lockfile, "utf8"), "someone else's\n");
    assert.equal(existsSync(join(proj, ".agents", "skills", "pdf")), false);
  });
});
