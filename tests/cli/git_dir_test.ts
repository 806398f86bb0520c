/**
 * The repository root a signed lockfile's base is resolved from
 * (docs/security.md#signed-root) is a folder whose `.git` git itself would
 * take: a `.git` a project plants (an empty folder, a `HEAD` alone, a
 * `gitdir:` file naming nothing or a folder that is not a git directory) does
 * not move it, and whatever is planted, it is the working folder or one above
 * it. The git directories are built by hand here; signed_root_test.ts checks
 * the same rule against real `git init` and `git worktree add`.
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative, sep } from "node:path";
import { fc, runs } from "../_fc.ts";
import { write } from "../_tree.ts";
import { repositoryRoot } from "../../lib/cli/_config.ts";
import { isGitTop } from "../../lib/cli/_git_dir.ts";

let temp = "";
const t = (...parts: string[]) => join(temp, ...parts);

/** A git directory as `git init` lays it out: `HEAD`, `objects/`, `refs/`. */
function gitDir(path: string, head = "ref: refs/heads/main\n"): void {
  write(join(path, "HEAD"), head);
  mkdirSync(join(path, "objects"), { recursive: true });
  mkdirSync(join(path, "refs", "heads"), { recursive: true });
}

before(() => {
  temp = realpathSync(mkdtempSync(join(tmpdir(), "skillset-git-dir-")));
});
after(() => rmSync(temp, { recursive: true, force: true }));

describe("isGitTop takes a .git only as git would", () => {
  it("a git directory, a detached HEAD, a linked worktree's gitdir file and a submodule's", () => {
    gitDir(t("repo", ".git"));
    assert.equal(isGitTop(t("repo")), true);
    gitDir(t("detached", ".git"), `${"a".repeat(40)}\n`);
    assert.equal(isGitTop(t("detached")), true);
    // A linked worktree: its gitdir holds HEAD and commondir; objects and refs are the main one's.
    write(t("repo", ".git", "worktrees", "w", "HEAD"), "ref: refs/heads/w\n");
    write(t("repo", ".git", "worktrees", "w", "commondir"), "../..\n");
    write(t("repo", ".git", "worktrees", "w", "gitdir"), `${t("w", ".git")}\n`);
    write(t("w", ".git"), `gitdir: ${t("repo", ".git", "worktrees", "w")}\n`);
    assert.equal(isGitTop(t("w")), true);
    // A submodule: a relative gitdir into the superproject's modules.
    gitDir(t("repo", ".git", "modules", "sub"));
    write(t("repo", ".git", "modules", "sub", "config"), "[core]\n\tworktree = ../../../sub\n");
    write(t("repo", "sub", ".git"), "gitdir: ../.git/modules/sub\n");
    assert.equal(isGitTop(t("repo", "sub")), true);
  });

  it("not an empty .git, a HEAD alone, a bad HEAD, or a gitdir file naming nothing or no git directory", () => {
    mkdirSync(t("empty", ".git"), { recursive: true });
    write(t("head-only", ".git", "HEAD"), "ref: refs/heads/main\n");
    gitDir(t("bad-head", ".git"), "not a ref\n");
    write(t("nowhere", ".git"), "gitdir: /elsewhere/does/not/exist\n");
    mkdirSync(t("plain"), { recursive: true });
    write(t("to-plain", ".git"), `gitdir: ${t("plain")}\n`);
    write(t("not-a-pointer", ".git"), "[core]\n\tworktree = /\n");
    // A git directory that does not name the folder back: the enclosing repository's own.
    write(t("repo", "enclosed", ".git"), "gitdir: ../.git\n");
    write(t("repo", "stray", ".git"), `gitdir: ${t("repo", ".git", "worktrees", "w")}\n`);
    for (
      const dir of [
        "empty",
        "head-only",
        "bad-head",
        "nowhere",
        "to-plain",
        "not-a-pointer",
        "repo/enclosed",
        "repo/stray",
      ]
    ) {
      assert.equal(isGitTop(t(dir)), false, dir);
    }
  });
});

describe("repositoryRoot", () => {
  it("a fake .git planted in a sub-folder of a repository does not move the root", () => {
    const repo = t("planted");
    gitDir(join(repo, ".git"));
    const fakes: Record<string, (dir: string) => void> = {
      "an empty .git folder": (dir) => mkdirSync(join(dir, ".git"), { recursive: true }),
      "a .git folder with a HEAD alone": (dir) =>
        write(join(dir, ".git", "HEAD"), "ref: refs/heads/main\n"),
      "a .git file naming a folder elsewhere": (dir) =>
        write(join(dir, ".git"), "gitdir: /elsewhere\n"),
      "a .git file naming the repository's own git directory": (dir) =>
        write(join(dir, ".git"), `gitdir: ${join(repo, ".git")}\n`),
      "a .git file naming a folder that is not a git directory": (dir) => {
        mkdirSync(join(dir, "decoy"), { recursive: true });
        write(join(dir, ".git"), "gitdir: decoy\n");
      },
    };
    for (const [what, plant] of Object.entries(fakes)) {
      const sub = join(repo, what.replaceAll(" ", "-"));
      mkdirSync(sub, { recursive: true });
      plant(sub);
      assert.equal(repositoryRoot(sub), repo, what);
    }
  });

  it("a real git directory sets the root at the folder holding it, whatever its core.worktree says", () => {
    const repo = t("worktree-config");
    gitDir(join(repo, ".git"));
    write(join(repo, ".git", "config"), `[core]\n\tworktree = ${temp}\n`);
    mkdirSync(join(repo, "a", "b"), { recursive: true });
    assert.equal(repositoryRoot(join(repo, "a", "b")), repo);
  });

  it("is the working folder or one above it, whatever .git files and folders are planted", () => {
    const kinds = ["empty", "head", "real", "nowhere", "to-temp", "worktree"] as const;
    let n = 0;
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom("a", "b", "c"), { minLength: 1, maxLength: 4 }),
        fc.array(fc.tuple(fc.nat(4), fc.constantFrom(...kinds)), { maxLength: 4 }),
        (segments, plants) => {
          const base = t("any", String(n++));
          const cwd = join(base, ...segments);
          mkdirSync(cwd, { recursive: true });
          const along = [base, ...segments.map((_, i) => join(base, ...segments.slice(0, i + 1)))];
          for (const [at, kind] of plants) {
            const dir = along[Math.min(at, along.length - 1)]!;
            const dotGit = join(dir, ".git");
            try {
              if (kind === "empty") mkdirSync(dotGit);
              else if (kind === "head") write(join(dotGit, "HEAD"), "ref: refs/heads/main\n");
              else if (kind === "real") gitDir(dotGit);
              else if (kind === "nowhere") write(dotGit, "gitdir: /nowhere\n");
              else if (kind === "to-temp") write(dotGit, `gitdir: ${temp}\n`);
              else {
                gitDir(dotGit);
                write(join(dotGit, "config"), `[core]\n\tworktree = ${dirname(temp)}\n`);
              }
            } catch {
              // A .git already planted there: keep the first.
            }
          }
          const root = repositoryRoot(cwd);
          const up = relative(root, cwd);
          assert.ok(up === "" || !up.startsWith(`..${sep}`) && up !== "..", `${root} for ${cwd}`);
          // The root is a real repository's top when one is at or above the working folder.
          const real = along.filter((dir) => isGitTop(dir)).at(-1);
          if (real !== undefined) assert.equal(root, real);
        },
      ),
      runs(50),
    );
  });
});
