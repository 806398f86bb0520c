/**
 * `skillset run` in everyday use: a skill folder's path in a project made by
 * `skillset init`, `--out`, a `--cwd` the sandbox cannot write, and the
 * messages of a refused run.
 */
// @slow: runs scripts in the sandbox through the CLI as a subprocess (left out of `npm run test:quick`)
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { cli, runIn } from "../../_cli.ts";
import { put } from "../../_tree.ts";
import { sandboxMissing, skillFolder, tempFolders } from "../../_run.ts";

const temp = tempFolders("skillset-run-everyday-", 0o755);
const NO_BWRAP = await sandboxMissing(temp());

describe("skillset run, every day", () => {
  it("runs a skill folder's path in a project made by skillset init", { skip: NO_BWRAP }, () => {
    const project = temp();
    put(
      project,
      ".agents/skills/hello/SKILL.md",
      "---\nname: hello\ndescription: Says hello\n---\nRun it.\n",
    );
    put(project, ".agents/skills/hello/scripts/hi.sh", 'echo "hi $1"\n');
    const init = cli(["init"], project);
    assert.equal(init.code, 0, init.stderr);
    const byPath = cli(["run", ".agents/skills/hello", "scripts/hi.sh", "--", "there"], project);
    assert.equal(byPath.code, 0, byPath.stderr);
    assert.equal(byPath.stdout, "hi there\n");
    const byName = cli(["run", "hello", "scripts/hi.sh"], project);
    assert.equal(byName.code, 0, byName.stderr);
    assert.equal(byName.stdout, "hi \n");
  });

  it("--out copies back what the script wrote in /work, and says so", { skip: NO_BWRAP }, () => {
    const dir = skillFolder(
      temp(),
      {
        "scripts/w.sh": "mkdir -p /work/report\necho done > /work/report/result.txt\n",
      },
      "writer",
      "Writes a report",
    );
    const out = join(temp(), "out");
    const result = cli(["run", dir, "scripts/w.sh", "--out", out]);
    assert.equal(result.code, 0, result.stderr);
    assert.equal(readFileSync(join(out, "report/result.txt"), "utf8"), "done\n");
    assert.match(result.stderr, new RegExp(`1 files \\(5 bytes\\) copied to ${out}`));
  });

  it("refuses up front a --cwd the sandbox's user cannot write, saying how to let it", {
    skip: NO_BWRAP || (process.getuid?.() === 0 ? false : "only root changes user"),
  }, () => {
    const dir = skillFolder(temp(), { "scripts/w.sh": "touch /work/x\n" }, "writer", "Writes");
    const work = mkdtempSync(join(tmpdir(), "skillset-closed-"));
    try {
      const result = cli(["run", dir, "scripts/w.sh", "--cwd", work]);
      assert.equal(result.code, 1);
      assert.match(
        result.stderr,
        new RegExp(
          `Cannot run in "${work}": the sandbox runs as a user of its own \\(group 65534\\) and it ` +
            `is not writable by group 65534 nor by all; let group 65534 in \\(chgrp 65534 "${work}" ` +
            `&& chmod g\\+rwx "${work}"\\), or run without cwd and copy its files back with out`,
        ),
      );
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  });

  it("says why Deno's permissions cannot run a shell script", () => {
    const dir = skillFolder(temp(), { "scripts/a.sh": "echo a\n" }, "shell", "A shell script");
    const result = cli(["run", dir, "scripts/a.sh", "--sandbox", "deno"]);
    assert.equal(result.code, 1);
    assert.match(
      result.stderr,
      /No sandbox to run "scripts\/a\.sh": Deno's permissions sandbox only JavaScript and TypeScript, and this script needs bash \(use the bubblewrap sandbox/,
    );
  });

  it("refuses an unknown --allow-unbounded limit", () => {
    const dir = skillFolder(temp(), { "scripts/a.sh": "echo a\n" }, "shell", "A shell script");
    const result = cli(["run", dir, "scripts/a.sh", "--allow-unbounded", "disk"]);
    assert.equal(result.code, 2);
    assert.match(
      result.stderr,
      /--allow-unbounded takes memory, processes, cpu, file-size, got "disk"/,
    );
  });

  it(
    "runs a skill --profile keeps and one with paths --paths does not match; the config's run keys, tightening ones before approval (docs/security.md#config-keys)",
    {
      skip: NO_BWRAP,
    },
    async () => {
      const project = temp();
      put(project, ".git/HEAD", "ref: refs/heads/main\n");
      put(
        project,
        "skills/hello/SKILL.md",
        '---\nname: hello\ndescription: Says hello\npaths: ["**/*.tsx"]\n---\nRun it.\n',
      );
      put(project, "skills/hello/scripts/hi.sh", 'echo "hi"\n');
      put(
        project,
        "skillset.json",
        JSON.stringify({
          profiles: { greet: { include: ["hello"] } },
          run: { timeout_ms: 4_000, processes: 8, out: "out" },
        }),
      );
      const state = process.env.SKILLSET_STATE_DIR;
      process.env.SKILLSET_STATE_DIR = join(project, "..", "state");
      try {
        const argv = ["run", "skills/hello", "scripts/hi.sh", "--profile", "greet", "--json"];
        const before = await runIn(project, ...argv, "--paths", "README.md");
        assert.equal(before.code, 0, before.err);
        const run = JSON.parse(before.out) as {
          stdout: string;
          limits: { timeout_ms: number; processes: number };
          out: unknown;
        };
        assert.equal(run.stdout, "hi\n");
        assert.deepEqual([run.limits.timeout_ms, run.limits.processes], [4_000, 8]);
        assert.equal(run.out, null);
        assert.match(before.err, /so "run\.out" is ignored/);
        assert.equal((await runIn(project, "config", "approve")).code, 0);
        const after = await runIn(project, ...argv);
        assert.equal(after.code, 0, after.err);
        assert.notEqual((JSON.parse(after.out) as { out: unknown }).out, null);
      } finally {
        if (state === undefined) delete process.env.SKILLSET_STATE_DIR;
        else process.env.SKILLSET_STATE_DIR = state;
      }
    },
  );
});
