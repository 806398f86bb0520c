// @slow: runs the CLI as another user (left out of `npm run test:quick`)
// @every-runtime: unreadable files and folders surface through each runtime's fs errors
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { chmodSync, mkdtempSync, realpathSync, rmSync } from "node:fs";
import { spawnSync } from "node:child_process";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { ROOT } from "../../_cli.ts";
import { runChild, unreadableBy } from "../../_spawn.ts";
import { write } from "../../_tree.ts";

let temp = "";

before(() => {
  temp = realpathSync(mkdtempSync(join(tmpdir(), "skillset-permission-")));
  chmodSync(temp, 0o755); // the child may run as nobody: let it reach the folder
  write(join(temp, "locked", "pdf", "SKILL.md"), "---\nname: pdf\ndescription: PDF\n---\n# PDF\n");
});
after(() => {
  chmodSync(join(temp, "locked"), 0o755);
  rmSync(temp, { recursive: true, force: true });
});

/** Output lines without the fast-check seed the child's shared helpers print. */
function text(r: { stdout: string; stderr: string }): string {
  return `${r.stdout}${r.stderr}`.split("\n").filter((l) => !l.startsWith("fast-check seed"))
    .join("\n");
}

describe("PERMISSION_DENIED on every runtime", () => {
  it(
    "an unreadable root (as an unprivileged user) is a permission error in list, to-prompt, validate and activate",
    {
      // The child runs as nobody when the tests run as root: that user must be able to start the
      // runtime and reach the temporary folder (runChild stages the child where it can read it).
      skip: process.platform === "win32"
        ? "no POSIX modes"
        : (process.getuid?.() === 0 ? unreadableBy(65534, 65534, [tmpdir()]) : null) ?? false,
    },
    () => {
      const as = process.getuid?.() === 0 ? { uid: 65534, gid: 65534 } : {};
      const locked = join(temp, "locked");
      chmodSync(locked, 0o000);
      try {
        const list = runChild(["cli", "list", locked, "--json"], 60_000, as);
        assert.equal(list.code, 1, text(list));
        const json = JSON.parse(list.stdout.slice(list.stdout.indexOf("{")));
        assert.deepEqual(
          json.diagnostics.map((d: { code: string; path: string; severity: string }) => [
            d.code,
            d.path,
            d.severity,
          ]),
          [["PERMISSION_DENIED", locked, "error"]],
        );
        const toPrompt = runChild(["cli", "to-prompt", locked], 60_000, as);
        assert.equal(toPrompt.code, 1);
        assert.ok(
          text(toPrompt).includes(
            `${locked}: error: Permission denied: folder "${locked}" cannot be listed; skipped`,
          ),
          text(toPrompt),
        );
        const activate = runChild(["cli", "activate", join(locked, "pdf")], 60_000, as);
        assert.equal(activate.code, 1);
        assert.ok(
          text(activate).includes('Permission denied: folder "pdf" cannot be read'),
          text(activate),
        );
      } finally {
        chmodSync(locked, 0o755);
      }
    },
  );

  it("Deno without --allow-read for the root reports a permission error, not an empty folder", {
    skip: process.platform === "win32" ? "Deno binary path" : false,
  }, () => {
    const deno = join(ROOT, "node_modules", ".bin", "deno");
    const run = (args: string[]) =>
      spawnSync(deno, [
        "run",
        "--allow-env",
        "--allow-sys",
        `--allow-read=${ROOT}`,
        `--config=${join(ROOT, "deno.json")}`,
        join(ROOT, "lib", "cli.ts"),
        ...args,
      ], { encoding: "utf8", timeout: 120_000, env: { ...process.env, NO_COLOR: "1" } });
    const root = join(temp, "locked");
    const list = run(["list", root]);
    assert.equal(list.status, 1, list.stderr);
    assert.ok(
      list.stdout.includes(
        `${root}: error: Permission denied: "${root}" cannot be read; scope "${root}" has nothing from there`,
      ),
      list.stdout,
    );
    const toPrompt = run(["to-prompt", root]);
    assert.equal(toPrompt.status, 1);
    assert.ok(toPrompt.stderr.includes("Permission denied"), toPrompt.stderr);
    const validate = run(["validate", root]);
    assert.equal(validate.status, 1);
    assert.ok(
      validate.stdout.includes(`${root}: error: Permission denied: it cannot be read`),
      validate.stdout,
    );
    const activate = run(["activate", join(root, "pdf")]);
    assert.equal(activate.status, 1);
    assert.ok(
      activate.stderr.includes('Permission denied: folder "pdf" cannot be read'),
      activate.stderr,
    );
  });
});
