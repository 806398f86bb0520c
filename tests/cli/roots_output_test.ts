/**
 * No silent empties and quiet when asked (issue 41): a root that does not
 * exist or holds no skill is an error for every command that takes roots
 * (`--allow-empty` where emptiness is meant), and `list` keeps the output
 * discipline — errors always, warnings with `--verbose`, a count otherwise,
 * paths relative to the working folder. In-process: runs unchanged under
 * Node, Deno and Bun.
 */
import { after, describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runIn } from "../_cli.ts";
import { put } from "../_tree.ts";

const temps: string[] = [];
after(() => temps.forEach((t) => rmSync(t, { recursive: true, force: true })));

/** skills/ with pdf (clean), odd (a warning: unknown field) and bad (an error: no description); empty/. */
function project(): string {
  const root = mkdtempSync(join(tmpdir(), "skillset-roots-"));
  temps.push(root);
  put(root, "skills/pdf/SKILL.md", "---\nname: pdf\ndescription: Fill PDF forms.\n---\n# pdf\n");
  put(
    root,
    "skills/odd/SKILL.md",
    "---\nname: odd\ndescription: Odd one.\ncolour: red\n---\n# odd\n",
  );
  put(root, "skills/bad/SKILL.md", "---\nname: bad\n---\n# bad\n");
  mkdirSync(join(root, "empty"));
  return root;
}

describe("a root that does not exist or holds no skill", () => {
  it("is an error for list, search, to-prompt, approve and run; --allow-empty lets it be", async () => {
    const root = project();
    const missing = 'skillset: error: root "local=skils" does not exist (or give --allow-empty)\n';
    const empty = 'skillset: error: root "empty" holds no skill (or give --allow-empty)\n';
    for (
      const [args, err] of [
        [["list", "--root", "local=skils"], missing],
        [["list", "empty"], empty],
        [["search", "pdf", "--root", "local=skils"], missing],
        [["approve", "pdf", "--root", "local=skils"], missing],
        [["run", "--root", "local=skils", "pdf", "scripts/x.sh"], missing],
        [["to-prompt", "skills", "empty"], empty],
      ] as const
    ) {
      const r = await runIn(root, ...args);
      assert.deepEqual([args.join(" "), r.code, r.err], [args.join(" "), 1, err]);
      assert.equal(r.out, "");
    }
    assert.equal((await runIn(root, "list", "--root", "local=skils", "--allow-empty")).code, 0);
    const allowed = await runIn(root, "to-prompt", "skills", "empty", "--allow-empty");
    assert.equal(allowed.code, 1); // bad/ is skipped: exit 1, but the others are listed
    assert.match(allowed.out, /<name>pdf<\/name>/);
  });

  it("search with no skill at all says so instead of blaming the query", async () => {
    const root = project();
    const r = await runIn(root, "search", "pdf", "--root", "local=empty", "--allow-empty");
    assert.deepEqual([r.code, r.err], [
      1,
      "skillset: no skills under the roots given (empty), so nothing can match\n",
    ]);
  });
});

describe("list's output discipline", () => {
  it("prints errors always, warnings with --verbose, a count otherwise, nothing more with --quiet", async () => {
    const root = project();
    const error = /^ {2}skills\/bad\/SKILL\.md:2:1: error: .*description/m;
    const warning = /colour/;
    const normal = await runIn(root, "list", "skills");
    assert.match(normal.out, error);
    assert.doesNotMatch(normal.out, warning);
    assert.equal(
      normal.err,
      "skillset list: 2 findings: 1 error (1 SKILL_SKIPPED), 1 warning (1 UNKNOWN_FIELD); --verbose lists each\n",
    );
    const verbose = await runIn(root, "list", "skills", "--verbose");
    assert.match(verbose.out, error);
    assert.match(verbose.out, warning);
    const quiet = await runIn(root, "list", "skills", "--quiet");
    assert.match(quiet.out, error);
    assert.doesNotMatch(quiet.out, warning);
    assert.equal(quiet.err, "");
  });

  it("names scopes and folders relative to the working folder, even when given absolute", async () => {
    const root = project();
    const r = await runIn(root, "list", join(root, "skills"));
    const row = r.out.split("\n").find((l) => l.includes(" pdf "))!;
    assert.match(row, /^skills\s+loaded\s+pdf\s+skills\/pdf$/);
    assert.ok(!r.out.includes(root), r.out);
  });
});
