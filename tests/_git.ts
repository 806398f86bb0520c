/**
 * Real git repositories made in the tests: commits, tags, branches,
 * force-pushes, submodule entries and hand-made trees, with git run under a
 * configuration of its own (no user or system config), and a probe for the
 * git program (a test needing it skips with the reason).
 *
 * @module
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { after } from "node:test";
import { write } from "./_tree.ts";

/** Why git tests skip here, or false when git runs. */
export const NO_GIT: string | false = (() => {
  const r = spawnSync("git", ["--version"], { encoding: "utf8" });
  return r.status === 0 ? false : "git is not installed here";
})();

const ENV = {
  ...process.env,
  GIT_CONFIG_NOSYSTEM: "1",
  GIT_CONFIG_GLOBAL: "/dev/null",
  GIT_AUTHOR_NAME: "t",
  GIT_AUTHOR_EMAIL: "t@example.com",
  GIT_COMMITTER_NAME: "t",
  GIT_COMMITTER_EMAIL: "t@example.com",
};

/**
 * Run git in `cwd`, failing the test on a non-zero exit.
 *
 * @returns Its stdout, trimmed.
 */
export function git(cwd: string, ...args: string[]): string {
  const r = spawnSync("git", args, { cwd, encoding: "utf8", env: ENV, input: "" });
  if (r.status !== 0) throw new Error(`git ${args.join(" ")} failed: ${r.stderr}`);
  return r.stdout.trim();
}

/** A fresh folder under the system's temp folder, removed after the file's tests. */
export function tempFolder(prefix = "skillset-life-"): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** A repository being built: write files, commit, tag, branch. */
export class Repo {
  readonly dir: string;

  constructor(dir: string) {
    this.dir = dir;
    mkdirSync(dir, { recursive: true });
    git(dir, "init", "--quiet", "--initial-branch=main");
  }

  /** Write a file (its folders made). */
  put(path: string, content: string | Uint8Array): this {
    write(join(this.dir, path), content);
    return this;
  }

  /** A skill folder's SKILL.md. */
  skill(folder: string, name: string, body = `# ${name}\n`): this {
    return this.put(
      `${folder}/SKILL.md`,
      `---\nname: ${name}\ndescription: The ${name} skill\n---\n${body}`,
    );
  }

  /** Remove a path from the work tree. */
  drop(path: string): this {
    rmSync(join(this.dir, path), { recursive: true, force: true });
    return this;
  }

  /** Commit everything; returns the commit. */
  commit(message = "change"): string {
    git(this.dir, "add", "-A");
    git(this.dir, "commit", "--quiet", "--allow-empty", "-m", message);
    return this.head();
  }

  head(): string {
    return git(this.dir, "rev-parse", "HEAD");
  }

  git(...args: string[]): string {
    return git(this.dir, ...args);
  }
}

/** An empty project folder, `proj` under `top` (a fresh temp folder by default). */
export function project(top: string = tempFolder()): string {
  const dir = join(top, "proj");
  mkdirSync(dir);
  return dir;
}

/**
 * A repository with the skills pdf and web under `skills/`, committed, and an
 * empty project beside it, both in one fresh temp folder `top`.
 */
export function pdfAndWeb(): { repo: Repo; proj: string; top: string } {
  const top = tempFolder();
  const repo = new Repo(join(top, "repo"));
  repo.skill("skills/pdf", "pdf").skill("skills/web", "web");
  repo.commit();
  return { repo, proj: project(top), top };
}
