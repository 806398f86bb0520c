/**
 * Verified opens, shared by everything in `lib/fs/` that reads a file it did
 * not write: the open flags (read only, never block, never take a terminal,
 * never follow a final link unless asked), one read loop, a bounded read of a
 * regular file, and the loader's checked open of a listed file — its real
 * path found on the handle, inside the skill folder, the same device and
 * inode — with the typed errors that tell only what lies inside the folder.
 *
 * The skill-folder loader (`skill_folder.ts`, through `_listing.ts`), the
 * catalog reader (`catalog.ts`), trust's file reader (`trust.ts`) and the
 * discovery file system (`discovery.ts`) all open through here.
 *
 * Folder `lib/fs/` — the file system behind `lib/load.ts`: verified opens, shared by its folders.
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
import { sep } from "node:path";
import process from "node:process";
import type { ResourceHandle } from "../core/resources/bundle.ts";
import { ResourceReadError } from "../core/errors.ts";

/*
 * Open flags: read only, never wait (a named pipe), never become the
 * process's controlling terminal (a terminal device opened before the
 * regular-file check refuses it), and — where asked — never follow a final
 * link, or open only a folder. Each is 0 where the platform lacks it.
 */
/** Open for reading only. */
export const O_RDONLY: number = constants?.O_RDONLY ?? 0;
/** Never wait on the open (a named pipe with no writer). */
export const O_NONBLOCK: number = constants?.O_NONBLOCK ?? 0;
/** Never make a terminal device the process's controlling terminal. */
export const O_NOCTTY: number = constants?.O_NOCTTY ?? 0;
/** Refuse a final symbolic link (`ELOOP`) instead of following it. */
export const O_NOFOLLOW: number = constants?.O_NOFOLLOW ?? 0;
/** Refuse anything but a folder (`ENOTDIR`). */
export const O_DIRECTORY: number = constants?.O_DIRECTORY ?? 0;
/** Every read's flags: read only, never wait, never take a terminal. Add {@linkcode O_NOFOLLOW} to refuse a final link. */
export const READ_FLAGS: number = O_RDONLY | O_NONBLOCK | O_NOCTTY;

/**
 * The operating system's realpath where the runtime offers it (one call
 * instead of an lstat per path component in Node's JavaScript version).
 *
 * @param path A path.
 * @returns Its real path: every link resolved.
 * @throws {Error} The file system's error (`ENOENT`, `ELOOP`, …).
 */
export const realpath: (path: string) => string = typeof realpathSync.native === "function"
  ? (path) => realpathSync.native(path)
  : (path) => realpathSync(path);

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
 * Where the kernel names an open handle now: the folder whose entry `<fd>`
 * is a link to the handle's file (`/proc/<pid>/fd/` on Linux), or `null`
 * off Linux — and under `_setOpenChecks({ handlePaths: false })`.
 *
 * @returns The folder's path, ending in `/`, or `null`.
 */
export function handlePathPrefix(): string | null {
  return handlePaths;
}

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
 * import { _setOpenChecks } from "./_safe_open.ts";
 * import { loadSkillFolder } from "./load/skill_folder.ts";
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

/**
 * Read from an open file into `buffer` until it is full or the file ends:
 * byte `i` of the buffer is byte `position + i` of the file, and reading
 * starts at byte `filled` of the buffer.
 *
 * @param fd The open file.
 * @param buffer Where the bytes go.
 * @param filled How much of `buffer` already holds the file's bytes.
 * @param position The file offset of the buffer's first byte.
 * @returns How much of `buffer` holds the file's bytes now (less than its
 *   length only at the end of the file).
 * @throws {Error} The file system's error from `readSync`.
 */
export function readFully(fd: number, buffer: Uint8Array, filled = 0, position = 0): number {
  while (filled < buffer.length) {
    const got = readSync(fd, buffer, filled, buffer.length - filled, position + filled);
    if (got === 0) break;
    filled += got;
  }
  return filled;
}

/**
 * At most `maxBytes + 1` bytes of a regular file, through one open that
 * follows no final link and never blocks (a named pipe is refused, not
 * waited on), and reads no further than the size the handle had when opened.
 *
 * @param path The file.
 * @param maxBytes The limit: one byte more is read, so a caller can tell a file over it.
 * @returns The bytes read.
 * @throws {Error} The file system's error (`ELOOP` for a final link, …), or
 *   `not a regular file`.
 */
export function readRegularFile(path: string, maxBytes: number): Uint8Array {
  const fd = openSync(path, READ_FLAGS | O_NOFOLLOW);
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) throw new Error("not a regular file");
    const buffer = new Uint8Array(Math.min(stat.size, maxBytes + 1));
    return buffer.subarray(0, readFully(fd, buffer));
  } finally {
    closeSync(fd);
  }
}

/** One decoder for every text read here (it keeps no state between whole decodes). */
const UTF8 = new TextDecoder();

/** The bytes of the last {@linkcode readRegularText}, reused: grown to the largest file read. */
let scratch = new Uint8Array(64 * 1024);

/**
 * The text of a regular file of at most `maxBytes` bytes, as
 * {@linkcode readRegularFile} reads it (one open that follows no final link
 * and never blocks, a regular file, no further than the size the handle had
 * when opened), decoded as UTF-8 (a byte-order mark dropped, a malformed
 * sequence replaced): `null` when the file was larger than `maxBytes` when
 * opened, which is then not read. The bytes go through one buffer kept
 * between calls, so reading many small files allocates only their text.
 *
 * @param path The file.
 * @param maxBytes The most bytes a file may have.
 * @returns Its text, or `null` when it is larger.
 * @throws {Error} As {@linkcode readRegularFile}.
 */
export function readRegularText(path: string, maxBytes: number): string | null {
  const fd = openSync(path, READ_FLAGS | O_NOFOLLOW);
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) throw new Error("not a regular file");
    if (stat.size > maxBytes) return null;
    if (stat.size > scratch.length) scratch = new Uint8Array(stat.size);
    return UTF8.decode(scratch.subarray(0, readFully(fd, scratch.subarray(0, stat.size))));
  } finally {
    closeSync(fd);
  }
}

/**
 * Open a listed file once and check the handle: a regular file whose real
 * path, resolved after the open, is inside `root` — on Linux the kernel's
 * own name for the handle; elsewhere (or for a removed file) the real path
 * of its path now, which must then name the same device and inode as the
 * handle. A file listed as a regular file is opened without following a
 * final link; a listed link is followed, and the checks after the open
 * decide. Any mismatch closes the handle and throws.
 *
 * @param root The skill folder's real path.
 * @param path The file's normalised path inside the folder.
 * @param full Its file-system path.
 * @param followLink Whether it was listed as a link (then the final link is followed).
 * @returns The handle (see {@linkcode diskHandle}).
 * @throws {ResourceReadError} `OUTSIDE_ROOT`, `NOT_A_REGULAR_FILE`,
 *   `RESOURCE_CHANGED`, `RESOURCE_GONE` or `RESOURCE_UNREADABLE`.
 */
export function openVerified(
  root: string,
  path: string,
  full: string,
  followLink: boolean,
): ResourceHandle {
  let fd: number;
  try {
    fd = openSync(full, READ_FLAGS | (followLink ? 0 : O_NOFOLLOW));
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

/**
 * A checked, open file as a {@linkcode ResourceHandle}: reads go through the
 * handle, `versionNow` asks `fstat` of it, and `close` releases it once.
 *
 * @param fd The open file.
 * @param path Its normalised path inside the skill folder (named in errors).
 * @param stat Its `fstat` at the open.
 * @param realPath Its real path inside the folder, when it differs from `path`.
 * @returns The handle.
 */
export function diskHandle(
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
      let filled: number;
      try {
        filled = readFully(fd, buffer, 0, position);
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

/**
 * Whether a real path lies inside a real folder (compared with a separator,
 * so `pdf-private/x` is not inside `pdf`).
 *
 * @param root The folder's real path.
 * @param real A real path.
 * @returns Whether `real` is below `root`.
 */
export function isInside(root: string, real: string): boolean {
  return real.startsWith(root.endsWith(sep) ? root : root + sep);
}

/**
 * The `/`-separated path of `real` inside `root`.
 *
 * @param root A folder's real path.
 * @param real A real path inside it (see {@linkcode isInside}).
 * @returns The relative path, `/`-separated on every platform.
 */
export function relativeTo(root: string, real: string): string {
  const rest = real.slice(root.endsWith(sep) ? root.length : root.length + 1);
  return sep === "/" ? rest : rest.split(sep).join("/");
}

/**
 * What kind of file an entry is, in words, for a refusal.
 *
 * @param entry A listed entry or a `stat`.
 * @returns `"a folder"`, `"a named pipe"`, `"a socket"`, `"a device"`,
 *   `"a symbolic link"` or `"not a file"`.
 */
export function kindOf(entry: Dirent | Stats): string {
  if (entry.isDirectory()) return "a folder";
  if (entry.isFIFO()) return "a named pipe";
  if (entry.isSocket()) return "a socket";
  if (entry.isCharacterDevice() || entry.isBlockDevice()) return "a device";
  if (entry.isSymbolicLink()) return "a symbolic link";
  return "not a file";
}

/**
 * A folder's entries, or `null` when it cannot be listed.
 *
 * @param dir A folder.
 * @returns Its entries (links not followed), or `null`.
 */
export function safeReaddir(dir: string): Dirent[] | null {
  try {
    return readdirSync(dir, { withFileTypes: true });
  } catch {
    return null;
  }
}

/**
 * The `lstat` of a path, or `null` when there is none.
 *
 * @param file A path.
 * @returns What it is (a final link not followed), or `null`.
 */
export function safeLstat(file: string): Stats | null {
  try {
    return lstatSync(file);
  } catch {
    return null;
  }
}

/**
 * The `stat` of a path, or `null` when there is none.
 *
 * @param file A path.
 * @returns What it leads to (links followed), or `null`.
 */
export function safeStat(file: string): Stats | null {
  try {
    return statSync(file);
  } catch {
    return null;
  }
}
