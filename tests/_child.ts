/**
 * The risky half of the attack tests, run as a child process under the
 * runtime running the tests (see {@linkcode runChild}), so that a regression
 * that blocks (a named pipe opened for reading waits for a writer) fails the
 * test by its timeout instead of hanging the suite.
 *
 * Modes:
 * - `activate <dir>`: load and activate; prints `{ ok }` or `{ error }`.
 * - `fifo-read <dir> <pipe> <path>`: load, replace the file `<pipe>` by a
 *   named pipe, call the skill tool on `<path>`; prints the tool's result.
 * - `flip <ms> <target> <a> <b>`: for `<ms>` milliseconds, atomically replace
 *   `<target>` by a symbolic link to `<a>`, then to `<b>`, again and again;
 *   `<a>` or `<b>` may be `file:<text>` for a regular file holding `<text>`.
 *   Prints `{ ready: true }` when it starts flipping and `{ flips }` at the end.
 * - `flip-folder <ms> <folder> <outside>`: for `<ms>` milliseconds, replace
 *   the folder `<folder>` by a symbolic link to the folder `<outside>` and
 *   back, again and again, holding the real folder ~3 ms each time. Prints
 *   `{ ready: true }`, then `{ flips }`.
 * - `read <dir> <path>`: load and read one page; prints `{ ok }` (the page)
 *   or `{ error }`.
 * - `swap-property <temp>`: check the swap property (`tests/_swap_property.ts`);
 *   prints `{ ok: true }`, or fails with fast-check's report.
 * - `cli <args>...`: run the `skillset` CLI in-process (no colour); its
 *   output as it is, its exit code as the child's.
 * - `write-lock <path> <tag> <times>`: write a large lockfile whose skills
 *   are named after `<tag>` to `<path>`, `<times>` times, the way
 *   `skillset lock` writes (temporary file, then rename); prints `{ done }`.
 * - `check <module> <export> <json args>`: call the export of `tests/<module>`
 *   with the arguments (see `runLarge` in `tests/_large.ts`); prints
 *   `{ ok: true }` when it returns.
 *
 * @module
 */
import { renameSync, symlinkSync, unlinkSync, writeFileSync } from "node:fs";
import { spawnSync } from "node:child_process";
import process from "node:process";
import {
  activateSkill,
  createLockfile,
  handleSkillTool,
  readResource,
  renderActivation,
} from "../mod.ts";
import { writeLockfile } from "../lib/fs/trust/trust_files.ts";
import { loadSkillFolder } from "../lib/load.ts";
// From the CLI's module, not lib/cli.ts, which runs the CLI when it is the main module (as in a bundle).
import { main } from "../lib/cli/main.ts";
import { checkSwapProperty } from "./_swap_property.ts";

function errorOf(e: unknown): { name: string; code: unknown; message: string } {
  const error = e as Error & { code?: unknown };
  return { name: error.name, code: error.code, message: error.message };
}

function print(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value)}\n`);
}

function place(target: string, what: string, tmp: string): void {
  if (what.startsWith("file:")) writeFileSync(tmp, what.slice(5));
  else symlinkSync(what, tmp);
  renameSync(tmp, target);
}

const [mode = "", ...args] = process.argv.slice(2);
switch (mode) {
  case "activate": {
    try {
      print({ ok: renderActivation(activateSkill(loadSkillFolder(args[0]!))) });
    } catch (e) {
      print({ error: errorOf(e) });
    }
    break;
  }
  case "fifo-read": {
    const [dir = "", pipe = "", path = ""] = args;
    const skill = loadSkillFolder(dir);
    const full = `${dir}/${pipe}`;
    unlinkSync(full);
    spawnSync("mkfifo", [full]);
    print(handleSkillTool({ skill: skill.name, resource: path }, { skills: [skill] }));
    break;
  }
  case "flip": {
    const [ms = "0", target = "", a = "", b = ""] = args;
    print({ ready: true });
    const end = Date.now() + Number(ms);
    let flips = 0;
    while (Date.now() < end) {
      place(target, a, `${target}.flip-a`);
      place(target, b, `${target}.flip-b`);
      flips += 2;
    }
    print({ flips });
    break;
  }
  case "flip-folder": {
    const [ms = "0", folder = "", outside = ""] = args;
    print({ ready: true });
    const end = Date.now() + Number(ms);
    let flips = 0;
    while (Date.now() < end) {
      renameSync(folder, `${folder}.real`);
      symlinkSync(outside, folder);
      unlinkSync(folder);
      renameSync(`${folder}.real`, folder);
      flips += 2;
      // Hold the real folder a moment, so a load can also see it whole (both states must occur).
      for (const hold = Date.now() + 3; Date.now() < hold;);
    }
    print({ flips });
    break;
  }
  case "read": {
    try {
      print({ ok: readResource(loadSkillFolder(args[0]!), args[1]!) });
    } catch (e) {
      print({ error: errorOf(e) });
    }
    break;
  }
  case "swap-property": {
    checkSwapProperty(args[0]!);
    print({ ok: true });
    break;
  }
  case "write-lock": {
    const [path = "", tag = "", times = "1"] = args;
    const digest = `sha256:${"0".repeat(64)}`;
    const files = Array.from(
      { length: 2000 },
      (_, i) => ({ path: `references/${tag}-${i}.md`, size: i, digest }),
    );
    const lock = createLockfile([{
      name: tag,
      scope: "p",
      source: tag,
      digest,
      frontmatter_digest: digest,
      files,
    }]);
    for (let i = 0; i < Number(times); i++) writeLockfile(path, lock);
    print({ done: Number(times) });
    break;
  }
  case "cli": {
    process.exitCode = main(args, {
      stdout: (text) => void process.stdout.write(text),
      stderr: (text) => void process.stderr.write(text),
      color: false,
    });
    break;
  }
  case "check": {
    const [module = "", name = "", json = "[]"] = args;
    if (!/^_[a-z_]+\.ts$/.test(module)) throw new Error(`Not a tests/ helper: "${module}"`);
    const checks = await import(new URL(`./${module}`, import.meta.url).href);
    if (typeof checks[name] !== "function") throw new Error(`No export "${name}" in ${module}`);
    await checks[name](...JSON.parse(json));
    print({ ok: true });
    break;
  }
  default:
    throw new Error(`Unknown mode "${mode}"`);
}
