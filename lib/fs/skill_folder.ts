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
import process from "node:process";
import {
  handleFile,
  type ResourceFile,
  type ResourceHandle,
  type SkillBundle,
} from "../core/bundle.ts";
import {
  AgentSkillError,
  InvalidResourcePathError,
  ResourceReadError,
  SkillFolderError,
} from "../core/errors.ts";
import { OrderedMap } from "../core/ordered_map.ts";
import type { SafetyFlags } from "../core/gate.ts";
import {
  effectiveClass,
  isPlainName,
  normalizeResourcePath,
  type ResourceClassMap,
  resourceClassMap,
} from "../core/resource_path.ts";
import { gatedReferences } from "./_references.ts";
import type { SkillDiagnostic } from "./skill_diagnostic.ts";
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
  /**
   * The SKILL.md rule breaks a lenient load passed over (none when strict),
   * then one `GATED_REFERENCE` warning per path the body points to that the
   * safety gate refuses under `options.safety` and the class mapping.
   */
  readonly diagnostics: readonly SkillDiagnostic[];
}

/** Options of {@linkcode loadSkillFolder}. */
export interface LoadSkillFolderOptions {
  /**
   * Load despite SKILL.md rule breaks, reporting them in `diagnostics`; a
   * SKILL.md whose frontmatter cannot be parsed or has no description still
   * throws. `"all"`: a missing or broken description is a diagnostic too (a
   * stand-in is used), so every rule break is listed. Default false.
   */
  readonly lenient?: boolean | "all";
  /**
   * Extra top-level folders mapped to a standard class (see
   * `resourceClassMap`); the bundle carries the map, so listing and reading
   * apply it. Default: the three standard folders only.
   */
  readonly resourceClasses?:
    | ReadonlyMap<string, string>
    | Iterable<readonly [string, string]>
    | Readonly<Record<string, string>>;
  /**
   * The switches the `GATED_REFERENCE` diagnostics assume (default: both
   * true, the gate closed).
   */
  readonly safety?: SafetyFlags;
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
 * stricter class wins); one that does not lead to a regular file inside the
 * folder (it leads outside, breaks or loops) is kept only to be refused, all
 * alike, so a read tells nothing of what exists outside. Linked folders,
 * named pipes, sockets and devices inside, names that are not valid UTF-8 or
 * not valid resource paths, and unreadable entries are reported in
 * `warnings` and skipped (broken links and loops in `warnings` too); files
 * with more than one hard link are listed with a warning (a hard link may
 * share its content with a file outside the folder).
 *
 * @param dir The skill folder.
 * Every sub-folder is listed through an opened handle (on Linux; elsewhere
 * it is checked to be the same real folder before and after listing), and
 * each listed entry is `lstat`ed inside that handle, so a folder swapped for
 * a link out while it is listed puts no outside name or size in the bundle.
 *
 * @param dir The skill folder.
 * @param options `lenient: true` to load despite SKILL.md rule breaks;
 *   `resourceClasses` to map extra folders to a standard class; `safety` for
 *   the `GATED_REFERENCE` diagnostics.
 * @returns The bundle.
 * @throws {SkillFolderError} When the folder does not exist or is not a folder.
 * @throws {RangeError} When `resourceClasses` is not a valid mapping.
 * @throws {AgentSkillError} When the folder has no SKILL.md, or its SKILL.md
 *   is too large, does not lead to a regular file inside the folder, is a
 *   link into a non-standard folder or breaks the Agent Skills rules.
 * @throws {ResourceReadError} When SKILL.md cannot be read as a regular file
 *   inside the folder (it changed after listing, or the file system refused).
 */
export function loadSkillFolder(dir: string, options: LoadSkillFolderOptions = {}): LoadedSkill {
  const location = resolve(dir);
  const classes = resourceClassMap(options.resourceClasses);
  let root: string;
  try {
    root = realpath(location);
  } catch (e) {
    throw new SkillFolderError(dir, basename(location), permissionOr(e, "NO_SUCH_FOLDER"));
  }
  // Listing the top level says whether it is a folder; only a failed listing asks stat why.
  let top: Dirent[] | null = null;
  try {
    top = readdirSync(root, { withFileTypes: true });
  } catch (e) {
    if (permissionOr(e, null) !== null) {
      throw new SkillFolderError(dir, basename(location), "PERMISSION_DENIED");
    }
  }
  if (top === null && safeStat(root)?.isDirectory() !== true) {
    throw new SkillFolderError(dir, basename(location));
  }
  return loadListed(location, root, top, options, classes);
}

/**
 * Load a folder as {@linkcode loadSkillFolder} does when the listing of its
 * top level shows a regular file named `SKILL.md` (or, with no `SKILL.md`
 * entry at all, `skill.md`), listing that top level once for both the
 * question and the load; otherwise `null`, and nothing is decided: the
 * caller asks {@linkcode isSkillFolder} and loads the usual way. `validate`
 * uses it for each folder it is given, instead of a `stat` of SKILL.md
 * followed by the loader's own listing.
 *
 * @param dir A folder.
 * @param options As for {@linkcode loadSkillFolder}.
 * @returns The bundle, or `null` when the top-level listing does not show a
 *   SKILL.md regular file (or the folder cannot be resolved or listed).
 * @throws {AgentSkillError} As {@linkcode loadSkillFolder}, once the folder is
 *   known to hold a SKILL.md.
 * @throws {ResourceReadError} As {@linkcode loadSkillFolder}.
 * @example
 * ```ts
 * import { _loadIfSkillMdListed } from "./skill_folder.ts";
 * import { assert } from "../core/_assert.ts";
 *
 * const examples = new URL("../../examples", import.meta.url).pathname;
 * assert.equal(_loadIfSkillMdListed(`${examples}/skills/pdf`)?.name, "pdf");
 * assert.equal(_loadIfSkillMdListed(`${examples}/skills`), null);
 * ```
 */
export function _loadIfSkillMdListed(
  dir: string,
  options: LoadSkillFolderOptions = {},
): LoadedSkill | null {
  const location = resolve(dir);
  const classes = resourceClassMap(options.resourceClasses);
  let root: string;
  try {
    root = realpath(location);
  } catch {
    return null;
  }
  const top = safeReaddir(root);
  if (top === null || !listsSkillMdFile(top)) return null;
  return loadListed(location, root, top, options, classes);
}

/** Whether a top-level listing shows the SKILL.md that {@linkcode isSkillFolder} would find, as a regular file. */
function listsSkillMdFile(entries: readonly Dirent[]): boolean {
  let lower = false;
  for (const entry of entries) {
    if (entry.name === SKILL_MD_NAMES[0]) return entry.isFile();
    if (entry.name === SKILL_MD_NAMES[1]) lower = entry.isFile();
  }
  return lower;
}

/** The loader after the folder's real path and top-level listing (`null`: it could not be listed). */
function loadListed(
  location: string,
  root: string,
  top: Dirent[] | null,
  options: LoadSkillFolderOptions,
  classes: ResourceClassMap,
): LoadedSkill {
  const { files, warnings } = listFiles(root, top);
  const name = SKILL_MD_NAMES.find((n) => files.has(n));
  if (name === undefined) {
    throw new AgentSkillError("", "no SKILL.md in the folder", { file: location });
  }
  const skillMdPath = join(location, name);
  const file = files.get(name)!;
  if (file.outside_root === true) {
    throw new AgentSkillError(
      "",
      "SKILL.md is a link that does not lead to a regular file inside the skill folder",
      {
        file: skillMdPath,
      },
    );
  }
  const handle = file.open!();
  let bytes: Uint8Array;
  try {
    if (effectiveClass(name, handle.real_path, classes) === "nonstandard") {
      // The instructions (and the description shown before any activation)
      // would come from a folder the safety gate guards, and the loader does
      // not know the switches: refuse, whatever they are.
      throw new AgentSkillError(
        "",
        `SKILL.md is a link into the non-standard folder ${
          JSON.stringify(handle.real_path!.split("/")[0])
        }, which the safety gate guards`,
        { file: skillMdPath },
      );
    }
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
  const text = UTF8.decode(bytes);
  const md = parseSkillMd(text, {
    file: skillMdPath,
    folder: basename(location),
    lenient: options.lenient ?? false,
  });
  const topLevel = new Set<string>();
  const folders = new Set<string>();
  for (const path of files.keys()) {
    const slash = path.indexOf("/");
    topLevel.add(slash < 0 ? path : path.slice(0, slash));
    if (slash > 0) folders.add(path.slice(0, slash));
  }
  const gated = gatedReferences(
    md.body,
    md.bodyLine,
    skillMdPath,
    topLevel,
    folders,
    options.safety ?? {},
    classes,
    (path) => effectiveClass(path, files.get(path)?.real_path, classes),
  );
  return Object.freeze({
    name: md.frontmatter.name,
    frontmatter: md.frontmatter,
    instructions: md.body,
    files,
    location,
    skillMdPath,
    bodyLine: md.bodyLine,
    warnings: Object.freeze(warnings),
    diagnostics: gated.length === 0 ? md.diagnostics : Object.freeze([...md.diagnostics, ...gated]),
    ...(classes.size === 0 ? {} : { resource_classes: classes }),
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
const UTF8 = new TextDecoder();

/** Every file under `root`; `top` is the listing of `root` itself, made by the caller. */
function listFiles(root: string, top: Dirent[] | null): {
  files: OrderedMap<string, ResourceFile>;
  warnings: LoadWarning[];
} {
  const files = OrderedMap.builder<string, ResourceFile>();
  const warnings: LoadWarning[] = [];
  const folders = [""];
  while (folders.length > 0) {
    const folder = folders.pop()!;
    const dir = folder === "" ? root : fullPath(root, folder);
    const listing = folder === "" ? topListing(root, top) : openFolder(dir);
    if (listing === null) {
      warnings.push({ path: folder, message: "folder could not be read; skipped" });
      continue;
    }
    if (listing === CHANGED) {
      warnings.push({ path: folder, message: "folder changed while it was listed; skipped" });
      continue;
    }
    let listed: Listed;
    try {
      listed = listEntries(root, folder, listing);
    } finally {
      listing.close();
    }
    if (!listing.stillThere()) {
      // Off Linux only: the folder was swapped while listed; what was listed may lie outside.
      warnings.push({ path: folder, message: "folder changed while it was listed; skipped" });
      continue;
    }
    for (const [path, file] of listed.files) files.set(path, file);
    folders.push(...listed.folders);
    warnings.push(...listed.warnings);
  }
  return { files: files.freeze(), warnings };
}

/** One listed folder: its entries, where to `lstat` them, and the handle to release. */
interface Listing {
  readonly entries: readonly Dirent[];
  /** The path prefix to reach an entry through the handle (or the folder path off Linux). */
  readonly base: string;
  /** The folder the entries were listed from, by path (for the U+FFFD check). */
  readonly dir: string;
  /** Off Linux: whether the folder is still the one listed (same device and inode, not a link). */
  stillThere(): boolean;
  close(): void;
}

const CHANGED = Symbol("changed");

function topListing(root: string, top: Dirent[] | null): Listing | null {
  if (top === null) return null;
  return { entries: top, base: root, dir: root, stillThere: () => true, close: () => {} };
}

/**
 * List a sub-folder through a handle opened without following a final link
 * (Linux: `/proc/self/fd`), after checking the handle's real path is the
 * folder itself; elsewhere, list by path between two `lstat`s that must name
 * the same real folder.
 */
function openFolder(dir: string): Listing | typeof CHANGED | null {
  if (handlePaths !== null) {
    let fd: number;
    try {
      fd = openSync(dir, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_NOFOLLOW | O_DIRECTORY);
    } catch (e) {
      const code = (e as { code?: unknown }).code;
      return code === "ELOOP" || code === "ENOTDIR" || code === "EMLINK" ? CHANGED : null;
    }
    const close = () => closeSync(fd);
    try {
      const base = `${handlePaths}${fd}`;
      if (readlinkSync(base) !== dir) {
        close();
        return CHANGED;
      }
      const entries = readdirSync(base, { withFileTypes: true });
      return { entries, base, dir: base, stillThere: () => true, close };
    } catch {
      close();
      return null;
    }
  }
  const before = safeLstat(dir);
  if (before === null) return null;
  if (!before.isDirectory()) return CHANGED;
  const entries = safeReaddir(dir);
  if (entries === null) return null;
  const same = (): boolean => {
    const now = safeLstat(dir);
    if (now === null || !now.isDirectory() || now.dev !== before.dev || now.ino !== before.ino) {
      return false;
    }
    try {
      return realpath(dir) === dir;
    } catch {
      return false;
    }
  };
  if (!same()) return CHANGED;
  return { entries, base: dir, dir, stillThere: same, close: () => {} };
}

/** What one folder's listing adds. */
interface Listed {
  readonly files: Map<string, ResourceFile>;
  readonly folders: string[];
  readonly warnings: LoadWarning[];
}

function listEntries(root: string, folder: string, listing: Listing): Listed {
  const files = new Map<string, ResourceFile>();
  const folders: string[] = [];
  const warnings: LoadWarning[] = [];
  const { entries } = listing;
  const genuine = genuineNames(listing.dir, entries);
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
      // lstat inside the listed folder: a file swapped for a link is not followed out.
      const stat = safeLstat(`${listing.base}${sep}${entry.name}`);
      if (stat === null || !stat.isFile()) {
        const why = stat !== null
          ? "changed while it was listed"
          : entry.name.includes(REPLACEMENT)
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
      const kind = kindOf(safeLstat(`${listing.base}${sep}${entry.name}`) ?? entry);
      warnings.push({ path, message: `${kind}, not a regular file; skipped` });
    }
  }
  return { files, folders, warnings };
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
  files: { set(path: string, file: ResourceFile): unknown },
  warnings: LoadWarning[],
): void {
  // A link that does not lead to a file inside — outside, broken, a loop,
  // unreadable, a folder or a special file outside — is kept only to be
  // refused, all alike: how a read of it fails must not tell what exists
  // outside the folder.
  const refused = (): void => {
    files.set(
      path,
      Object.freeze({ ...diskFile(root, path, full, 0, undefined, true), outside_root: true }),
    );
  };
  let real: string;
  try {
    real = realpath(full);
  } catch (e) {
    const code = (e as { code?: string }).code;
    const why = code === "ELOOP" ? "a symbolic link loop" : "a broken symbolic link";
    warnings.push({ path, message: `${why}; refused` });
    refused();
    return;
  }
  const stat = safeStat(real);
  if (!isInside(root, real)) {
    refused();
    return;
  }
  if (stat === null) {
    warnings.push({ path, message: "link target could not be read; refused" });
    refused();
    return;
  }
  if (stat.isDirectory()) {
    warnings.push({ path, message: "a linked folder; not followed" });
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

/**
 * Open flags: read only, never wait (a named pipe), never become the
 * process's controlling terminal (a terminal device opened before the
 * regular-file check refuses it), and — for a listed file — never follow a
 * final link.
 */
const O_RDONLY: number = constants?.O_RDONLY ?? 0;
const O_NONBLOCK: number = constants?.O_NONBLOCK ?? 0;
const O_NOCTTY: number = constants?.O_NOCTTY ?? 0;
const O_NOFOLLOW: number = constants?.O_NOFOLLOW ?? 0;
const O_DIRECTORY: number = constants?.O_DIRECTORY ?? 0;

/**
 * Where the kernel names an open file's path (Linux): the path of the file
 * the handle holds, which no later swap of a link or folder can change.
 * `/proc/<pid>/fd/` when `/proc/self` is this process (it costs one lookup
 * less than `/proc/self/fd/`: 40 % of a `readlink` on Bun), else
 * `/proc/self/fd/`; `null` where there is no such folder.
 */
const FD_PATHS = fdPaths();

/** {@linkcode FD_PATHS}, found once; Deno grants `/proc/self/fd` only with `--allow-all`, and says no otherwise. */
function fdPaths(): string | null {
  try {
    if (!existsSync("/proc/self/fd")) return null;
    // A /proc of another PID namespace would name another process by our number.
    const own = `/proc/${process.pid}/fd/`;
    return readlinkSync("/proc/self") === String(process.pid) && existsSync(own)
      ? own
      : "/proc/self/fd/";
  } catch {
    return null;
  }
}

/** Where the real path of an opened file comes from now: {@linkcode FD_PATHS}, or `null` for the portable way. */
let handlePaths: string | null = FD_PATHS;
/** Runs between the open and the real path (tests: where a racing attacker acts). */
let afterOpen: ((full: string, fd: number) => void) | null = null;

/**
 * For this module's own tests (`lib/load.ts` does not export it): run the
 * checks of an open the portable way, as off Linux, and act where a racing
 * attacker would, so one attack test covers both ways deterministically.
 *
 * @param options `handlePaths: false` finds the real path of an opened file
 *   with `realpath` of its path after the open (as off Linux) instead of the
 *   kernel's name for the handle; `afterOpen` runs with the file-system path
 *   and the handle just after each open and `fstat`, before the real path is
 *   found.
 * @returns A function that restores the defaults.
 * @throws Nothing itself; an exception from `afterOpen` fails that open as
 *   `RESOURCE_CHANGED`, like a swap would.
 * @example
 * ```ts
 * import { _setOpenChecks, loadSkillFolder } from "./skill_folder.ts";
 * import { assert } from "../core/_assert.ts";
 *
 * const opened: string[] = [];
 * const restore = _setOpenChecks({ handlePaths: false, afterOpen: (path) => opened.push(path) });
 * try {
 *   loadSkillFolder(new URL("../../examples/skills/pdf", import.meta.url).pathname);
 * } finally {
 *   restore();
 * }
 * assert.ok(opened.length === 1 && opened[0]!.endsWith("SKILL.md"));
 * ```
 */
export function _setOpenChecks(
  options: { handlePaths?: boolean; afterOpen?: (full: string, fd: number) => void },
): () => void {
  handlePaths = options.handlePaths === false ? null : FD_PATHS;
  afterOpen = options.afterOpen ?? null;
  return () => {
    handlePaths = FD_PATHS;
    afterOpen = null;
  };
}

/**
 * The real path of the open file: the kernel's name for the handle where
 * there is one (`exact`: it names the very file the handle holds), else the
 * real path of `full` now, which a swap may have pointed elsewhere.
 */
function realPathOf(fd: number, full: string): { path: string; exact: boolean } {
  afterOpen?.(full, fd);
  if (handlePaths !== null) {
    try {
      const path = readlinkSync(`${handlePaths}${fd}`);
      // A removed file is named "<its last path> (deleted)": a name, not a path to check by.
      if (path.startsWith("/")) return { path, exact: !path.endsWith(" (deleted)") };
    } catch {
      // Not available for this handle: resolve the path instead.
    }
  }
  return { path: realpath(full), exact: false };
}

function diskFile(
  root: string,
  path: string,
  full: string,
  size: number,
  realPath: string | undefined,
  isLink: boolean,
): ResourceFile {
  return handleFile(path, size, realPath, () => openVerified(root, path, full, isLink));
}

/**
 * Open a listed file once and check the handle: a regular file whose real
 * path, resolved after the open, is inside `root` — on Linux the kernel's
 * own name for the handle; elsewhere (or for a removed file) the real path
 * of its path now, which must then name the same device and inode as the
 * handle. A file listed as a regular file is opened without following a
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
    fd = openSync(full, O_RDONLY | O_NONBLOCK | O_NOCTTY | (followLink ? 0 : O_NOFOLLOW));
  } catch (e) {
    throw openError(root, path, e, followLink);
  }
  try {
    const stat = fstatSync(fd);
    let real: string;
    let exact: boolean;
    try {
      ({ path: real, exact } = realPathOf(fd, full));
    } catch {
      throw changed(path);
    }
    // Containment first: what kind of file lies outside is none of a reader's business.
    if (!isInside(root, real)) throw leadsNowhereInside(path);
    if (!stat.isFile()) {
      throw new ResourceReadError(
        "NOT_A_REGULAR_FILE",
        path,
        `it is ${kindOf(stat)}, not a regular file`,
      );
    }
    // The kernel's own name for the handle needs no second look; a path found otherwise
    // must still name the same file (device and inode) as the handle.
    if (!exact) {
      const now = safeStat(real);
      if (now === null || now.dev !== stat.dev || now.ino !== stat.ino) throw changed(path);
    }
    const relative = relativeTo(root, real);
    return diskHandle(fd, path, stat, relative === path ? undefined : relative);
  } catch (e) {
    closeSync(fd);
    throw e;
  }
}

function leadsNowhereInside(path: string): ResourceReadError {
  return new ResourceReadError(
    "OUTSIDE_ROOT",
    path,
    "it does not lead to a regular file inside the skill folder",
  );
}

/**
 * Why an open failed, told only about what is inside the folder: walking the
 * listed path from the root without following links, a missing entry is
 * `RESOURCE_GONE`; a link on the way (a folder swapped for one, or the listed
 * link itself) may lead anywhere, so the failure is the same refusal whatever
 * lies outside — existing or not, of any kind, readable or not. Only when the
 * path is all real folders inside is the file system's reason told.
 */
function openError(
  root: string,
  path: string,
  e: unknown,
  followLink: boolean,
): ResourceReadError {
  const parts = path.split("/");
  let at = root;
  for (let i = 0; i < parts.length; i++) {
    at = `${at}${sep}${parts[i]}`;
    const entry = safeLstat(at);
    const last = i === parts.length - 1;
    if (entry === null) return gone(path);
    if (entry.isSymbolicLink()) {
      if (!last || followLink) return leadsNowhereInside(path);
      break; // a listed file that is now a link: the file system says so (ELOOP)
    }
    if (!last && !entry.isDirectory()) return gone(path);
  }
  return fileSystemError(path, e);
}

function gone(path: string): ResourceReadError {
  return new ResourceReadError("RESOURCE_GONE", path, "it no longer exists");
}

function diskHandle(
  fd: number,
  path: string,
  stat: Stats,
  realPath: string | undefined,
): ResourceHandle {
  let open = true;
  let version: string | undefined;
  return Object.freeze({
    size: stat.size,
    // Built when asked: most reads never compare versions.
    get version(): string {
      return version ??= versionOf(stat);
    },
    mtime_ms: stat.mtimeMs,
    versionNow(): string {
      if (!open) throw new TypeError(`The handle of ${JSON.stringify(path)} is closed`);
      try {
        return versionOf(fstatSync(fd));
      } catch (e) {
        throw fileSystemError(path, e);
      }
    },
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
        throw fileSystemError(path, e);
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

/** What changes whenever an opened file's content may have changed. */
function versionOf(stat: Stats): string {
  return `${stat.dev}:${stat.ino}:${stat.size}:${stat.mtimeMs}:${stat.ctimeMs}`;
}

function changed(path: string): ResourceReadError {
  return new ResourceReadError(
    "RESOURCE_CHANGED",
    path,
    "it was replaced while it was being opened",
  );
}

/** A file-system failure as a typed error naming only the path inside the skill folder. */
function fileSystemError(path: string, e: unknown): ResourceReadError {
  const code = (e as { code?: unknown })?.code;
  switch (code) {
    case "ENOENT":
    case "ENOTDIR":
      return gone(path);
    case "ELOOP":
    case "EMLINK":
      return new ResourceReadError(
        "NOT_A_REGULAR_FILE",
        path,
        "it is now a symbolic link, not the file that was listed",
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

/** `"PERMISSION_DENIED"` for a refusal (EACCES, EPERM, or Deno without read permission), else `other`. */
function permissionOr<T>(e: unknown, other: T): "PERMISSION_DENIED" | T {
  const { code, name } = (e ?? {}) as { code?: unknown; name?: unknown };
  return code === "EACCES" || code === "EPERM" || name === "NotCapable" ||
      name === "PermissionDenied"
    ? "PERMISSION_DENIED"
    : other;
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
