/**
 * The lifecycle benchmarks' git fixture: git run under a configuration of
 * its own (no user or system config), and a repository of N skills under
 * `skills/skill-<i>`, each a SKILL.md plus the files a bench adds, committed.
 *
 * @module
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import process from "node:process";

const env = {
  ...process.env,
  GIT_CONFIG_NOSYSTEM: "1",
  GIT_CONFIG_GLOBAL: "/dev/null",
  GIT_AUTHOR_NAME: "b",
  GIT_AUTHOR_EMAIL: "b@example.com",
  GIT_COMMITTER_NAME: "b",
  GIT_COMMITTER_EMAIL: "b@example.com",
};

/** Run git in `cwd`; throws on a non-zero exit. */
export function git(cwd: string, ...args: string[]): void {
  const r = spawnSync("git", args, { cwd, env, stdio: ["ignore", "ignore", "inherit"] });
  if (r.status !== 0) throw new Error(`git ${args.join(" ")} exited ${r.status}`);
}

/**
 * A git repository at `repo` of `skills` skills, `skills/skill-<i>/SKILL.md`
 * each, plus what `files` writes into each skill's folder, committed.
 *
 * @returns Its `file://` URL.
 */
export function skillRepository(
  repo: string,
  skills: number,
  files: (dir: string, i: number) => void,
): string {
  mkdirSync(repo);
  git(repo, "init", "--quiet", "--initial-branch=main");
  for (let i = 0; i < skills; i++) {
    const dir = join(repo, "skills", `skill-${i}`);
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      join(dir, "SKILL.md"),
      `---\nname: skill-${i}\ndescription: Skill number ${i}\n---\n# Skill ${i}\n`,
    );
    files(dir, i);
  }
  git(repo, "add", "-A");
  git(repo, "commit", "--quiet", "-m", "skills");
  return `file://${repo}`;
}
