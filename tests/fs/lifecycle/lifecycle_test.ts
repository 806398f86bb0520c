// @slow: makes git repositories and fetches them (left out of `npm run test:quick`)
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  chmodSync,
  existsSync,
  lstatSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { spawnSync } from "node:child_process";
import process from "node:process";
import { SKILL_LIMITS } from "@modelcontextprotocol/client/ext/skills";
import { createLockfile, parseLockfile, renderLockfile } from "../../../mod.ts";
import { readLockfile } from "../../../lib/load.ts";
import { addSkills, removeSkills } from "../../../lib/fs/lifecycle/_lifecycle.ts";
import { outdatedSkills, updateSkills } from "../../../lib/fs/lifecycle/_update.ts";
import { unifiedDiff } from "../../../lib/fs/lifecycle/_skill_diff.ts";
import {
  dropSnapshot,
  fetchSnapshot,
  listRemoteRefs,
  listTree,
  writeBlobs,
} from "../../../lib/fs/lifecycle/_git.ts";
import { SKILL_BYTE_LIMIT, SKILL_FILE_LIMIT } from "../../../lib/fs/lifecycle/_source_tree.ts";
import { SkillSourceError } from "../../../lib/fs/lifecycle/skill_source_error.ts";
import { fc, runs } from "../../_fc.ts";
import { git, NO_GIT, project, Repo, tempFolder } from "../../_git.ts";
import { link, put, write } from "../../_tree.ts";

const D = `sha256:${"0".repeat(64)}`;

/** A repository with two skills under skills/, committed. */
function twoSkills(): Repo {
  const repo = new Repo(join(tempFolder(), "repo"));
  repo.skill("skills/pdf", "pdf").put("skills/pdf/references/a.md", "one\ntwo\nthree\n");
  repo.skill("skills/web", "web");
  repo.commit("first");
  return repo;
}

async function refusedWith(p: Promise<unknown>, code: string): Promise<SkillSourceError> {
  try {
    await p;
  } catch (e) {
    assert.ok(e instanceof SkillSourceError, String(e));
    assert.equal(e.code, code, e.message);
    return e;
  }
  assert.fail(`expected ${code}`);
}

describe("installed_from in the lockfile", () => {
  const entry = {
    name: "pdf",
    scope: "project",
    source: ".agents/skills/pdf",
    digest: D,
    frontmatter_digest: D,
    files: [{ path: "SKILL.md", size: 1, digest: D }],
  };

  it("round-trips: render then parse gives the same lock, version 2", () => {
    fc.assert(
      fc.property(
        fc.string({ minLength: 1 }),
        fc.option(fc.stringMatching(/^[a-z0-9._/-]{1,20}$/), { nil: undefined }),
        fc.option(fc.stringMatching(/^[0-9a-f]{40}$/), { nil: undefined }),
        fc.array(fc.stringMatching(/^[a-z0-9_-]{1,8}$/), { maxLength: 4 }),
        (url, ref, commit, parts) => {
          const from = {
            url,
            ...ref === undefined ? {} : { ref },
            ...commit === undefined ? {} : { commit },
            path: parts.length === 0 ? "." : parts.join("/"),
          };
          const lock = createLockfile([{ ...entry, installed_from: from }]);
          assert.equal(lock.version, 2);
          const text = renderLockfile(lock);
          assert.deepEqual(parseLockfile(text, "l.json"), lock);
          assert.equal(renderLockfile(parseLockfile(text, "l.json")), text);
        },
      ),
      runs(200),
    );
  });

  it("is written only when present: a lock without it is unchanged (version 1)", () => {
    const text = renderLockfile(createLockfile([entry]));
    assert.ok(!text.includes("installed_from"));
    assert.equal(createLockfile([entry]).version, 1);
  });

  it("is read strictly", () => {
    const good = renderLockfile(
      createLockfile([{
        ...entry,
        installed_from: { url: "u", commit: "a".repeat(40), path: "s/p" },
      }]),
    );
    const bad = (from: string, to: string, message: RegExp) =>
      assert.throws(() => parseLockfile(good.replace(from, to), "l.json"), {
        name: "TrustFileError",
        message,
      });
    bad('"version": 2', '"version": 1', /Field "installed_from" needs version 2/);
    bad('"a'.padEnd(41, "a") + '"', '"abc"', /must be 40 or 64 lowercase hexadecimal digits/);
    bad('"s/p"', '"../p"', /must be "\." or a relative path, got "\.\.\/p"/);
    bad('"s/p"', '"/etc"', /must be "\." or a relative path/);
    bad('"path": "s/p"', '"path": "s/p", "x": 1', /Unknown field "x"|"x"/);
    bad('"url": "u", ', "", /"url"/);
    bad('"url": "u"', '"url": ""', /non-empty string/);
    // A folder source's revision: a digest, never beside a ref or a commit.
    const digest = `sha256:${"b".repeat(64)}`;
    const folder = good.replace(`"commit": "${"a".repeat(40)}"`, `"digest": "${digest}"`);
    assert.equal(parseLockfile(folder, "l.json").skills[0]!.installed_from?.digest, digest);
    assert.equal(renderLockfile(parseLockfile(folder, "l.json")), folder);
    const badFolder = (from: string, to: string, message: RegExp) =>
      assert.throws(() => parseLockfile(folder.replace(from, to), "l.json"), {
        name: "TrustFileError",
        message,
      });
    badFolder(digest, "sha256:abc", /Field "digest" .* must be "sha256:" and 64 lowercase/);
    badFolder('"url": "u", ', '"url": "u", "ref": "main", ', /takes no "ref" or "commit"/);
  });
});

describe("the serve limits", () => {
  it("are SEP-2640's SKILL_LIMITS, as serve publishes", () => {
    assert.deepEqual([SKILL_FILE_LIMIT, SKILL_BYTE_LIMIT], [
      SKILL_LIMITS.files,
      SKILL_LIMITS.bytes,
    ]);
  });
});

describe("unifiedDiff", () => {
  it("shows removed then added lines with three lines of context", () => {
    assert.equal(
      unifiedDiff("a.md", "1\n2\n3\n4\n5\n6\n7\n8\n", "1\n2\n3\n4\nfive\n6\n7\n8\n"),
      "--- a/a.md\n+++ b/a.md\n@@ -2,7 +2,7 @@\n 2\n 3\n 4\n-5\n+five\n 6\n 7\n 8\n",
    );
  });

  it("keeps every line of both texts: context and removals give the old, context and additions the new", () => {
    const lines = fc.array(fc.constantFrom("a", "b", "c", "d"), { maxLength: 30 });
    fc.assert(
      fc.property(lines, lines, (a, b) => {
        const before = a.map((l) => `${l}\n`).join("");
        const after = b.map((l) => `${l}\n`).join("");
        // All context: a hunk holds everything when the texts are this short and differ.
        const diff = unifiedDiff("f", before, after)!;
        const body = diff.split("\n").slice(2).filter((l) => l !== "" && !l.startsWith("@@"));
        if (before === after) assert.deepEqual(body, []);
        const removed = body.filter((l) => l.startsWith("-")).length;
        const added = body.filter((l) => l.startsWith("+")).length;
        assert.equal(a.length - removed, b.length - added);
      }),
      runs(300),
    );
  });
});

describe("add", { skip: NO_GIT }, () => {
  it("installs every skill of a repository into the project's .agents/skills, locked with its source", async () => {
    const repo = twoSkills();
    const proj = project();
    const result = await addSkills(repo.dir, { cwd: proj });
    assert.deepEqual(result.installed.map((s) => s.name), ["pdf", "web"]);
    assert.equal(result.commit, repo.head());
    assert.equal(
      readFileSync(join(proj, ".agents/skills/pdf/references/a.md"), "utf8"),
      "one\ntwo\nthree\n",
    );
    const lock = readLockfile(join(proj, "skills.lock.json"));
    assert.deepEqual(lock.roots, [{ scope: "project", path: ".agents/skills" }]);
    assert.deepEqual(lock.skills.map((s) => [s.name, s.source, s.installed_from]), [
      ["pdf", ".agents/skills/pdf", { url: repo.dir, commit: repo.head(), path: "skills/pdf" }],
      ["web", ".agents/skills/web", { url: repo.dir, commit: repo.head(), path: "skills/web" }],
    ]);
    // Nothing staged is left behind.
    assert.deepEqual(readdirSync(join(proj, ".agents")), ["skills"]);
  });

  it("installs into the user's ~/.agents/skills with --scope user (the home given)", async () => {
    const repo = twoSkills();
    const home = project();
    const result = await addSkills(repo.dir, { scope: "user", home, skills: ["web"] });
    assert.deepEqual(result.installed.map((s) => s.folder), [join(home, ".agents/skills/web")]);
    const lock = readLockfile(join(home, ".agents/skills.lock.json"));
    assert.deepEqual(lock.skills.map((s) => [s.scope, s.source]), [["user", "skills/web"]]);
    assert.deepEqual(lock.roots, [{ scope: "user", path: "skills" }]);
  });

  it("takes a branch, a tag or a commit, and records the ref and the commit it resolved to", async () => {
    const repo = twoSkills();
    const first = repo.head();
    repo.git("tag", "v1");
    repo.git("checkout", "--quiet", "-b", "next");
    repo.skill("skills/pdf", "pdf", "# Next\n");
    const next = repo.commit("next");
    repo.git("checkout", "--quiet", "main");
    for (const [ref, commit] of [["v1", first], ["next", next], [first, first]] as const) {
      const proj = project();
      const result = await addSkills(repo.dir, { cwd: proj, ref, skills: ["pdf"] });
      assert.deepEqual(result.installed[0]!.installed_from, {
        url: repo.dir,
        ref,
        commit,
        path: "skills/pdf",
      });
      assert.equal(
        readFileSync(join(proj, ".agents/skills/pdf/SKILL.md"), "utf8").endsWith("# Next\n"),
        ref === "next",
      );
    }
    await refusedWith(addSkills(repo.dir, { cwd: project(), ref: "nope" }), "REF_NOT_FOUND");
  });

  it("finds skills by discovery from the repository's root: a root skill, .agents/skills first", async () => {
    const repo = new Repo(join(tempFolder(), "repo"));
    repo.skill(".", "root-skill").skill(".agents/skills/one", "one").skill("other/one", "one");
    repo.commit();
    const proj = project();
    const result = await addSkills(repo.dir, { cwd: proj, skills: ["one"] });
    assert.deepEqual(result.installed.map((s) => s.installed_from.path), [".agents/skills/one"]);
    // The root skill holds the others: it comes whole.
    const all = await addSkills(repo.dir, { cwd: project() });
    assert.deepEqual(all.installed.map((s) => [s.name, s.installed_from.path]), [[
      "root-skill",
      ".",
    ]]);
  });

  it("refuses a skill name it does not have, and a skill already installed", async () => {
    const repo = twoSkills();
    const proj = project();
    const e = await refusedWith(addSkills(repo.dir, { cwd: proj, skills: ["nope"] }), "NO_SKILL");
    assert.match(e.message, /No skill "nope" in .*; it has "pdf", "web"/);
    await addSkills(repo.dir, { cwd: proj, skills: ["pdf"] });
    const again = await addSkills(repo.dir, { cwd: proj });
    assert.deepEqual(again.installed.map((s) => s.name), ["web"]);
    assert.deepEqual(again.refused.map((r) => r.code), ["ALREADY_INSTALLED"]);
    assert.deepEqual(readLockfile(join(proj, "skills.lock.json")).skills.map((s) => s.name), [
      "pdf",
      "web",
    ]);
  });

  it("installs from a plain folder (no commit), copying without following links", async () => {
    const src = join(tempFolder(), "folder");
    put(src, "pdf/SKILL.md", "---\nname: pdf\ndescription: d\n---\n");
    put(src, "pdf/references/a.md", "a\n");
    link("references/a.md", join(src, "pdf/alias.md"));
    const proj = project();
    const result = await addSkills(src, { cwd: proj });
    assert.deepEqual(result.installed[0]!.installed_from, {
      url: src,
      digest: result.revision,
      path: "pdf",
    });
    assert.match(result.revision, /^sha256:[0-9a-f]{64}$/);
    assert.equal(readlinkSync(join(proj, ".agents/skills/pdf/alias.md")), "references/a.md");
    await refusedWith(addSkills(src, { cwd: project(), ref: "main" }), "REF_NOT_FOUND");
  });

  it("says clearly when git is missing", async () => {
    await refusedWith(
      addSkills(twoSkills().dir, { cwd: project(), git: "/nonexistent/git" }),
      "GIT_MISSING",
    );
  });
});

describe("a hostile source", { skip: NO_GIT }, () => {
  /** A global git config that arms a filter driver and hooks, each touching a marker. */
  function armed(): { home: string; marker: string } {
    const dir = tempFolder();
    const marker = join(dir, "ran");
    const hooks = join(dir, "hooks");
    for (const hook of ["post-checkout", "reference-transaction", "post-merge", "pre-push"]) {
      write(join(hooks, hook), `#!/bin/sh\necho ${hook} >> "${marker}"\n`);
      chmodSync(join(hooks, hook), 0o755);
    }
    const smudge = write(join(dir, "smudge"), `#!/bin/sh\necho smudge >> "${marker}"\ncat\n`);
    chmodSync(smudge, 0o755);
    // Run by a local fetch's upload-pack from the global configuration.
    const pack = write(
      join(dir, "pack"),
      `#!/bin/sh\necho pack-objects-hook >> "${marker}"\nexec "$@"\n`,
    );
    chmodSync(pack, 0o755);
    // The user's own configuration: ~/.gitconfig of a home made for the test.
    const home = join(dir, "home");
    const config = write(join(home, ".gitconfig"), "");
    writeFileSync(
      config,
      `[filter "evil"]\n\tsmudge = ${smudge}\n\tclean = cat\n\trequired = true\n` +
        `[core]\n\thooksPath = ${hooks}\n[uploadpack]\n\tpackObjectsHook = ${pack}\n`,
    );
    return { home, marker };
  }

  it("runs no filter driver, hook, upload-pack hook of the user's configuration or ident expansion (a plain clone, armed alike, runs them)", async () => {
    const repo = new Repo(join(tempFolder(), "repo"));
    repo.skill("skills/pdf", "pdf").put("skills/pdf/id.md", "$Id$\n");
    repo.put(".gitattributes", "* filter=evil ident\n");
    repo.commit();
    const { home, marker } = armed();
    // The fixture is live: an ordinary clone under this configuration runs the filter and a hook.
    const clone = spawnSync("git", [
      "clone",
      "--quiet",
      "--no-local",
      repo.dir,
      join(tempFolder(), "c"),
    ], {
      env: { ...process.env, HOME: home, GIT_CONFIG_GLOBAL: join(home, ".gitconfig") },
      encoding: "utf8",
    });
    assert.equal(clone.status, 0, clone.stderr);
    assert.match(readFileSync(marker, "utf8"), /smudge/);
    assert.match(readFileSync(marker, "utf8"), /post-checkout/);
    assert.match(readFileSync(marker, "utf8"), /pack-objects-hook/);
    writeFileSync(marker, "");
    const saved = [process.env["HOME"], process.env["GIT_CONFIG_GLOBAL"]] as const;
    process.env["HOME"] = home;
    process.env["GIT_CONFIG_GLOBAL"] = join(home, ".gitconfig");
    try {
      const proj = project();
      await addSkills(repo.dir, { cwd: proj });
      assert.equal(readFileSync(marker, "utf8"), "");
      assert.equal(readFileSync(join(proj, ".agents/skills/pdf/id.md"), "utf8"), "$Id$\n");
    } finally {
      for (const [name, value] of [["HOME", saved[0]], ["GIT_CONFIG_GLOBAL", saved[1]]] as const) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
    }
  });

  it("does not fetch submodules: a skill holding one is refused, the others installed", async () => {
    const repo = twoSkills();
    repo.git("update-index", "--add", "--cacheinfo", `160000,${repo.head()},skills/web/sub`);
    repo.git("commit", "--quiet", "-m", "submodule");
    const result = await addSkills(repo.dir, { cwd: project() });
    assert.deepEqual(result.installed.map((s) => s.name), ["pdf"]);
    assert.deepEqual(result.refused.map((r) => [r.path, r.code]), [["skills/web", "SUBMODULE"]]);
  });

  it("refuses a skill holding a link out of it (relative, absolute, or through another link); links inside stay links", async () => {
    const repo = new Repo(join(tempFolder(), "repo"));
    repo.skill("skills/ok", "ok").put("skills/ok/references/a.md", "a\n");
    link("references/a.md", join(repo.dir, "skills/ok/alias.md"));
    repo.skill("skills/up", "up");
    link("../ok/SKILL.md", join(repo.dir, "skills/up/other.md"));
    repo.skill("skills/abs", "abs");
    link("/etc/passwd", join(repo.dir, "skills/abs/passwd"));
    repo.skill("skills/via", "via");
    // Read as text, a/b/up/../../ok stays inside; followed, a/b/up is skills/via and ../.. the root.
    link("../..", join(repo.dir, "skills/via/a/b/up"));
    link("a/b/up/../../ok/SKILL.md", join(repo.dir, "skills/via/sneaky.md"));
    repo.commit();
    const proj = project();
    const result = await addSkills(repo.dir, { cwd: proj });
    assert.deepEqual(result.installed.map((s) => s.name), ["ok"]);
    assert.deepEqual(result.refused.map((r) => [r.path, r.code]), [
      ["skills/abs", "LINK_OUT"],
      ["skills/up", "LINK_OUT"],
      ["skills/via", "LINK_OUT"],
    ]);
    assert.ok(lstatSync(join(proj, ".agents/skills/ok/alias.md")).isSymbolicLink());
    assert.ok(!existsSync(join(proj, ".agents/skills/up")));
  });

  it("refuses a skill over the serve limits: 513 files, or over 16 MiB", async () => {
    const repo = new Repo(join(tempFolder(), "repo"));
    repo.skill("skills/many", "many");
    for (let i = 0; i < SKILL_FILE_LIMIT; i++) {
      repo.put(`skills/many/references/f${i}.md`, `${i}\n`);
    }
    repo.skill("skills/big", "big").put(
      "skills/big/assets/big.bin",
      new Uint8Array(SKILL_BYTE_LIMIT),
    );
    repo.skill("skills/fine", "fine");
    repo.commit();
    const result = await addSkills(repo.dir, { cwd: project() });
    assert.deepEqual(result.installed.map((s) => s.name), ["fine"]);
    assert.deepEqual(result.refused.map((r) => [r.path, r.code]), [
      ["skills/big", "SKILL_TOO_LARGE"],
      ["skills/many", "TOO_MANY_FILES"],
    ]);
  });

  it("refuses a skill holding a name with a control character", async () => {
    const repo = twoSkills();
    repo.put("skills/web/references/a\u001b[31mb.md", "x\n").commit();
    const result = await addSkills(repo.dir, { cwd: project() });
    assert.deepEqual(result.refused.map((r) => [r.path, r.code]), [[
      "skills/web",
      "CONTROL_CHARACTER",
    ]]);
  });

  it("refuses a skill holding a nested .git: in a folder, and in a git tree made by hand", async () => {
    const src = join(tempFolder(), "folder");
    put(src, "pdf/SKILL.md", "---\nname: pdf\ndescription: d\n---\n");
    put(src, "pdf/.git/config", "[core]\n\tfsmonitor = touch /tmp/x\n");
    const folder = await addSkills(src, { cwd: project() });
    assert.deepEqual(folder.refused.map((r) => [r.path, r.code]), [["pdf", "NESTED_GIT"]]);
    // A tree git itself would refuse to build: made with mktree.
    const repo = twoSkills();
    const blob = git(repo.dir, "hash-object", "-w", "--stdin");
    const md = git(repo.dir, "rev-parse", "HEAD:skills/web/SKILL.md");
    const dotgit = spawnSync("git", ["-C", repo.dir, "mktree"], {
      input: `100644 blob ${blob}\tconfig\n`,
      encoding: "utf8",
    }).stdout.trim();
    const skill = spawnSync("git", ["-C", repo.dir, "mktree"], {
      input: `040000 tree ${dotgit}\t.git\n100644 blob ${md}\tSKILL.md\n`,
      encoding: "utf8",
    }).stdout.trim();
    const top = spawnSync("git", ["-C", repo.dir, "mktree"], {
      input: `040000 tree ${skill}\tweb\n`,
      encoding: "utf8",
    }).stdout.trim();
    const root = spawnSync("git", ["-C", repo.dir, "mktree"], {
      input: `040000 tree ${top}\tskills\n`,
      encoding: "utf8",
    }).stdout.trim();
    const commit = git(repo.dir, "commit-tree", root, "-m", "hand-made");
    git(repo.dir, "update-ref", "refs/heads/main", commit);
    try {
      const result = await addSkills(repo.dir, { cwd: project() });
      assert.deepEqual(result.refused.map((r) => [r.path, r.code]), [["skills/web", "NESTED_GIT"]]);
    } catch (e) {
      // git's own object check (fetch.fsckObjects) may refuse the tree first.
      assert.ok(e instanceof SkillSourceError && e.code === "GIT_FAILED", String(e));
      assert.match(e.message, /\.git|fsck/i);
    }
  });

  it("refuses URLs and refs git would take as an option, a remote helper or a refspec", async () => {
    const marker = join(tempFolder(), "pwned");
    for (const url of [`ext::sh -c touch% ${marker}`, "--upload-pack=touch /tmp/x", "fd::3"]) {
      await refusedWith(addSkills(url, { cwd: project() }), "UNSAFE_SOURCE");
    }
    for (const ref of ["--upload-pack=x", "main:refs/heads/x", "a..b"]) {
      await refusedWith(addSkills(twoSkills().dir, { cwd: project(), ref }), "UNSAFE_SOURCE");
    }
    assert.ok(!existsSync(marker));
  });
});

describe("outdated", { skip: NO_GIT }, () => {
  it("reports up to date, stale, modified and stale+modified, and writes nothing", async () => {
    const repo = twoSkills();
    const proj = project();
    await addSkills(repo.dir, { cwd: proj });
    const lockBefore = readFileSync(join(proj, "skills.lock.json"), "utf8");
    const states = async () => (await outdatedSkills({ cwd: proj })).map((s) => [s.name, s.state]);
    assert.deepEqual(await states(), [["pdf", "up_to_date"], ["web", "up_to_date"]]);
    put(proj, ".agents/skills/web/SKILL.md", "---\nname: web\ndescription: mine\n---\n");
    assert.deepEqual(await states(), [["pdf", "up_to_date"], ["web", "modified"]]);
    repo.put("skills/pdf/references/a.md", "one\n").put("skills/web/more.md", "more\n").commit();
    assert.deepEqual(await states(), [["pdf", "stale"], ["web", "stale_modified"]]);
    assert.equal(readFileSync(join(proj, "skills.lock.json"), "utf8"), lockBefore);
  });

  it("sees a force-push by its commit, even to an older tree", async () => {
    const repo = twoSkills();
    const first = repo.head();
    repo.put("skills/pdf/references/b.md", "b\n").commit();
    const proj = project();
    await addSkills(repo.dir, { cwd: proj, ref: "main" });
    repo.git("reset", "--quiet", "--hard", first);
    const [pdf] = await outdatedSkills({ cwd: proj });
    assert.deepEqual([pdf!.state, pdf!.remote_commit], ["stale", first]);
  });

  it("asks each source once: 100 skills from one repository, one git ls-remote (and one fetch when it moved)", async () => {
    const repo = new Repo(join(tempFolder(), "repo"));
    for (let i = 0; i < 100; i++) repo.skill(`skills/s${i}`, `s${i}`);
    repo.commit();
    const proj = project();
    await addSkills(repo.dir, { cwd: proj });
    const log = join(tempFolder(), "log");
    const wrapper = write(
      join(tempFolder(), "git"),
      `#!/bin/sh\necho "$*" >> "${log}"\nexec git "$@"\n`,
    );
    chmodSync(wrapper, 0o755);
    const report = await outdatedSkills({ cwd: proj, git: wrapper });
    assert.equal(report.length, 100);
    const calls = () =>
      readFileSync(log, "utf8").trim().split("\n").map((c) =>
        c.split(" ").find((w) => !w.includes("=") && w !== "-c" && w !== "-C" && !w.startsWith("/"))
      );
    assert.deepEqual(calls(), ["ls-remote"]);
    // One skill changes upstream: still one ls-remote, and one fetch to compare files, not 100.
    writeFileSync(log, "");
    repo.put("skills/s7/new.md", "new\n").commit();
    const moved = await outdatedSkills({ cwd: proj, git: wrapper });
    assert.deepEqual(moved.filter((s) => s.state !== "up_to_date").map((s) => [s.name, s.state]), [[
      "s7",
      "stale",
    ]]);
    assert.deepEqual(calls().filter((c) => c === "ls-remote" || c === "fetch"), [
      "ls-remote",
      "fetch",
    ]);
  });

  it("reports a folder source stale when its skill changed, and an unreachable source as unknown", async () => {
    const src = join(tempFolder(), "folder");
    put(src, "pdf/SKILL.md", "---\nname: pdf\ndescription: d\n---\n");
    const proj = project();
    await addSkills(src, { cwd: proj });
    assert.equal((await outdatedSkills({ cwd: proj }))[0]!.state, "up_to_date");
    put(src, "pdf/SKILL.md", "---\nname: pdf\ndescription: e\n---\n");
    assert.equal((await outdatedSkills({ cwd: proj }))[0]!.state, "stale");
    const repo = twoSkills();
    const proj2 = project();
    await addSkills(repo.dir, { cwd: proj2, skills: ["pdf"] });
    repo.drop(".git");
    const [pdf] = await outdatedSkills({ cwd: proj2 });
    assert.equal(pdf!.state, "unknown");
    assert.equal(pdf!.error?.code, "GIT_FAILED");
  });
});

describe("update", { skip: NO_GIT }, () => {
  it("--preview shows each file with sizes and a unified diff, and writes nothing", async () => {
    const repo = twoSkills();
    const proj = project();
    await addSkills(repo.dir, { cwd: proj });
    const lockBefore = readFileSync(join(proj, "skills.lock.json"), "utf8");
    repo.put("skills/pdf/references/a.md", "one\n2\nthree\n").put(
      "skills/pdf/new.bin",
      new Uint8Array([0, 1, 2]),
    );
    repo.drop("skills/web").skill("skills/web", "web", "# Web, again\n").commit();
    const result = await updateSkills(["pdf"], { cwd: proj, preview: true });
    assert.deepEqual(result.map((s) => [s.name, s.status]), [["pdf", "would_update"]]);
    assert.deepEqual(result[0]!.files, [
      { path: "new.bin", change: "added", size_after: 3 },
      {
        path: "references/a.md",
        change: "changed",
        size_before: 14,
        size_after: 12,
        diff:
          "--- a/references/a.md\n+++ b/references/a.md\n@@ -1,3 +1,3 @@\n one\n-two\n+2\n three\n",
      },
    ]);
    assert.equal(readFileSync(join(proj, "skills.lock.json"), "utf8"), lockBefore);
    assert.equal(
      readFileSync(join(proj, ".agents/skills/pdf/references/a.md"), "utf8"),
      "one\ntwo\nthree\n",
    );
  });

  it("applies the update, records the new commit, and is then up to date", async () => {
    const repo = twoSkills();
    const proj = project();
    await addSkills(repo.dir, { cwd: proj });
    repo.put("skills/pdf/references/a.md", "new\n").drop("skills/pdf/references/b.md").commit();
    const result = await updateSkills([], { cwd: proj });
    assert.deepEqual(result.map((s) => [s.name, s.status]), [["pdf", "updated"], [
      "web",
      "up_to_date",
    ]]);
    assert.equal(readFileSync(join(proj, ".agents/skills/pdf/references/a.md"), "utf8"), "new\n");
    const lock = readLockfile(join(proj, "skills.lock.json"));
    assert.deepEqual(lock.skills.map((s) => s.installed_from?.commit), [repo.head(), repo.head()]);
    assert.deepEqual((await outdatedSkills({ cwd: proj })).map((s) => s.state), [
      "up_to_date",
      "up_to_date",
    ]);
    assert.deepEqual(readdirSync(join(proj, ".agents")), ["skills"]);
  });

  it("refuses to overwrite a local change without --force, and overwrites it with", async () => {
    const repo = twoSkills();
    const proj = project();
    await addSkills(repo.dir, { cwd: proj });
    put(proj, ".agents/skills/pdf/references/mine.md", "mine\n");
    repo.put("skills/pdf/references/a.md", "new\n").commit();
    const refused = await updateSkills(["pdf"], { cwd: proj });
    assert.deepEqual([refused[0]!.status, refused[0]!.error?.code], [
      "refused",
      "LOCALLY_MODIFIED",
    ]);
    assert.ok(existsSync(join(proj, ".agents/skills/pdf/references/mine.md")));
    const forced = await updateSkills(["pdf"], { cwd: proj, force: true });
    assert.equal(forced[0]!.status, "updated");
    assert.ok(!existsSync(join(proj, ".agents/skills/pdf/references/mine.md")));
  });

  it("detects a source that moved after outdated reported it, by its commit", async () => {
    const repo = twoSkills();
    const proj = project();
    await addSkills(repo.dir, { cwd: proj });
    repo.put("skills/pdf/references/a.md", "reviewed\n").commit();
    const [seen] = await outdatedSkills({ cwd: proj });
    repo.put("skills/pdf/references/a.md", "not reviewed\n").commit();
    const result = await updateSkills(["pdf"], { cwd: proj, commit: seen!.remote_commit! });
    assert.deepEqual([result[0]!.status, result[0]!.error?.code], ["refused", "SOURCE_MOVED"]);
    assert.equal(
      readFileSync(join(proj, ".agents/skills/pdf/references/a.md"), "utf8"),
      "one\ntwo\nthree\n",
    );
  });

  it("refuses a name not installed", async () => {
    const repo = twoSkills();
    const proj = project();
    await addSkills(repo.dir, { cwd: proj });
    await refusedWith(updateSkills(["nope"], { cwd: proj }), "NOT_INSTALLED");
  });
});

describe("remove", { skip: NO_GIT }, () => {
  it("removes the folder and the lock entry, and refuses a name not installed", async () => {
    const repo = twoSkills();
    const proj = project();
    await addSkills(repo.dir, { cwd: proj });
    await assert.rejects(removeSkills(["pdf", "nope"], { cwd: proj }), {
      name: "SkillSourceError",
      code: "NOT_INSTALLED",
    });
    assert.ok(existsSync(join(proj, ".agents/skills/pdf")));
    assert.deepEqual(await removeSkills(["pdf"], { cwd: proj }), {
      removed: [join(proj, ".agents/skills/pdf")],
      refused: [],
    });
    assert.ok(!existsSync(join(proj, ".agents/skills/pdf")));
    assert.deepEqual(readLockfile(join(proj, "skills.lock.json")).skills.map((s) => s.name), [
      "web",
    ]);
    assert.deepEqual(readdirSync(join(proj, ".agents")), ["skills"]);
  });
});

describe("git plumbing that fails", { skip: NO_GIT }, () => {
  it("refuses a tree over its entry cap, a blob of another size or missing, and a run past its timeout", async () => {
    const repo = twoSkills();
    const snapshot = await fetchSnapshot(repo.dir, undefined);
    try {
      await refusedWith(listTree(snapshot, {}, 2), "TOO_MANY_FILES");
      const tree = await listTree(snapshot, {}, 100);
      const blob = tree.find((t) => t.path === "skills/web/SKILL.md")!;
      const dir = tempFolder();
      const wrong = await refusedWith(
        writeBlobs(snapshot, [{ oid: blob.oid, size: blob.size! + 1, to: join(dir, "a") }]),
        "GIT_FAILED",
      );
      assert.match(wrong.message, /git cat-file answered ".* blob \d+" for blob/);
      await refusedWith(
        writeBlobs(snapshot, [{ oid: "0".repeat(40), size: 1, to: join(dir, "b") }]),
        "GIT_FAILED",
      );
      await refusedWith(
        writeBlobs(snapshot, [{ oid: blob.oid, size: blob.size!, to: join(dir, "c") }], {
          git: "/nonexistent/git",
        }),
        "GIT_MISSING",
      );
    } finally {
      dropSnapshot(snapshot);
    }
    const slow = await refusedWith(listRemoteRefs(repo.dir, { timeoutMs: 1 }), "GIT_FAILED");
    assert.match(slow.message, /took over 1 ms/);
  });
});

describe("update and outdated at their edges", { skip: NO_GIT }, () => {
  it("updates a skill from a folder source", async () => {
    const src = join(tempFolder(), "folder");
    put(src, "pdf/SKILL.md", "---\nname: pdf\ndescription: d\n---\n");
    const proj = project();
    await addSkills(src, { cwd: proj });
    put(src, "pdf/references/new.md", "new\n");
    const [pdf] = await updateSkills([], { cwd: proj });
    assert.deepEqual([pdf!.status, pdf!.files.map((f) => f.path)], ["updated", [
      "references/new.md",
    ]]);
    assert.equal(readFileSync(join(proj, ".agents/skills/pdf/references/new.md"), "utf8"), "new\n");
  });

  it("refuses to update a skill gone from its source, and reports a deleted branch as unknown", async () => {
    const repo = twoSkills();
    repo.git("checkout", "--quiet", "-b", "topic");
    const proj = project();
    await addSkills(repo.dir, { cwd: proj, ref: "topic" });
    repo.drop("skills/web").commit("web goes");
    const result = await updateSkills([], { cwd: proj });
    assert.deepEqual(result.map((s) => [s.name, s.status, s.error?.code]), [
      ["pdf", "up_to_date", undefined],
      ["web", "refused", "NO_SKILL"],
    ]);
    repo.git("checkout", "--quiet", "main");
    repo.git("branch", "--quiet", "-D", "topic");
    const report = await outdatedSkills({ cwd: proj });
    assert.deepEqual(report.map((s) => [s.state, s.error?.code]), [
      ["unknown", "REF_NOT_FOUND"],
      ["unknown", "REF_NOT_FOUND"],
    ]);
    const failed = await updateSkills(["pdf"], { cwd: proj });
    assert.deepEqual([failed[0]!.status, failed[0]!.error?.code], ["refused", "REF_NOT_FOUND"]);
  });

  it("a skill removed here is modified, and update --force puts it back", async () => {
    const repo = twoSkills();
    const proj = project();
    await addSkills(repo.dir, { cwd: proj });
    rmSync(join(proj, ".agents/skills/web"), { recursive: true });
    const [, web] = await outdatedSkills({ cwd: proj });
    assert.deepEqual([web!.state, web!.missing], ["modified", true]);
    const [, forced] = await updateSkills([], { cwd: proj, force: true });
    assert.equal(forced!.status, "updated");
    assert.ok(existsSync(join(proj, ".agents/skills/web/SKILL.md")));
  });
});
