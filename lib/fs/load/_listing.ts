/**
 * Listing a skill folder: every file under it with its size, found by one
 * `readdir` per folder and one `lstat` per file, each sub-folder listed
 * through a handle opened without following a link (on Linux; elsewhere it
 * is checked to be the same real folder before and after listing). Links
 * are classified here — kept to be read through their target inside, or
 * kept only to be refused — and what the listing passes over becomes a
 * {@linkcode LoadWarning}. No file is read: each listed file opens through
 * `openVerified` (`_safe_open.ts`) when a read asks.
 *
 * Folder `lib/fs/load/` — loading one skill folder: verified listings, SKILL.md and YAML, catalog files.
 *
 * @module
 */
import type { LoadWarning } from "./load_warning.ts";
import { closeSync, type Dirent, openSync, readdirSync, readlinkSync } from "node:fs";
import { sep } from "node:path";
import { handleFile, type ResourceFile } from "../../core/resources/bundle.ts";
import { InvalidResourcePathError } from "../../core/errors.ts";
import { OrderedMap } from "../../core/resolver/ordered_map.ts";
import { isPlainName, normalizeResourcePath } from "../../core/resources/resource_path.ts";
import {
  handlePathPrefix,
  isInside,
  kindOf,
  O_DIRECTORY,
  O_NOFOLLOW,
  openVerified,
  READ_FLAGS,
  realpath,
  relativeTo,
  safeLstat,
  safeReaddir,
  safeStat,
} from "../_safe_open.ts";

const REPLACEMENT = "\uFFFD";

/**
 * Every file under `root`, and what the listing passed over.
 *
 * @param root The skill folder's real path.
 * @param top The listing of `root` itself, made by the caller (`null`: it could not be listed).
 * @returns The files by normalised path (frozen) and the warnings.
 */
export function listFiles(root: string, top: Dirent[] | null): {
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
  const handlePaths = handlePathPrefix();
  if (handlePaths !== null) {
    let fd: number;
    try {
      fd = openSync(dir, READ_FLAGS | O_NOFOLLOW | O_DIRECTORY);
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

/** A listed file: opened and checked by `openVerified` on each read. */
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
