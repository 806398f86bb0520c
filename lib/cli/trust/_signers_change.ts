/**
 * Whether an `allowed_signers` file is part of the change under check
 * (`docs/security.md#signers-outside-the-change`): a signers file the change
 * itself edits could add the change's own key, so the signature would vouch
 * for itself. A file tracked by git is in the change when it differs between
 * `HEAD~1` (the base of a merge commit, the previous commit otherwise) and
 * `HEAD`, or has uncommitted changes; when there is no `HEAD~1` to compare
 * with (a root commit, a shallow clone), whether it changed cannot be told,
 * and that is refused too. A file outside any repository, or not tracked
 * (a CI variable written to a temporary file), is not in the change.
 *
 * Folder `lib/cli/trust/` — the trust commands: lock, verify, approve, sign.
 *
 * @module
 */
import { spawnSync } from "node:child_process";
import { basename, dirname, resolve } from "node:path";

/** git run in a checkout that may be hostile: no hooks, no fsmonitor, no diff drivers or attributes. */
const SAFE = [
  "-c",
  "core.hooksPath=/dev/null",
  "-c",
  "core.fsmonitor=false",
  "-c",
  "core.attributesFile=/dev/null",
  "-c",
  "diff.external=",
];

function git(
  cwd: string,
  args: readonly string[],
): { status: number | null; stdout: string; missing: boolean } {
  const r = spawnSync("git", [...SAFE, ...args], {
    cwd,
    encoding: "utf8",
    timeout: 60_000,
    stdio: ["ignore", "pipe", "pipe"],
  });
  return { status: r.status, stdout: r.stdout ?? "", missing: r.error !== undefined };
}

/**
 * Why a signers file counts as changed by the commit under check, if it does.
 *
 * @param file The signers file.
 * @returns The reason to refuse it, or `undefined` when it is not part of the change.
 */
export function signersChange(file: string): string | undefined {
  const path = resolve(file);
  const dir = dirname(path), name = basename(path);
  // Two git runs in the usual case: where it is, and whether it differs from HEAD~1.
  const where = git(dir, [
    "rev-parse",
    "--is-inside-work-tree",
    "--verify",
    "--quiet",
    "HEAD~1^{commit}",
  ]);
  if (where.missing || where.stdout.split("\n")[0] !== "true") return undefined;
  if (where.status !== 0) {
    const tracked = git(dir, ["ls-files", "--error-unmatch", "--", name]);
    if (tracked.status !== 0) return undefined;
    return "there is no parent commit to compare it with (a root commit, or a shallow clone: fetch two commits)";
  }
  // HEAD~1 against the working tree: the commit under check and uncommitted changes at once.
  const diff = git(dir, [
    "diff",
    "--quiet",
    "--no-ext-diff",
    "--no-textconv",
    "HEAD~1",
    "--",
    name,
  ]);
  if (diff.status === 0) return undefined;
  return diff.status === 1
    ? "it differs from HEAD~1 (the commit under check, or changes not committed, change it)"
    : "git cannot compare it with HEAD~1";
}
