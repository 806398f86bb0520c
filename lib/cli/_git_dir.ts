/**
 * Whether a folder is the top of a git working tree, decided as git decides
 * it but without running git or reading its config
 * (`docs/security.md#signed-root`): its `.git` is a git directory (a `HEAD`
 * that names a ref or a commit, `objects/` and `refs/`, those two under the
 * folder its `commondir` names for a linked worktree), or a file
 * `gitdir: <path>` naming one that names this folder back (a linked
 * worktree's, a submodule's). A `.git` of any other kind (an empty folder, a
 * file naming nothing, or naming the enclosing repository's own git
 * directory) is not a checkout, so a project cannot mark a folder as its
 * root by planting one. `core.worktree` is never
 * followed: the top is always the folder that holds `.git`.
 *
 * Folder `lib/cli/` — the command line behind `lib/cli.ts`: the command table, flags, output, config.
 *
 * @module
 */
import {
  closeSync,
  fstatSync,
  lstatSync,
  openSync,
  readlinkSync,
  readSync,
  statSync,
} from "node:fs";
import { join, resolve } from "node:path";

/** A `HEAD` or `.git` file longer than this is not one git wrote. */
const MAX_POINTER_BYTES = 4096;

/** The text of a small regular file, or `undefined` when it is missing, not a file or too large. */
function smallFile(path: string): string | undefined {
  let fd: number;
  try {
    fd = openSync(path, "r");
  } catch {
    return undefined;
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile() || stat.size > MAX_POINTER_BYTES) return undefined;
    const bytes = new Uint8Array(stat.size);
    const read = readSync(fd, bytes, 0, bytes.length, 0);
    return new TextDecoder().decode(bytes.subarray(0, read));
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}

function isFolder(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** Git's `validate_headref`: a link into `refs/`, `ref: refs/…`, or a commit id. */
function validHead(gitDir: string): boolean {
  const head = join(gitDir, "HEAD");
  try {
    if (lstatSync(head).isSymbolicLink()) return readlinkSync(head).startsWith("refs/");
  } catch {
    return false;
  }
  const text = smallFile(head);
  if (text === undefined) return false;
  return /^ref:\s*refs\//.test(text) || /^(?:[0-9a-f]{40}|[0-9a-f]{64})\s*$/.test(text);
}

/** Git's `is_git_directory`: a valid `HEAD`, and `objects/` and `refs/` (under `commondir`). */
function isGitDirectory(gitDir: string): boolean {
  if (!isFolder(gitDir) || !validHead(gitDir)) return false;
  const common = smallFile(join(gitDir, "commondir"));
  const shared = common === undefined ? gitDir : resolve(gitDir, common.trim());
  return isFolder(join(shared, "objects")) && isFolder(join(shared, "refs"));
}

/**
 * Whether `dir` is the top of a git working tree: its `.git` is a git
 * directory, or a `gitdir:` file naming one (a linked worktree, a submodule).
 *
 * @param dir An absolute folder.
 * @returns `true` when git would take `dir` as a working tree's top.
 */
export function isGitTop(dir: string): boolean {
  const dotGit = join(dir, ".git");
  if (isFolder(dotGit)) return isGitDirectory(dotGit);
  const pointer = smallFile(dotGit);
  if (pointer === undefined) return false;
  const match = /^gitdir: (.+?)\r?\n?$/.exec(pointer);
  if (match === null) return false;
  const gitDir = resolve(dir, match[1]!);
  return isGitDirectory(gitDir) && pointsBack(gitDir, dir);
}

/**
 * Whether the git directory a `gitdir:` file names names `dir` back, as git
 * writes it for the two kinds of checkout that have such a file: a linked
 * worktree's (its `gitdir` file holds the path of `dir/.git`) and a
 * submodule's (its config's `core.worktree` is `dir`). A `.git` file naming
 * some other repository's git directory (the enclosing one's, say) is not a
 * checkout of it.
 */
function pointsBack(gitDir: string, dir: string): boolean {
  const back = smallFile(join(gitDir, "gitdir"));
  if (back !== undefined && resolve(gitDir, back.trim()) === join(dir, ".git")) return true;
  const config = smallFile(join(gitDir, "config"));
  const worktree = config === undefined ? null : /^\s*worktree\s*=\s*(.+?)\s*$/m.exec(config);
  return worktree !== null && resolve(gitDir, worktree[1]!) === dir;
}
