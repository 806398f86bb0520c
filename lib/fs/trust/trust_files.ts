/**
 * Trust files on disk (split from `trust.ts`): the lockfile
 * (`skills.lock.json`) and the JSON approval file, read through one
 * bounded, non-blocking open and written whole to a temporary file that is
 * then renamed over the old one (so no reader ever sees half a file).
 *
 * Folder `lib/fs/trust/` — trust on disk: lock, verify, approve, and the trust files.
 *
 * @module
 */
import {
  closeSync,
  fstatSync,
  fsyncSync,
  linkSync,
  lstatSync,
  openSync,
  renameSync,
  unlinkSync,
  writeSync,
} from "node:fs";
import { dirname, isAbsolute, relative, resolve, sep } from "node:path";
import {
  type ApprovalRecord,
  type ApprovalStore,
  MemoryApprovalStore,
  parseApprovals,
  renderApprovals,
} from "../../core/trust/approval.ts";
import { type Lockfile, parseLockfile, renderLockfile } from "../../core/trust/lockfile.ts";
import { MAX_TRUST_FILE_BYTES, TrustFileError } from "../../core/trust/trust_file.ts";
import { READ_FLAGS, readFully } from "../_safe_open.ts";

/** The origin of skills found on disk, in approvals. */
export const FILE_ORIGIN = "file";

/** The conventional approval file name. */
export const APPROVALS_NAME = "skills.approvals.json";

const STRICT_UTF8 = new TextDecoder("utf-8", { fatal: true });

/**
 * Read a lockfile or approval file: one open that never blocks (a named
 * pipe is refused, not waited on), a regular file only, at most 16 MiB.
 *
 * @param path The file.
 * @returns Its text, or `null` when there is no such file.
 * @throws {TrustFileError} `TOO_LARGE`; `UNREADABLE` when it is not a regular
 *   file, cannot be read or grew while read; `INVALID_JSON` when it is not UTF-8.
 */
export function readTrustFile(path: string): string | null {
  const bytes = readTrustBytes(path);
  return bytes === null ? null : trustFileText(bytes, path);
}

/**
 * The bytes of a trust file (a lockfile, its signature, a key, a signers
 * file), read as {@linkcode readTrustFile} reads: one open that never
 * blocks, a regular file only, at most `maxBytes`.
 *
 * @param path The file.
 * @param maxBytes The largest file read.
 * @returns Its bytes, or `null` when there is no such file.
 * @throws {TrustFileError} `TOO_LARGE`; `UNREADABLE` when it is not a regular
 *   file, cannot be read or grew while read.
 */
export function readTrustBytes(path: string, maxBytes = MAX_TRUST_FILE_BYTES): Uint8Array | null {
  let fd: number;
  try {
    fd = openSync(path, READ_FLAGS);
  } catch (e) {
    const code = (e as { code?: unknown }).code;
    if (code === "ENOENT") return null;
    throw new TrustFileError(
      "UNREADABLE",
      path,
      `The file cannot be read${typeof code === "string" ? ` (${code})` : ""}`,
    );
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) throw new TrustFileError("UNREADABLE", path, "Not a regular file");
    const tooLarge = () =>
      new TrustFileError("TOO_LARGE", path, `The file is over ${maxBytes} bytes`);
    if (stat.size > maxBytes) throw tooLarge();
    const buffer = new Uint8Array(Math.min(stat.size, maxBytes) + 1);
    const filled = readFully(fd, buffer);
    if (filled > stat.size) {
      throw new TrustFileError("UNREADABLE", path, "The file grew while it was being read");
    }
    if (filled > maxBytes) throw tooLarge();
    return buffer.subarray(0, filled);
  } finally {
    closeSync(fd);
  }
}

/**
 * The text of a trust file's bytes: strict UTF-8, a leading byte order mark dropped.
 *
 * @param bytes The file's bytes.
 * @param path The file, for the error.
 * @returns Its text.
 * @throws {TrustFileError} `INVALID_JSON` when it is not UTF-8.
 */
export function trustFileText(bytes: Uint8Array, path: string): string {
  let text: string;
  try {
    text = STRICT_UTF8.decode(bytes);
  } catch {
    throw new TrustFileError("INVALID_JSON", path, "The file is not valid UTF-8");
  }
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

/**
 * Write a file whole: to a new temporary file beside it (created
 * exclusively), flushed, then renamed over `path`. A reader sees the old
 * file or the new one, never part of either; of concurrent writers, the
 * last rename wins.
 *
 * @param path The file.
 * @param text Its new text.
 * @throws {Error} The file system's error when the folder cannot be written.
 */
export function writeFileAtomically(path: string, text: string): void {
  placeFile(path, text, false);
}

/**
 * Write `text` to a new temporary file beside `path`, then put it at
 * `path`: renamed over it, or (`fresh`) linked there, which fails with
 * `EEXIST` rather than replace a file that appeared meanwhile.
 */
function placeFile(path: string, text: string, fresh: boolean): void {
  const random = crypto.getRandomValues(new Uint8Array(6));
  const tag = Array.from(random, (b) => b.toString(16).padStart(2, "0")).join("");
  const temp = `${path}.${tag}.tmp`;
  const fd = openSync(temp, "wx", 0o644);
  let done = false;
  try {
    const bytes = new TextEncoder().encode(text);
    let written = 0;
    while (written < bytes.length) written += writeSync(fd, bytes, written, bytes.length - written);
    fsyncSync(fd);
    closeSync(fd);
    if (fresh) {
      linkSync(temp, path);
      unlinkSync(temp);
    } else renameSync(temp, path);
    done = true;
  } finally {
    if (!done) {
      try {
        closeSync(fd);
      } catch {
        // Already closed.
      }
      try {
        unlinkSync(temp);
      } catch {
        // Already gone.
      }
    }
  }
}

/**
 * Write a file of skillset's own kind (a lockfile, an approval file, a
 * signature) whole, never over a file of another kind
 * (`docs/security.md#own-files`): where nothing is, the file is created
 * exclusively (a file that appears meanwhile is not replaced); where a
 * regular file is, it is replaced atomically only when `ours` recognises
 * its text; a link, a folder or any other file is refused.
 *
 * @param path The file.
 * @param text Its new text.
 * @param kind What it is, for the error (`lockfile`).
 * @param ours Whether the text of the file there now is of this kind.
 * @throws {TrustFileError} `FOREIGN_FILE` when the path holds anything else
 *   (or a file appeared there while it was written); as {@linkcode readTrustFile}.
 * @throws {Error} The file system's error when the folder cannot be written.
 */
export function writeOwnFile(
  path: string,
  text: string,
  kind: string,
  ours: (text: string) => boolean,
): void {
  const foreign = (why: string) =>
    new TrustFileError(
      "FOREIGN_FILE",
      path,
      `${why}; not replaced (remove it, or name another file)`,
    );
  let exists = true;
  try {
    const stat = lstatSync(path);
    if (stat.isSymbolicLink()) throw foreign(`The ${kind} is a link; name the file itself`);
    if (!stat.isFile()) throw foreign(`Not a regular file, so not a ${kind}`);
  } catch (e) {
    if ((e as { code?: unknown }).code !== "ENOENT") throw e;
    exists = false;
  }
  if (exists) {
    let own: boolean;
    try {
      own = ours(readTrustFile(path) ?? "");
    } catch {
      own = false;
    }
    if (!own) throw foreign(`The file is not a ${kind}`);
    placeFile(path, text, false);
    return;
  }
  try {
    placeFile(path, text, true);
  } catch (e) {
    if ((e as { code?: unknown }).code === "EEXIST") {
      throw foreign("A file appeared here meanwhile");
    }
    throw e;
  }
}

/** Whether a text is a lockfile of some version: a JSON object with `version` and `skills`. */
function looksLikeLockfile(text: string): boolean {
  const data: unknown = JSON.parse(text);
  return typeof data === "object" && data !== null && !Array.isArray(data) &&
    Object.hasOwn(data, "version") && Object.hasOwn(data, "skills");
}

/**
 * Read and check a lockfile.
 *
 * @param path The lockfile.
 * @returns The lockfile.
 * @throws {TrustFileError} `NOT_FOUND` when there is none, or as {@linkcode parseLockfile}.
 */
export function readLockfile(path: string): Lockfile {
  const text = readTrustFile(path);
  if (text === null) {
    throw new TrustFileError("NOT_FOUND", path, "No lockfile here: run `skillset lock` first");
  }
  return parseLockfile(text, path);
}

/**
 * Write a lockfile atomically, only where there is none or a lockfile
 * (see {@linkcode writeOwnFile}).
 *
 * @param path The lockfile.
 * @param lock Its content.
 * @throws {TrustFileError} `FOREIGN_FILE` when the path holds another kind of file or a link.
 */
export function writeLockfile(path: string, lock: Lockfile): void {
  writeOwnFile(path, renderLockfile(lock), "lockfile", looksLikeLockfile);
}

/** A skill folder's path as a lockfile or approval file beside `base` records it: relative, `/`-separated. */
export function recordedPath(base: string, folder: string): string {
  const rel = relative(resolve(base), resolve(folder));
  const path = rel === "" ? "." : rel;
  return sep === "/" ? path : path.split(sep).join("/");
}

/**
 * Approvals in a JSON file (`{ "version": 1, "approvals": [...] }`). Folders
 * are recorded relative to the file's folder, so the file can be kept with
 * a project. The file is read when the store is made (a missing file is no
 * approval, a malformed one a {@linkcode TrustFileError}); each `put` reads
 * it again, merges, and writes it atomically.
 *
 * | operation | cost |
 * |---|---|
 * | `get` | O(1) |
 * | `put` | one read and one atomic write of the file |
 */
export class JsonFileApprovalStore implements ApprovalStore {
  /** The file. */
  readonly path: string;
  #store: MemoryApprovalStore;

  /**
   * Open an approval file (reading it now).
   *
   * @param path The approval file (created by the first `put`).
   * @throws {TrustFileError} When the file exists but is malformed, too large or unreadable.
   */
  constructor(path: string) {
    this.path = resolve(path);
    this.#store = this.#read();
  }

  /**
   * The approval recorded for a skill.
   *
   * @param origin `file` or a server label.
   * @param path The skill's folder (absolute, or relative to the working folder) or URI.
   * @returns The approval, or `undefined`.
   */
  get(origin: string, path: string): ApprovalRecord | undefined {
    return this.#store.get(origin, this.#key(origin, path));
  }

  /**
   * Record an approval: read the file again, merge, write it atomically.
   *
   * @param record The approval.
   * @throws {TrustFileError} When the file became malformed since.
   */
  put(record: ApprovalRecord): void {
    const store = this.#read();
    store.put({ ...record, path: this.#key(record.origin, record.path) });
    writeOwnFile(this.path, renderApprovals(store.records()), "approval file", (text) => {
      parseApprovals(text, this.path);
      return true;
    });
    this.#store = store;
  }

  /** Every approval, as recorded in the file (folders relative to it). */
  records(): readonly ApprovalRecord[] {
    return this.#store.records();
  }

  #key(origin: string, path: string): string {
    return origin === FILE_ORIGIN && (isAbsolute(path) || !path.includes("://"))
      ? recordedPath(dirname(this.path), path)
      : path;
  }

  #read(): MemoryApprovalStore {
    const text = readTrustFile(this.path);
    return new MemoryApprovalStore(text === null ? [] : parseApprovals(text, this.path));
  }
}
