/**
 * Load Agent Skill folders from disk into bundles, lazily. Uses `node:fs` and
 * `node:path`, which Node, Deno and Bun all provide. The folder is listed by
 * `_listing.ts` and every file (SKILL.md first) is opened through the
 * verified open of `_safe_open.ts`; this file decides what a listing makes:
 * the SKILL.md found, read and parsed, and the bundle.
 *
 * Folder `lib/fs/load/` — loading one skill folder: verified listings, SKILL.md and YAML, catalog files.
 *
 * @module
 */
import { type Dirent, readdirSync } from "node:fs";
import { basename, join, resolve } from "node:path";
import {
  handleFile,
  type ResourceFile,
  type ResourceHandle,
  type SkillBundle,
} from "../../core/resources/bundle.ts";
import { AgentSkillError, SkillFolderError } from "../../core/errors.ts";
import type { SafetyFlags } from "../../core/resources/gate.ts";
import {
  effectiveClass,
  type ResourceClassMap,
  resourceClassMap,
} from "../../core/resources/resource_path.ts";
import { listFiles } from "./_listing.ts";
import type { LoadWarning } from "./load_warning.ts";
import { gatedReferences } from "../discovery/_references.ts";
import { realpath, safeReaddir, safeStat } from "../_safe_open.ts";
import type { SkillDiagnostic } from "../discovery/skill_diagnostic.ts";
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
  /** The version its SKILL.md states (`metadata.version`, or a top-level `version`), if any. */
  readonly version?: string;
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

export type { LoadWarning } from "./load_warning.ts";

/** The largest SKILL.md the loader reads. */
export const MAX_SKILL_MD_BYTES = 1024 * 1024;

/** The instruction file names, in order of preference (discovery looks for the same). */
export const SKILL_MD_NAMES: readonly string[] = Object.freeze(["SKILL.md", "skill.md"]);

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
 * import { assert } from "../../core/_assert.ts";
 *
 * const examples = new URL("../../../examples", import.meta.url).pathname;
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
  let { files, warnings } = listFiles(root, top);
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
  // SKILL.md is what was read, once: hashing it, reading it and the
  // instructions and description all come from these bytes, never from a
  // later look at the disk (a file put back after the load is not believed).
  const realPath = handle.real_path;
  files = files.with(name, heldFile(name, bytes, realPath));
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
    ...md.version === undefined ? {} : { version: md.version },
    ...(classes.size === 0 ? {} : { resource_classes: classes }),
  });
}

/** A file held as the bytes read at load, reached (when a link) through `realPath`. */
function heldFile(path: string, bytes: Uint8Array, realPath: string | undefined): ResourceFile {
  const handle: ResourceHandle = Object.freeze({
    size: bytes.length,
    version: "",
    ...(realPath === undefined ? {} : { real_path: realPath }),
    read: (position: number, length: number): Uint8Array =>
      bytes.subarray(Math.min(position, bytes.length), Math.min(position + length, bytes.length)),
    close: () => {},
  });
  return handleFile(path, bytes.length, realPath, () => handle);
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

const UTF8 = new TextDecoder();

/** `"PERMISSION_DENIED"` for a refusal (EACCES, EPERM, or Deno without read permission), else `other`. */
function permissionOr<T>(e: unknown, other: T): "PERMISSION_DENIED" | T {
  const { code, name } = (e ?? {}) as { code?: unknown; name?: unknown };
  return code === "EACCES" || code === "EPERM" || name === "NotCapable" ||
      name === "PermissionDenied"
    ? "PERMISSION_DENIED"
    : other;
}
