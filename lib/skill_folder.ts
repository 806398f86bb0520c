/**
 * Load Agent Skill folders from disk into bundles, lazily. Uses `node:fs` and
 * `node:path`, which Node, Deno and Bun all provide.
 *
 * @module
 */
import {
  closeSync,
  constants,
  type Dirent,
  existsSync,
  fstatSync,
  lstatSync,
  openSync,
  readdirSync,
  readlinkSync,
  readSync,
  realpathSync,
  type Stats,
  statSync,
} from "node:fs";
import { basename, join, resolve, sep } from "node:path";
import type { ResourceFile, ResourceHandle, SkillBundle } from "./bundle.ts";
import {
  AgentSkillError,
  InvalidResourcePathError,
  ResourceReadError,
  SkillFolderError,
} from "./errors.ts";
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
 * asks. Every read opens the file once and decides on that handle (see
 * {@linkcode ResourceFile.open}): a regular file only, never blocking, its
 * real path inside the folder's real path, the same device and inode. SKILL.md
 * is read the same way, so it cannot be a link out of the folder or a named
 * pipe either.
 *
 * A symbolic link is classified by its requested and its real path (the
 * stricter class wins); one whose real path leaves the folder is kept only to
 * be refused. Links that loop or break, linked folders, named pipes, sockets,
 * devices, names that are not valid UTF-8 or not valid resource paths, and
 * unreadable entries are reported in `warnings` and skipped; files with more
 * than one hard link are listed with a warning (a hard link may share its
 * content with a file outside the folder).
 *
 * @param dir The skill folder.
 * @returns The bundle.
 * @throws {SkillFolderError} When the folder does not exist or is not a folder.
 * @throws {AgentSkillError} When the folder has no SKILL.md, or its SKILL.md
 *   is too large, leads outside the folder or breaks the Agent Skills rules.
 * @throws {ResourceReadError} When SKILL.md cannot be read as a regular file
 *   inside the folder (it changed after listing, or the file system refused).
 */
export function loadSkillFolder(dir: string): LoadedSkill {
  const location = resolve(dir);
  let root: string;
  try {
    root = realpath(location);
  } catch {
    throw new SkillFolderError(dir, basename(location));
  }
  if (safeStat(root)?.isDirectory() !== true) throw new SkillFolderError(dir, basename(location));
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
  const handle = file.open!();
  let bytes: Uint8Array;
  try {
    if (handle.size > MAX_SKILL_MD_BYTES) {
      throw new AgentSkillError(
        "",
        `SKILL.md is ${handle.size} bytes; the limit is ${MAX_SKILL_MD_BYTES}`,
        { file: skillMdPath },
      );
    }
    bytes = handle.read(0, MAX_SKILL_MD_BYTES);
  } finally {
    handle.close();
  }
  const text = new TextDecoder().decode(bytes);
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

const REPLACEMENT = "\uFFFD";

function listFiles(root: string): {
  files: OrderedMap<string, ResourceFile>;
  warnings: LoadWarning[];
} {
  const files = OrderedMap.builder<string, ResourceFile>();
  const warnings: LoadWarning[] = [];
  const folders = [""];
  while (folders.length > 0) {
    const folder = folders.pop()!;
    const dir = folder === "" ? root : fullPath(root, folder);
    const entries = safeReaddir(dir);
    if (entries === null) {
      warnings.push({ path: folder, message: "folder could not be read; skipped" });
      continue;
    }
    const genuine = genuineNames(dir, entries);
    for (const entry of entries) {
      const raw = folder === "" ? entry.name : `${folder}/${entry.name}`;
      if (genuine !== null && entry.name.includes(REPLACEMENT)) {
        const left = genuine.get(entry.name) ?? 0;
        if (left === 0) {
          warnings.push({ path: raw, message: "its name is not valid UTF-8; skipped" });
          continue;
        }
        genuine.set(entry.name, left - 1);
      }
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
        const stat = safeStat(full);
        if (stat === null) {
          const why = entry.name.includes(REPLACEMENT)
            ? "could not be read (its name may not be valid UTF-8)"
            : "could not be read";
          warnings.push({ path, message: `${why}; skipped` });
        } else {
          if (stat.nlink > 1) warnings.push(hardLinkWarning(path, stat.nlink));
          files.set(path, diskFile(root, path, full, stat.size, undefined, false));
        }
      } else if (entry.isSymbolicLink()) {
        addLink(root, path, full, files, warnings);
      } else {
        // Some runtimes (Deno) do not say which kind of special file an entry is: ask lstat.
        const kind = kindOf(safeLstat(full) ?? entry);
        warnings.push({ path, message: `${kind}, not a regular file; skipped` });
      }
    }
  }
  return { files: files.freeze(), warnings };
}

/**
 * For a folder listing that holds U+FFFD in some names: how many entries of
 * each such name are genuine (their bytes are valid UTF-8 that says U+FFFD),
 * the others being names the runtime decoded lossily. `null` when no name
 * holds U+FFFD.
 */
function genuineNames(dir: string, entries: readonly Dirent[]): Map<string, number> | null {
  if (!entries.some((e) => e.name.includes(REPLACEMENT))) return null;
  const genuine = new Map<string, number>();
  let raw: readonly Uint8Array[] = [];
  try {
    raw = readdirSync(dir, { encoding: "buffer" });
  } catch {
    // The names stay unverified: every lossy one is then skipped.
  }
  const strict = new TextDecoder("utf-8", { fatal: true });
  for (const bytes of raw) {
    let name: string;
    try {
      name = strict.decode(bytes);
    } catch {
      continue;
    }
    // A folder cannot hold one name twice: a runtime that decodes names
    // lossily even as bytes (Deno) still keeps only the first of a pair.
    if (name.includes(REPLACEMENT)) genuine.set(name, 1);
  }
  return genuine;
}

function hardLinkWarning(path: string, links: number): LoadWarning {
  return {
    path,
    message:
      `has ${links} hard links: its content is shared with another name, perhaps outside the folder; listed`,
  };
}

function kindOf(entry: Dirent | Stats): string {
  if (entry.isDirectory()) return "a folder";
  if (entry.isFIFO()) return "a named pipe";
  if (entry.isSocket()) return "a socket";
  if (entry.isCharacterDevice() || entry.isBlockDevice()) return "a device";
  if (entry.isSymbolicLink()) return "a symbolic link";
  return "not a file";
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
      Object.freeze({
        ...diskFile(root, path, full, stat.size, undefined, true),
        outside_root: true,
      }),
    );
    return;
  }
  if (!stat.isFile()) {
    warnings.push({ path, message: `a link to ${kindOf(stat)}, not a regular file; skipped` });
    return;
  }
  if (stat.nlink > 1) warnings.push(hardLinkWarning(path, stat.nlink));
  files.set(path, diskFile(root, path, full, stat.size, relativeTo(root, real), true));
}

/** The `/`-separated path of `real` inside `root` (which holds it). */
function relativeTo(root: string, real: string): string {
  const rest = real.slice(root.endsWith(sep) ? root.length : root.length + 1);
  return sep === "/" ? rest : rest.split(sep).join("/");
}

/** Open flags: read only, never wait (a named pipe), and — for a listed file — never follow a final link. */
const O_RDONLY: number = constants?.O_RDONLY ?? 0;
const O_NONBLOCK: number = constants?.O_NONBLOCK ?? 0;
const O_NOFOLLOW: number = constants?.O_NOFOLLOW ?? 0;

/**
 * Where the kernel names an open file's path (Linux): the path of the file
 * the handle holds, which no later swap of a link or folder can change.
 */
const FD_PATHS = hasFdPaths() ? "/proc/self/fd/" : null;

/** Whether `/proc/self/fd` can be used; Deno grants it only with `--allow-all`, and says no otherwise. */
function hasFdPaths(): boolean {
  try {
    return existsSync("/proc/self/fd");
  } catch {
    return false;
  }
}

/** The real path of the open file: the kernel's name for the handle where there is one, else the real path of `full` now. */
function realPathOf(fd: number, full: string): string {
  if (FD_PATHS !== null) {
    try {
      const path = readlinkSync(`${FD_PATHS}${fd}`);
      if (path.startsWith("/")) return path;
    } catch {
      // Not available for this handle: resolve the path instead.
    }
  }
  return realpath(full);
}

function diskFile(
  root: string,
  path: string,
  full: string,
  size: number,
  realPath: string | undefined,
  isLink: boolean,
): ResourceFile {
  const open = (): ResourceHandle => openVerified(root, path, full, isLink);
  return Object.freeze({
    path,
    size,
    ...(realPath === undefined ? {} : { real_path: realPath }),
    open,
    read(position: number, length: number): Uint8Array {
      const handle = open();
      try {
        return handle.read(position, length);
      } finally {
        handle.close();
      }
    },
  });
}

/**
 * Open a listed file once and check the handle: a regular file, whose real
 * path (resolved after the open: on Linux the kernel's own name for the
 * handle) is inside `root` and names the same device and inode. A file listed as a regular file is opened without following a
 * final link; a listed link is followed, and the checks after the open
 * decide. Any mismatch closes the handle and throws.
 */
function openVerified(
  root: string,
  path: string,
  full: string,
  followLink: boolean,
): ResourceHandle {
  let fd: number;
  try {
    fd = openSync(full, O_RDONLY | O_NONBLOCK | (followLink ? 0 : O_NOFOLLOW));
  } catch (e) {
    throw fileSystemError(path, e, followLink);
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) {
      throw new ResourceReadError(
        "NOT_A_REGULAR_FILE",
        path,
        `it is ${kindOf(stat)}, not a regular file`,
      );
    }
    let real: string;
    try {
      real = realPathOf(fd, full);
    } catch {
      throw changed(path);
    }
    if (!isInside(root, real)) {
      throw new ResourceReadError(
        "OUTSIDE_ROOT",
        path,
        "its real path is outside the skill folder",
      );
    }
    const now = safeStat(real);
    if (now === null || now.dev !== stat.dev || now.ino !== stat.ino) throw changed(path);
    const relative = relativeTo(root, real);
    return diskHandle(fd, path, stat, relative === path ? undefined : relative);
  } catch (e) {
    closeSync(fd);
    throw e;
  }
}

function diskHandle(
  fd: number,
  path: string,
  stat: Stats,
  realPath: string | undefined,
): ResourceHandle {
  let open = true;
  return Object.freeze({
    size: stat.size,
    version: `${stat.dev}:${stat.ino}:${stat.size}:${stat.mtimeMs}:${stat.ctimeMs}`,
    ...(realPath === undefined ? {} : { real_path: realPath }),
    read(position: number, length: number): Uint8Array {
      if (!open) throw new TypeError(`The handle of ${JSON.stringify(path)} is closed`);
      const buffer = new Uint8Array(Math.max(0, Math.min(length, stat.size - position)));
      let filled = 0;
      try {
        while (filled < buffer.length) {
          const got = readSync(fd, buffer, filled, buffer.length - filled, position + filled);
          if (got === 0) break;
          filled += got;
        }
      } catch (e) {
        throw fileSystemError(path, e, false);
      }
      return buffer.subarray(0, filled);
    },
    close(): void {
      if (!open) return;
      open = false;
      closeSync(fd);
    },
  });
}

function changed(path: string): ResourceReadError {
  return new ResourceReadError(
    "RESOURCE_CHANGED",
    path,
    "it was replaced while it was being opened",
  );
}

/** A file-system failure as a typed error naming only the path inside the skill folder. */
function fileSystemError(path: string, e: unknown, followLink: boolean): ResourceReadError {
  const code = (e as { code?: unknown })?.code;
  switch (code) {
    case "ENOENT":
    case "ENOTDIR":
      return new ResourceReadError("RESOURCE_GONE", path, "it no longer exists");
    case "ELOOP":
    case "EMLINK":
      return new ResourceReadError(
        "NOT_A_REGULAR_FILE",
        path,
        followLink
          ? "it is a symbolic link loop"
          : "it is now a symbolic link, not the file that was listed",
      );
    case "EISDIR":
      return new ResourceReadError(
        "NOT_A_REGULAR_FILE",
        path,
        "it is a folder, not a regular file",
      );
    case "ENXIO":
    case "ENODEV":
      return new ResourceReadError(
        "NOT_A_REGULAR_FILE",
        path,
        "it is a socket or a device, not a regular file",
      );
    case "EACCES":
    case "EPERM":
      return new ResourceReadError("RESOURCE_UNREADABLE", path, "permission denied");
    default:
      return new ResourceReadError(
        "RESOURCE_UNREADABLE",
        path,
        typeof code === "string" && /^E[A-Z0-9]+$/.test(code)
          ? `the file system refused (${code})`
          : "the file system refused",
      );
  }
}

function isInside(root: string, real: string): boolean {
  return real.startsWith(root.endsWith(sep) ? root : root + sep);
}

function safeReaddir(dir: string): Dirent[] | null {
  try {
    return readdirSync(dir, { withFileTypes: true });
  } catch {
    return null;
  }
}

function safeLstat(file: string): Stats | null {
  try {
    return lstatSync(file);
  } catch {
    return null;
  }
}

function safeStat(file: string): Stats | null {
  try {
    return statSync(file);
  } catch {
    return null;
  }
}
