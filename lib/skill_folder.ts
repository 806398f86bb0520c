/**
 * Load Agent Skill folders from disk into bundles, lazily. Uses `node:fs` and
 * `node:path`, which Node, Deno and Bun all provide.
 *
 * @module
 */
import {
  closeSync,
  type Dirent,
  fstatSync,
  openSync,
  readdirSync,
  readSync,
  realpathSync,
  type Stats,
  statSync,
} from "node:fs";
import { basename, join, relative, resolve, sep } from "node:path";
import type { ResourceFile, SkillBundle } from "./bundle.ts";
import { AgentSkillError, ExecutionError, InvalidResourcePathError } from "./errors.ts";
import { OrderedMap, type OrderedMapBuilder } from "./ordered_map.ts";
import { isPlainName, normalizeResourcePath } from "./resource_path.ts";
import { parseSkillMd } from "./skill_md.ts";

/** A bundle loaded from a folder, with what the loader passed over. */
export interface LoadedSkill extends SkillBundle {
  /** The folder, as given (resolved to an absolute path). */
  readonly location: string;
  /** The SKILL.md file that was read. */
  readonly skillMdPath: string;
  /** The 1-based line where the SKILL.md body starts. */
  readonly bodyLine: number;
  /** Entries the loader passed over: links that loop or break, linked folders, unreadable entries. */
  readonly warnings: readonly LoadWarning[];
}

/** An entry of a skill folder that the loader passed over, and why. */
export interface LoadWarning {
  /** The entry's path inside the folder. */
  readonly path: string;
  /** What the loader passed over, and why. */
  readonly message: string;
}

/** The largest SKILL.md the loader reads. */
export const MAX_SKILL_MD_BYTES = 1024 * 1024;

/**
 * The operating system's realpath where the runtime offers it (one call
 * instead of an lstat per path component in Node's JavaScript version).
 */
const realpath: (path: string) => string = typeof realpathSync.native === "function"
  ? (path) => realpathSync.native(path)
  : (path) => realpathSync(path);

/** The instruction file names, in order of preference. */
const SKILL_MD_NAMES = ["SKILL.md", "skill.md"] as const;

/**
 * Find a folder's SKILL.md.
 *
 * @param dir A folder.
 * @returns The path of its `SKILL.md` (preferred) or `skill.md`, or `null`.
 */
export function findSkillMd(dir: string): string | null {
  for (const name of SKILL_MD_NAMES) {
    const path = join(dir, name);
    if (safeStat(path)?.isFile() === true) return path;
  }
  return null;
}

/**
 * Load an Agent Skill folder. Lists every file with its size up front (one
 * `readdir` per folder, one `stat` per file) and reads bytes only when a read
 * asks, re-checking then that the file's real path is inside the folder's
 * real path. SKILL.md is read the same way, so it cannot be a link out of the
 * folder either.
 *
 * A symbolic link is classified by its requested and its real path (the
 * stricter class wins); one whose real path leaves the folder is kept only to
 * be refused. Links that loop or break, linked folders and unreadable entries
 * are reported in `warnings`, not fatal.
 *
 * @param dir The skill folder.
 * @returns The bundle.
 * @throws {AgentSkillError} When the folder is missing, has no SKILL.md, or
 *   its SKILL.md is too large, leads outside the folder or breaks the Agent
 *   Skills rules.
 */
export function loadSkillFolder(dir: string): LoadedSkill {
  const location = resolve(dir);
  let root: string;
  try {
    root = realpath(location);
  } catch {
    throw new AgentSkillError("", "no such folder", { file: location });
  }
  const { files, warnings } = listFiles(root);
  const name = SKILL_MD_NAMES.find((n) => files.has(n));
  if (name === undefined) {
    throw new AgentSkillError("", "no SKILL.md in the folder", { file: location });
  }
  const skillMdPath = join(location, name);
  const file = files.get(name)!;
  if (file.outside_root === true) {
    throw new AgentSkillError("", "SKILL.md is a link that leads outside the skill folder", {
      file: skillMdPath,
    });
  }
  if (file.size > MAX_SKILL_MD_BYTES) {
    throw new AgentSkillError(
      "",
      `SKILL.md is ${file.size} bytes; the limit is ${MAX_SKILL_MD_BYTES}`,
      {
        file: skillMdPath,
      },
    );
  }
  const text = new TextDecoder().decode(file.read(0, MAX_SKILL_MD_BYTES));
  const md = parseSkillMd(text, { file: skillMdPath, folder: basename(location) });
  return Object.freeze({
    name: md.frontmatter.name,
    frontmatter: md.frontmatter,
    instructions: md.body,
    files,
    location,
    skillMdPath,
    bodyLine: md.bodyLine,
    warnings: Object.freeze(warnings),
  });
}

/**
 * Whether a folder is an Agent Skill.
 *
 * @param dir A folder.
 * @returns Whether it holds a SKILL.md (or skill.md).
 */
export function isSkillFolder(dir: string): boolean {
  return findSkillMd(dir) !== null;
}

function listFiles(root: string): {
  files: OrderedMap<string, ResourceFile>;
  warnings: LoadWarning[];
} {
  const files = OrderedMap.builder<string, ResourceFile>();
  const warnings: LoadWarning[] = [];
  const folders = [""];
  while (folders.length > 0) {
    const folder = folders.pop()!;
    const entries = safeReaddir(folder === "" ? root : fullPath(root, folder));
    if (entries === null) {
      warnings.push({ path: folder, message: "folder could not be read; skipped" });
      continue;
    }
    for (const entry of entries) {
      const raw = folder === "" ? entry.name : `${folder}/${entry.name}`;
      let path = raw;
      if (!isPlainName(entry.name, folder === "")) {
        try {
          path = normalizeResourcePath(raw);
        } catch (e) {
          if (!(e instanceof InvalidResourcePathError)) throw e;
          warnings.push({ path: raw, message: `${e.message}; skipped` });
          continue;
        }
      }
      const full = fullPath(root, path);
      if (entry.isDirectory()) {
        folders.push(path);
      } else if (entry.isFile()) {
        const size = safeSize(full);
        if (size === null) warnings.push({ path, message: "could not be read; skipped" });
        else files.set(path, diskFile(root, path, full, size, undefined));
      } else if (entry.isSymbolicLink()) {
        addLink(root, path, full, files, warnings);
      } else {
        warnings.push({ path, message: "not a regular file; skipped" });
      }
    }
  }
  return { files: files.freeze(), warnings };
}

/** The file-system path of a normalised resource path under `root` (cheaper than `join`). */
function fullPath(root: string, path: string): string {
  return `${root}${sep}${sep === "/" ? path : path.replaceAll("/", sep)}`;
}

function addLink(
  root: string,
  path: string,
  full: string,
  files: OrderedMapBuilder<string, ResourceFile>,
  warnings: LoadWarning[],
): void {
  let real: string;
  try {
    real = realpath(full);
  } catch (e) {
    const code = (e as { code?: string }).code;
    const why = code === "ELOOP" ? "a symbolic link loop" : "a broken symbolic link";
    warnings.push({ path, message: `${why}; skipped` });
    return;
  }
  const stat = safeStat(real);
  if (stat === null) {
    warnings.push({ path, message: "link target could not be read; skipped" });
    return;
  }
  if (stat.isDirectory()) {
    warnings.push({ path, message: "a linked folder; not followed" });
    return;
  }
  if (!isInside(root, real)) {
    files.set(
      path,
      Object.freeze({ ...diskFile(root, path, full, stat.size, undefined), outside_root: true }),
    );
    return;
  }
  const realPath = normalizeResourcePath(relative(root, real).split(sep).join("/"));
  files.set(path, diskFile(root, path, full, stat.size, realPath));
}

function diskFile(
  root: string,
  path: string,
  full: string,
  size: number,
  realPath: string | undefined,
): ResourceFile {
  return Object.freeze({
    path,
    size,
    ...(realPath === undefined ? {} : { real_path: realPath }),
    read(position: number, length: number): Uint8Array {
      // Re-resolve at read time: a link swapped after listing must not lead outside.
      const real = realpath(full);
      if (!isInside(root, real)) {
        throw new ExecutionError(
          `Refused to read ${
            JSON.stringify(path)
          }: it is a link whose real path is outside the skill folder`,
          { path, operation: "read", global_safety: true, skill_safety: true },
        );
      }
      const fd = openSync(real, "r");
      try {
        const available = Math.max(0, fstatSync(fd).size - position);
        const buffer = new Uint8Array(Math.min(length, available));
        let filled = 0;
        while (filled < buffer.length) {
          const got = readSync(fd, buffer, filled, buffer.length - filled, position + filled);
          if (got === 0) break;
          filled += got;
        }
        return buffer.subarray(0, filled);
      } finally {
        closeSync(fd);
      }
    },
  });
}

function isInside(root: string, real: string): boolean {
  return real === root || real.startsWith(root.endsWith(sep) ? root : root + sep);
}

function safeReaddir(dir: string): Dirent[] | null {
  try {
    return readdirSync(dir, { withFileTypes: true });
  } catch {
    return null;
  }
}

function safeSize(file: string): number | null {
  return safeStat(file)?.size ?? null;
}

function safeStat(file: string): Stats | null {
  try {
    return statSync(file);
  } catch {
    return null;
  }
}
