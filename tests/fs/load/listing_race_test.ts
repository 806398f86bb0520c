// @slow: races a child process that swaps files (left out of `npm run test:quick`)
// @every-runtime: O_NOFOLLOW opens and file races go through each runtime's fs
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { activateSkill } from "../../../mod.ts";
import { loadSkillFolder } from "../../../lib/load.ts";
import { exited, firstOutput, startChild } from "../../_spawn.ts";
import { write } from "../../_tree.ts";

let temp = "";

before(() => {
  temp = realpathSync(mkdtempSync(join(tmpdir(), "skillset-listing-race-")));
});
after(() => rmSync(temp, { recursive: true, force: true }));

const OPEN = { global_safety: false, skill_safety: false };

describe("listing a skill folder while references/ is flipped to a link out", () => {
  it(
    "puts no outside name or size in any bundle or manifest",
    { skip: process.platform !== "linux" ? "needs /proc/self/fd (Linux)" : false },
    async () => {
      // Arrange: a skill, an outside folder with a secret's name, a child flipping references/.
      const dir = join(temp, "skill");
      write(join(dir, "SKILL.md"), "---\nname: skill\ndescription: Race\n---\n# Race\n");
      write(join(dir, "references", "guide.md"), "# Guide\n");
      mkdirSync(join(dir, "references", "sub"));
      write(join(dir, "references", "sub", "deep.md"), "# Deep\n");
      write(join(temp, "outside", "id_rsa"), "PRIVATE KEY\n".repeat(200));
      mkdirSync(join(temp, "outside", "sub"));
      write(join(temp, "outside", "sub", "id_ed25519"), "KEY\n");
      const flipper = startChild([
        "flip-folder",
        "4000",
        join(dir, "references"),
        join(temp, "outside"),
      ]);
      await firstOutput(flipper);

      // Act: load and activate again and again while it flips.
      let loads = 0, leaks = 0, listed = 0, unlisted = 0;
      const end = Date.now() + 2500;
      while (Date.now() < end) {
        let skill;
        try {
          skill = loadSkillFolder(dir);
        } catch (e) {
          if ((e as { code?: unknown }).code === undefined) throw e;
          continue; // typed: the folder was caught mid-flip
        }
        loads++;
        const manifest = JSON.stringify(activateSkill(skill, OPEN));
        const names = [...skill.files.keys()].join("\n");
        if (/id_rsa|id_ed25519|2400/.test(names + manifest)) leaks++;
        if (skill.files.has("references/guide.md")) listed++;
        else unlisted++;
      }
      flipper.kill("SIGKILL");
      await exited(flipper);

      // Assert: the race ran (both states seen), and nothing from outside got in.
      console.log(
        `listing race: ${loads} loads, ${listed} listed, ${unlisted} not, ${leaks} leaks`,
      );
      assert.ok(listed > 0 && unlisted > 0, `${listed} listed, ${unlisted} not`);
      assert.equal(leaks, 0);
    },
  );
});
