/**
 * Every directory entry of a locked skill is accounted for (issue 28): a
 * link out, a named pipe, a file whose name holds ESC or is not UTF-8 — each
 * added to a locked skill fails `verify --frozen`; the skill digest still
 * equals the documented `sha256sum` recipe over hostile names; a root that
 * does not exist or holds no skill is an error, and the lockfile keeps its
 * roots. An approval covers the same entries: each added to an approved
 * skill lapses its approval wherever approvals are checked.
 */
import { after, describe, it } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { Buffer } from "node:buffer";
import {
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { escapeName, unescapeName } from "../../../lib/core/trust/entries.ts";
import { parseApprovals, parseLockfile, renderApprovals, renderLockfile } from "../../../mod.ts";
import { loadSkillFolder } from "../../../lib/fs/load/skill_folder.ts";
import { JsonFileApprovalStore } from "../../../lib/fs/trust/trust_files.ts";
import { loadServeLock } from "../../../lib/mcp/_serve_lock.ts";
import { fc, runs } from "../../_fc.ts";
import { put } from "../../_tree.ts";
import { runIn as run, RUNTIME } from "../../_cli.ts";

const temps: string[] = [];
after(() => {
  for (const t of temps) rmSync(t, { recursive: true, force: true });
});

function project(): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), "skillset-entries-")));
  temps.push(dir);
  put(
    dir,
    "skills/tool/SKILL.md",
    "---\nname: tool\ndescription: A tool\n---\nRun scripts/run.py.\n",
  );
  put(dir, "skills/tool/scripts/run.py", "import json\n");
  put(dir, "outside/json.py", "print('outside')\n");
  return dir;
}

const ROOT = ["--root", "project=skills"];
const hasMkfifo = spawnSync("mkfifo", ["--version"]).status === 0;
/** Deno decodes non-UTF-8 names lossily even when asked for bytes. */
const rawNames = RUNTIME !== "deno" && process.platform === "linux";

describe("verify --frozen sees every entry of a locked skill", () => {
  const additions: [string, (skill: string) => void, boolean | string][] = [
    [
      "a link out of the folder",
      (s) => symlinkSync("../../../outside/json.py", join(s, "scripts/json.py")),
      true,
    ],
    [
      "a named pipe",
      (s) => spawnSync("mkfifo", [join(s, "scripts/pipe")]),
      hasMkfifo || "no mkfifo",
    ],
    [
      "a file whose name holds ESC",
      (s) => writeFileSync(join(s, "scripts/\x1b[2Jx.py"), "x"),
      true,
    ],
    [
      "a file whose name is not UTF-8",
      (s) =>
        writeFileSync(
          Buffer.concat([Buffer.from(join(s, "scripts/")), Buffer.from([0xff, 0x2e, 0x70, 0x79])]),
          "x",
        ),
      rawNames || "the runtime cannot name it",
    ],
  ];
  for (const [what, add, can] of additions) {
    it(
      `${what} added after lock fails verify --frozen`,
      { skip: can === true ? false : can },
      async () => {
        const dir = project();
        assert.equal((await run(dir, "lock", ...ROOT)).code, 0);
        assert.equal((await run(dir, "verify", "--frozen")).code, 0);
        add(join(dir, "skills/tool"));
        const verified = await run(dir, "verify", "--frozen");
        assert.equal(verified.code, 1, verified.out);
        assert.match(verified.out, /changed file skills\/tool \(tool\): .* added/);
      },
    );
  }

  it("lock records such entries by kind and escaped name, and says no reader serves them", async () => {
    const dir = project();
    const skill = join(dir, "skills/tool");
    symlinkSync("../../../outside/json.py", join(skill, "scripts/json.py"));
    writeFileSync(join(skill, "scripts/\x1b.py"), "esc");
    const locked = await run(dir, "lock", ...ROOT);
    assert.equal(locked.code, 0, locked.err);
    assert.match(
      locked.err,
      /note: tool: "scripts\/json\.py" \(link\) is locked but no reader serves it/,
    );
    const lock = parseLockfile(readFileSync(join(dir, "skills.lock.json"), "utf8"), "l");
    assert.equal(lock.version, 3); // `lock` records its base (docs/security.md#signed-root)
    assert.deepEqual(lock.skills[0]!.entries!.map((e) => [e.path, e.kind]), [
      ["scripts/\\x1b.py", "file"],
      ["scripts/json.py", "link"],
    ]);
    // Removing one is a difference too; so is changing a link's target.
    rmSync(join(skill, "scripts/json.py"));
    symlinkSync("../../../outside/other.py", join(skill, "scripts/json.py"));
    const verified = await run(dir, "verify");
    assert.equal(verified.code, 1);
    assert.match(verified.out, /"scripts\/json\.py" \(link\) changed/);
  });
});

describe("an approval covers every entry of the folder", () => {
  /** Every place that checks an approval of a folder, each answering whether the skill may be used. */
  const checks: [string, (dir: string) => Promise<{ ok: boolean; said: string }>][] = [
    ["list --approvals", async (dir) => {
      const r = await run(dir, "list", ...ROOT, "--approvals", "a.json");
      return { ok: / approved /.test(r.out), said: r.out };
    }],
    ["to-prompt --approvals", async (dir) => {
      const r = await run(dir, "to-prompt", "skills", "--approvals", "a.json");
      return { ok: /<name>tool<\/name>/.test(r.out), said: r.err };
    }],
    ["activate <folder> --approvals", async (dir) => {
      const r = await run(dir, "activate", "skills/tool", "--approvals", "a.json");
      return { ok: r.code === 0, said: r.err };
    }],
    ["run --approvals (checked before any sandbox)", async (dir) => {
      const r = await run(dir, "run", "skills/tool", "scripts/run.py", "--approvals", "a.json");
      return { ok: !/approv/.test(r.err), said: r.err };
    }],
    ["run --root scope=path NAME --approvals", async (dir) => {
      const r = await run(dir, "run", ...ROOT, "tool", "scripts/run.py", "--approvals", "a.json");
      return { ok: !/approv/.test(r.err), said: r.err };
    }],
    ["search --approvals", async (dir) => {
      const r = await run(dir, "search", "tool", ...ROOT, "--approvals", "a.json");
      return { ok: r.code === 0 && /tool/.test(r.out), said: r.err };
    }],
    ["read <folder> <path> --approvals", async (dir) => {
      const r = await run(dir, "read", "skills/tool", "scripts/run.py", "--approvals", "a.json");
      return { ok: r.code === 0, said: r.err };
    }],
    ["serve --approvals", async (dir) => {
      const warnings: string[] = [];
      const lock = loadServeLock(
        { approvals: new JsonFileApprovalStore(join(dir, "a.json")) },
        (w) => warnings.push(w.message),
      )!;
      const folder = join(dir, "skills/tool");
      const served = await lock.check(folder, loadSkillFolder(folder));
      return { ok: served !== undefined, said: warnings.join("\n") };
    }],
  ];

  for (const [where, check] of checks) {
    it(`${where}: a link added after approval lapses it, naming the link`, async () => {
      const dir = project();
      assert.equal((await run(dir, "approve", "tool", ...ROOT, "--approvals", "a.json")).code, 0);
      assert.equal((await check(dir)).ok, true, "approved as it was");
      symlinkSync("../../../outside/json.py", join(dir, "skills/tool/scripts/json.py"));
      const now = await check(dir);
      assert.equal(now.ok, false, "still approved after a link was added");
      if (where !== "list --approvals") {
        assert.match(now.said, /changed since it was approved: "scripts\/json\.py" \(link\) added/);
      }
    });
  }

  it("a link added inside a folder no reader serves (.git) lapses the approval too", async () => {
    for (const [where, check] of checks) {
      const dir = project();
      mkdirSync(join(dir, "skills/tool/.git/hooks"), { recursive: true });
      assert.equal((await run(dir, "approve", "tool", ...ROOT, "--approvals", "a.json")).code, 0);
      assert.equal((await check(dir)).ok, true, `${where}: approved as it was`);
      symlinkSync("../../../../outside/json.py", join(dir, "skills/tool/.git/hooks/x"));
      assert.equal((await check(dir)).ok, false, `${where}: still approved after a hidden link`);
    }
  });

  it("a folder approved with a link stays approved; retargeting or removing the link lapses it", async () => {
    const dir = project();
    const link = join(dir, "skills/tool/scripts/json.py");
    symlinkSync("../../../outside/json.py", link);
    assert.equal((await run(dir, "approve", "tool", ...ROOT, "--approvals", "a.json")).code, 0);
    const file = parseApprovals(readFileSync(join(dir, "a.json"), "utf8"), "a.json");
    assert.deepEqual(file[0]!.entries?.map((e) => [e.path, e.kind]), [["scripts/json.py", "link"]]);
    const listed = async () => (await run(dir, "list", ...ROOT, "--approvals", "a.json")).out;
    assert.match(await listed(), / approved /);
    rmSync(link);
    symlinkSync("../../../outside/other.py", link);
    assert.match(await listed(), /changed since approval/);
    rmSync(link);
    assert.match(await listed(), /changed since approval/);
  });

  it("an approval file with entries renders and parses back the same; version 1 cannot hold them", () => {
    const d = `sha256:${"1".repeat(64)}`;
    const record = {
      origin: "file",
      path: "skills/x",
      name: "x",
      digest: d,
      frontmatter_digest: d,
      files: [],
      entries: [{ path: "a\\x1b", kind: "fifo" as const }, { path: "b", kind: "link" as const }],
    };
    const text = renderApprovals([record]);
    assert.match(text, /"version": 2/);
    assert.deepEqual(parseApprovals(text, "a"), [record]);
    assert.equal(renderApprovals(parseApprovals(text, "a")), text);
    assert.throws(() => parseApprovals(text.replace('"version": 2', '"version": 1'), "a"), {
      code: "INVALID_FIELD",
      message: /Field "entries" needs version 2/,
    });
    // Without entries the file stays version 1, as older versions of this library wrote it.
    assert.match(renderApprovals([{ ...record, entries: [] }]), /"version": 1/);
  });
});

describe("the sha256sum recipe recomputes the skill digest over hostile names", () => {
  it("names with ESC, a line feed, a carriage return, a backslash and (where the runtime can) non-UTF-8 bytes", async (t) => {
    if (spawnSync("sha256sum", ["--version"]).status !== 0 || process.platform !== "linux") {
      t.skip("no GNU sha256sum / find -printf here");
      return;
    }
    const dir = project();
    const skill = join(dir, "skills/tool");
    for (
      const name of ["e\x1bsc.txt", "new\nline.txt", "car\rret.txt", "back\\slash.txt", "plain.txt"]
    ) {
      writeFileSync(join(skill, "references", name).replace("references", "scripts"), name);
    }
    if (rawNames) {
      writeFileSync(
        Buffer.concat([Buffer.from(join(skill, "scripts/")), Buffer.from([0xc3, 0x28])]),
        "raw",
      );
    }
    assert.equal((await run(dir, "lock", ...ROOT)).code, 0);
    const lock = parseLockfile(readFileSync(join(dir, "skills.lock.json"), "utf8"), "l");
    const recipe = spawnSync("bash", [
      "-c",
      `cd "$1" && find . -type f -printf '%P\\0' | LC_ALL=C sort -z | xargs -0 sha256sum -- | sha256sum | cut -d' ' -f1`,
      "_",
      skill,
    ], { encoding: "utf8" });
    assert.equal(`sha256:${recipe.stdout.trim()}`, lock.skills[0]!.digest);
  });
});

describe("escaped names", () => {
  it("escapeName is reversible and holds no control character", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 24 }), (bytes) => {
        const text = escapeName(bytes);
        assert.deepEqual([...unescapeName(text)], [...bytes]);
        // deno-lint-ignore no-control-regex
        assert.doesNotMatch(text, /[\u0000-\u001f\u007f-\u009f]/);
      }),
      runs(300),
    );
  });

  it("a lockfile with entries renders and parses back the same", () => {
    const d = `sha256:${"1".repeat(64)}`;
    const text = renderLockfile(parseLockfile(
      JSON.stringify({
        version: 2,
        roots: [{ scope: "project", path: "skills" }],
        skills: [{
          name: "x",
          scope: "project",
          source: "skills/x",
          digest: d,
          frontmatter_digest: d,
          files: [],
          entries: [{ path: "a\\x1b", kind: "fifo" }, {
            path: "b",
            kind: "file",
            size: 1,
            digest: d,
          }],
        }],
      }),
      "l",
    ));
    assert.equal(renderLockfile(parseLockfile(text, "l")), text);
    assert.throws(() => parseLockfile(text.replace('"version": 2', '"version": 1'), "l"), {
      code: "INVALID_FIELD",
    });
  });
});

describe("no silent empties", () => {
  it("lock with a root that does not exist is an error naming it, and writes nothing", async () => {
    const dir = project();
    const r = await run(dir, "lock", "--root", "p=/nonexistent");
    assert.equal(r.code, 1);
    assert.equal(
      r.err,
      'skillset: error: root "p=/nonexistent" does not exist (or give --allow-empty)\n',
    );
    assert.throws(() => readFileSync(join(dir, "skills.lock.json")));
  });

  it("lock and verify with a root that holds no skill fail unless --allow-empty", async () => {
    const dir = project();
    mkdirSync(join(dir, "empty"));
    assert.equal((await run(dir, "lock", "--root", "p=empty")).code, 1);
    assert.equal((await run(dir, "lock", "--root", "p=empty", "--allow-empty")).code, 0);
    const v = await run(dir, "verify", "--frozen");
    assert.equal(v.code, 1);
    assert.match(v.err, /root "p=.*empty" holds no skill/);
    assert.equal((await run(dir, "verify", "--frozen", "--allow-empty")).code, 0);
  });

  it("verify without --root uses the lockfile's roots; other roots are named as a mismatch", async () => {
    const dir = project();
    put(dir, "other/x/SKILL.md", "---\nname: x\ndescription: X\n---\n");
    assert.equal((await run(dir, "lock", ...ROOT)).code, 0);
    const lock = parseLockfile(readFileSync(join(dir, "skills.lock.json"), "utf8"), "l");
    assert.deepEqual(lock.roots, [{ scope: "project", path: "skills" }]);
    const plain = await run(dir, "verify", "--frozen");
    assert.equal(plain.code, 0, plain.out + plain.err);
    const other = await run(dir, "verify", "--root", "project=other");
    assert.equal(other.code, 1);
    assert.equal(
      other.err,
      `skillset: error: the roots differ from the lockfile's: given project=${
        join(dir, "other")
      }; locked project=${join(dir, "skills")}\n`,
    );
  });
});
