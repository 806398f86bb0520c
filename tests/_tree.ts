/**
 * Building file trees in the tests' temp folders: a file or a link, its
 * folder made first; and reading one back whole, for before/after
 * comparisons.
 *
 * @module
 */
import {
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";

/**
 * Write `content` to `path`, making its folder first.
 *
 * @returns The path, to name the file in the next step.
 */
export function write(path: string, content: string | Uint8Array): string {
  mkdirSync(join(path, ".."), { recursive: true });
  writeFileSync(path, content);
  return path;
}

/** Write `content` to `path` under `root`, making its folder first. */
export function put(root: string, path: string, content: string | Uint8Array): void {
  write(join(root, path), content);
}

/** A symbolic link at `path` (its folder made first) to `target`. */
export function link(target: string, path: string): void {
  mkdirSync(join(path, ".."), { recursive: true });
  symlinkSync(target, path);
}

/**
 * Every path under a folder with what it holds (a link's target, `dir`, a
 * file's bytes, with its mode when `modes`), for byte-for-byte before/after
 * comparisons; empty when the folder is missing.
 */
export function contents(dir: string, modes = false): Map<string, string> {
  const out = new Map<string, string>();
  if (!existsSync(dir)) return out;
  const stack = [dir];
  while (stack.length > 0) {
    const at = stack.pop()!;
    for (const name of readdirSync(at)) {
      const path = join(at, name);
      const stat = lstatSync(path);
      if (stat.isSymbolicLink()) out.set(path, `link ${readlinkSync(path)}`);
      else if (stat.isDirectory()) {
        out.set(path, "dir");
        stack.push(path);
      } else {
        const bytes = readFileSync(path, "latin1");
        out.set(path, modes ? `${stat.mode.toString(8)} ${bytes}` : bytes);
      }
    }
  }
  return out;
}
