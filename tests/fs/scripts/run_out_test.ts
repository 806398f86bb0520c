/**
 * `out`: what a script wrote in its fresh working folder copied back to the
 * host — folders and regular files only, never through a link, at most
 * `fileBytes` in all.
 */
// @slow: runs scripts in the bubblewrap sandbox (left out of `npm run test:quick`)
// @every-runtime: copying a run's files back goes through each runtime's fs
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  existsSync,
  lstatSync,
  readdirSync,
  readFileSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { loadSkillFolder } from "../../../lib/load.ts";
import { type RunScriptOptions, runSkillScript } from "../../../lib/fs/scripts/run_script.ts";
import { sandboxMissing, skillFolder, tempFolders } from "../../_run.ts";

const temp = tempFolders("skillset-run-out-", 0o755);

async function runIn(script: string, options: RunScriptOptions) {
  const dir = skillFolder(temp(), { "scripts/w.sh": script }, "writer", "Writes files");
  return await runSkillScript(loadSkillFolder(dir), "scripts/w.sh", [], options);
}

const NO_BWRAP = await sandboxMissing(temp());

describe("runSkillScript: out", { skip: NO_BWRAP }, () => {
  it("copies back the folders and files the script wrote under /work", async () => {
    const out = join(temp(), "out");
    const run = await runIn("mkdir -p /work/a/b\necho one > /work/a/b/one.txt\necho two > two\n", {
      out,
    });
    assert.equal(run.exit_code, 0, run.stderr);
    assert.deepEqual(run.out, { dir: out, files: 2, bytes: 8, left_out: 0 });
    assert.equal(readFileSync(join(out, "a/b/one.txt"), "utf8"), "one\n");
    assert.equal(readFileSync(join(out, "two"), "utf8"), "two\n");
  });

  it("never follows a link the script left (to a host file) and leaves out pipes", async () => {
    const out = join(temp(), "out");
    const run = await runIn(
      "ln -s /etc/passwd /work/passwd\nln -s / /work/root\nmkfifo /work/pipe\necho ok > /work/ok\n",
      { out },
    );
    assert.equal(run.exit_code, 0, run.stderr);
    assert.deepEqual(run.out, { dir: out, files: 1, bytes: 3, left_out: 3 });
    assert.deepEqual(readdirSync(out), ["ok"]);
  });

  it("copies at most fileBytes in all", async () => {
    const out = join(temp(), "out");
    const run = await runIn(
      "for f in a b c; do head -c 40000 /dev/zero > /work/$f; done\n",
      { out, fileBytes: 100_000 },
    );
    assert.equal(run.exit_code, 0, run.stderr);
    assert.deepEqual(run.out, { dir: out, files: 2, bytes: 80_000, left_out: 1 });
    assert.equal(existsSync(join(out, "c")), false);
  });

  it("replaces a file of the same name, but never writes through a link already there", async () => {
    const out = join(temp(), "out");
    const first = await runIn("echo first > /work/f\n", { out });
    assert.equal(first.exit_code, 0, first.stderr);
    const target = join(temp(), "precious");
    writeFileSync(target, "precious\n");
    symlinkSync(target, join(out, "g"));
    const second = await runIn("echo second > /work/f\necho evil > /work/g\n", { out });
    assert.deepEqual(second.out, { dir: out, files: 1, bytes: 7, left_out: 1 });
    assert.equal(readFileSync(join(out, "f"), "utf8"), "second\n");
    assert.equal(lstatSync(join(out, "f")).isFile(), true);
    assert.equal(readFileSync(target, "utf8"), "precious\n");
  });

  it("is refused with cwd (a host folder is already where the files are)", async () => {
    await assert.rejects(
      runIn("true\n", { out: join(temp(), "out"), cwd: temp() }),
      {
        name: "RangeError",
        message: "out copies back a fresh working folder: it cannot go with cwd",
      },
    );
  });
});
