// @slow: runs the CLI in child processes (left out of `npm run test:quick`)
// @every-runtime: hostile folders are read through each runtime's fs
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { appendFileSync, mkdtempSync, realpathSync, rmSync, symlinkSync } from "node:fs";
import { spawnSync } from "node:child_process";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { loadCatalog, MAX_CATALOG_FILE_BYTES, validatePaths } from "../../../lib/load.ts";
import { _setCatalogAfterOpen } from "../../../lib/fs/load/catalog.ts";
import { runChild } from "../../_spawn.ts";
import { write } from "../../_tree.ts";

let temp = "";

before(() => {
  temp = realpathSync(mkdtempSync(join(tmpdir(), "skillset-catalog-attack-")));
});
after(() => rmSync(temp, { recursive: true, force: true }));

const CATALOG = "name: local/a\ndescription: A\n";

describe("catalog files are opened once, never waited on, read up to the limit + 1 byte", () => {
  it("refuses a named pipe at once, for resolve, graph and validate", {
    skip: process.platform === "win32" ? "no named pipes" : false,
  }, () => {
    const pipe = join(temp, "pipe.yaml");
    assert.equal(spawnSync("mkfifo", [pipe]).status, 0);
    const started = Date.now();
    // The commands run in a child, so a regression that waits on the pipe fails by the timeout.
    for (const args of [["resolve", pipe, "local/a"], ["graph", pipe], ["validate", pipe]]) {
      const r = runChild(["cli", ...args], 20_000);
      assert.equal(r.code, 1, `${args[0]}: ${r.stdout}${r.stderr}`);
      assert.ok(`${r.stdout}${r.stderr}`.includes("it is not a regular file"), args[0]);
    }
    assert.deepEqual(validatePaths([pipe]).map((d) => d.message), [
      "Invalid skill: it is not a regular file",
    ]);
    // Only then in this process (a wait here would hang the suite).
    assert.throws(() => loadCatalog(pipe), {
      name: "SkillDefinitionError",
      message: `Invalid skill: it is not a regular file (${pipe})`,
    });
    assert.ok(Date.now() - started < 60_000);
  });

  it("refuses a link to /dev/zero without reading it", {
    skip: process.platform !== "linux" ? "needs /dev/zero" : false,
  }, () => {
    const zero = join(temp, "zero.yaml");
    symlinkSync("/dev/zero", zero);
    const before = process.memoryUsage().rss;
    assert.throws(() => loadCatalog(zero), {
      name: "SkillDefinitionError",
      message: `Invalid skill: it is not a regular file (${zero})`,
    });
    assert.ok(process.memoryUsage().rss - before < 64 * 1024 * 1024);
  });

  it("stops at the limit + 1 byte when the file grows after it was opened", () => {
    const file = join(temp, "grows.yaml");
    write(file, CATALOG);
    _setCatalogAfterOpen((path) => {
      if (path === file) appendFileSync(file, "#".repeat(MAX_CATALOG_FILE_BYTES + 10));
    });
    try {
      assert.throws(() => loadCatalog(file), {
        name: "SkillDefinitionError",
        message:
          `Invalid skill: the file grew past the limit of ${MAX_CATALOG_FILE_BYTES} bytes while it was read (${file})`,
      });
    } finally {
      _setCatalogAfterOpen(null);
    }
  });

  it("does not follow a link listed in a catalog folder, but follows one that is named", () => {
    const dir = join(temp, "folder");
    write(join(dir, "a.yaml"), CATALOG);
    write(join(temp, "elsewhere.yaml"), "name: local/b\ndescription: B\n");
    symlinkSync(join(temp, "elsewhere.yaml"), join(dir, "b.yaml"));
    assert.deepEqual([...loadCatalog(dir).skills.keys()], ["local/a"]);
    assert.deepEqual([...loadCatalog(join(dir, "b.yaml")).skills.keys()], ["local/b"]);
  });
});
