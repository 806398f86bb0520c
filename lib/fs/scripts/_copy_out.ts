/**
 * Copying back what a script wrote in its working folder (`out`): folders
 * and regular files only, never through a link (each file opened with
 * `O_NOFOLLOW` and checked to be the regular file that was listed), at most
 * a number of bytes and of entries in all; what is left out is counted. The
 * copy is made after the run, when nothing of the script runs any more.
 *
 * Folder `lib/fs/scripts/` — running a skill's scripts: the sandbox, capped spawns, snapshots.
 *
 * @module
 */
import {
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";

/** The most entries copied back from one run. */
export const MAX_OUT_ENTRIES = 10_000;

/** What was copied back. */
export interface CopiedOut {
  /** The host folder. */
  readonly dir: string;
  /** Files copied. */
  readonly files: number;
  /** Bytes copied. */
  readonly bytes: number;
  /** Entries left out: links, pipes, devices, and what was over the bounds. */
  readonly left_out: number;
}

/**
 * Copy the tree under `from` into `to` (made if missing; files there of the
 * same name are replaced, a link there is never followed).
 *
 * @param from The script's working folder on the host.
 * @param to The host folder to copy into.
 * @param maxBytes The most bytes copied in all.
 * @returns What was copied and how much was left out.
 */
export function copyOut(from: string, to: string, maxBytes: number): CopiedOut {
  mkdirSync(to, { recursive: true });
  let files = 0;
  let bytes = 0;
  let leftOut = 0;
  let entries = 0;
  const stack: string[] = [""];
  while (stack.length > 0) {
    const rel = stack.pop()!;
    let names: string[];
    try {
      names = readdirSync(join(from, rel)).sort();
    } catch {
      leftOut++;
      continue;
    }
    for (const name of names) {
      const path = rel === "" ? name : `${rel}/${name}`;
      if (++entries > MAX_OUT_ENTRIES) {
        leftOut++;
        continue;
      }
      const stat = lstatSync(join(from, path));
      if (stat.isDirectory()) {
        if (!ensureFolder(join(to, path))) leftOut++;
        else stack.push(path);
      } else if (stat.isFile() && bytes + stat.size <= maxBytes) {
        const content = readRegular(join(from, path), stat.ino, maxBytes - bytes);
        if (content === null || !writeRegular(join(to, path), content)) {
          leftOut++;
          continue;
        }
        files++;
        bytes += content.length;
      } else {
        leftOut++;
      }
    }
  }
  return Object.freeze({ dir: to, files, bytes, left_out: leftOut });
}

/** A folder at `path`: made, or one already there that is not a link. */
function ensureFolder(path: string): boolean {
  try {
    mkdirSync(path);
    return true;
  } catch {
    const stat = lstatSync(path, { throwIfNoEntry: false });
    return stat?.isDirectory() === true;
  }
}

/** A regular file's bytes, through a handle that did not follow a link, up to a budget. */
function readRegular(path: string, ino: number, budget: number): Uint8Array | null {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch {
    return null;
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile() || stat.ino !== ino || stat.size > budget) return null;
    const bytes = new Uint8Array(stat.size);
    for (let filled = 0; filled < bytes.length;) {
      const n = readSync(fd, bytes, filled, bytes.length - filled, filled);
      if (n === 0) return null;
      filled += n;
    }
    return bytes;
  } finally {
    closeSync(fd);
  }
}

/** Write a file, replacing a regular file of that name but never following a link there. */
function writeRegular(path: string, bytes: Uint8Array): boolean {
  try {
    const fd = openSync(
      path,
      constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | constants.O_NOFOLLOW |
        constants.O_NONBLOCK,
      0o644,
    );
    try {
      if (!fstatSync(fd).isFile()) return false;
      writeFileSync(fd, bytes);
      return true;
    } finally {
      closeSync(fd);
    }
  } catch {
    return false;
  }
}
