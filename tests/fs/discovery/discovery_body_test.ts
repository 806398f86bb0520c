// Issue 43: a discovered skill carries its SKILL.md body for search, read
// lazily and bounded, so `createSkillIndex(discovery.skills)` ranks as the
// CLI's `skillset search` does.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, realpathSync, rmSync, unlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runInProcess } from "../../_cli.ts";
import { link, put } from "../../_tree.ts";
import { createSkillIndex, searchSkills } from "../../../mod.ts";
import { discoverSkills } from "../../../lib/load.ts";
import { readRegularText } from "../../../lib/fs/_safe_open.ts";

const md = (name: string, description: string, body: string) =>
  `---\nname: ${name}\ndescription: ${description}\n---\n${body}`;

let root = "";
before(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), "skillset-body-")));
  put(root, "pdf/SKILL.md", md("pdf", "Fill in PDF forms", "# Stamps\nAdd a signature stamp.\n"));
  put(root, "csv/SKILL.md", md("csv", "Join CSV tables", "# Charts\nPlot a column as a chart.\n"));
  put(root, "xlsx/SKILL.md", md("xlsx", "Read spreadsheets and chart them", "# Pivot\nPivot.\n"));
  put(root, "long/SKILL.md", md("long", "Long notes", `early ${"filler ".repeat(5000)} late\n`));
  put(root, "gone/SKILL.md", md("gone", "Fades away", "# Vanishing\nvanishing act\n"));
  put(root, "fifo/SKILL.md", md("fifo", "Turns into a pipe", "# Pipes\npipework\n"));
  put(root, "linked/SKILL.md", md("linked", "Turns into a link", "# Links\nchainmail\n"));
  put(root, "outside.md", md("linked", "Turns into a link", "# Secret\nsecretword\n"));
});
after(() => rmSync(root, { recursive: true, force: true }));

describe("a discovered skill's body", () => {
  it("is read for search, bounded to 32 KiB, and left out of JSON", () => {
    const found = discoverSkills([{ scope: "project", path: root }]);
    const pdf = found.skill("pdf")!;
    assert.equal(pdf.body, "# Stamps\nAdd a signature stamp.\n");
    assert.equal(JSON.stringify(pdf).includes("signature"), false);
    assert.equal(Object.keys(pdf).includes("body"), false);
    const long = found.skill("long")!.body!;
    assert.equal(long.length, 32 * 1024);
    assert.ok(long.startsWith("early "));
  });

  it("ranks alike through the library and the CLI", () => {
    const found = discoverSkills([{ scope: "project", path: root }]);
    const index = createSkillIndex(found.skills);
    for (const query of ["signature stamp", "plot a chart", "pivot", "early", "late"]) {
      const library = searchSkills(index, query).map((r) => [r.name, r.score]);
      const run = runInProcess(["search", query, "--root", `project=${root}`, "--json"]);
      const cli = (JSON.parse(run.stdout) as { results: { name: string; score: number }[] })
        .results.map((r) => [r.name, r.score]);
      assert.deepEqual(cli, library, query);
    }
    assert.deepEqual(searchSkills(index, "signature stamp").map((r) => r.name), ["pdf"]);
  });

  it("is empty, and never blocks, once SKILL.md is gone, a pipe or a link out", () => {
    const found = discoverSkills([{ scope: "project", path: root }]);
    unlinkSync(join(root, "gone", "SKILL.md"));
    unlinkSync(join(root, "fifo", "SKILL.md"));
    execFileSync("mkfifo", [join(root, "fifo", "SKILL.md")]);
    unlinkSync(join(root, "linked", "SKILL.md"));
    link(join(root, "outside.md"), join(root, "linked", "SKILL.md"));
    assert.equal(found.skill("gone")!.body, "");
    assert.equal(found.skill("fifo")!.body, "");
    assert.equal(found.skill("linked")!.body, "");
    const index = createSkillIndex(found.skills);
    assert.deepEqual(searchSkills(index, "secretword", { threshold: false }), []);
    // Restore for the other tests.
    rmSync(join(root, "fifo", "SKILL.md"));
    writeFileSync(join(root, "fifo", "SKILL.md"), md("fifo", "Turns into a pipe", "pipework\n"));
  });

  it("is kept by the winner of a name clash, which discovery copies", () => {
    const clash = realpathSync(mkdtempSync(join(tmpdir(), "skillset-clash-")));
    try {
      put(clash, "a/pdf/SKILL.md", md("pdf", "First", "# One\nfirstbody\n"));
      put(clash, "b/pdf/SKILL.md", md("pdf", "Second", "# Two\nsecondbody\n"));
      const found = discoverSkills([{ scope: "project", path: clash }]);
      assert.equal(found.conflicts.length, 1);
      const winner = found.skills[0]!;
      assert.ok(winner.diagnostics.some((d) => d.code === "NAME_CONFLICT"));
      assert.equal(winner.body, "# One\nfirstbody\n");
      assert.equal(found.shadowed[0]!.body, "# Two\nsecondbody\n");
    } finally {
      rmSync(clash, { recursive: true, force: true });
    }
  });

  it("is one getter for every skill, each reading its own file, copies included", () => {
    // One getter keeps discovered skills alike in shape to the runtime; the reader is found by the skill.
    const found = discoverSkills([{ scope: "project", path: root }]);
    const getters = new Set(
      found.skills.map((s) => Object.getOwnPropertyDescriptor(s, "body")?.get),
    );
    assert.equal(getters.size, 1);
    assert.equal(found.skill("pdf")!.body, "# Stamps\nAdd a signature stamp.\n");
    assert.equal(found.skill("csv")!.body, "# Charts\nPlot a column as a chart.\n");
    // The getter called on anything but a discovered skill reads nothing.
    const get = [...getters][0]!;
    assert.equal(get.call({}), "");
  });

  it("holds only its own file's text when read after a larger one (the read buffer is reused)", () => {
    const dir = realpathSync(mkdtempSync(join(tmpdir(), "skillset-reuse-")));
    try {
      put(dir, "big/SKILL.md", md("big", "Big", `# Big\n${"bigword ".repeat(20_000)}\n`));
      put(dir, "small/SKILL.md", md("small", "Small", "# Small\nsmallword\n"));
      const found = discoverSkills([{ scope: "project", path: dir }]);
      const big = found.skill("big")!.body!;
      assert.equal(big.length, 32 * 1024);
      assert.equal(found.skill("small")!.body, "# Small\nsmallword\n");
      assert.ok(found.skill("big")!.body!.startsWith("# Big\nbigword"));
      assert.equal(found.skill("small")!.body, "# Small\nsmallword\n");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("readRegularText", () => {
  it("reads a regular file whole, and refuses a pipe, a final link and a file over the limit", () => {
    const dir = realpathSync(mkdtempSync(join(tmpdir(), "skillset-text-")));
    try {
      writeFileSync(join(dir, "a.md"), "\uFEFFé\n");
      assert.equal(readRegularText(join(dir, "a.md"), 100), "é\n");
      // Six bytes: a byte-order mark (dropped), "é" in two and a line break.
      assert.equal(readRegularText(join(dir, "a.md"), 6), "é\n");
      assert.equal(readRegularText(join(dir, "a.md"), 5), null);
      execFileSync("mkfifo", [join(dir, "pipe")]);
      assert.throws(() => readRegularText(join(dir, "pipe"), 100), {
        message: "not a regular file",
      });
      link(join(dir, "a.md"), join(dir, "b.md"));
      assert.throws(() => readRegularText(join(dir, "b.md"), 100), { code: "ELOOP" });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
