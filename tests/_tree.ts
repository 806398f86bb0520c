/**
 * Building file trees in the tests' temp folders: a file or a link, its
 * folder made first.
 *
 * @module
 */
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
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
