/**
 * The lifecycle's one way to change the install roots: a transaction. A
 * command stages every new skill folder in a {@linkcode StagingArea} beside
 * the root, plans each change ({@linkcode Transaction.put}: a staged folder
 * into place, or a folder out), then {@linkcode Transaction.commit} swaps
 * them in by renames — each old folder renamed aside first — and writes the
 * lockfile last (a new file, then one rename: the commit point). Any failure
 * before that point undoes every rename done, in reverse, so the tree and
 * the lockfile are as they were; folders of other roots (another agent's)
 * may join the same transaction. The folders between the base (the project,
 * or `~/.agents`) and the root are checked to be real folders, never links,
 * so nothing is written, moved or deleted through one. Every step that
 * changes the tree goes through a {@linkcode LifecycleFs}, which tests
 * replace to fail a chosen rename or write.
 *
 * Folder `lib/fs/lifecycle/` — the lifecycle: add, outdated, update, remove from git and folder sources.
 *
 * @module
 */
import {
  closeSync,
  fsyncSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  renameSync,
  rmdirSync,
  rmSync,
  unlinkSync,
  writeSync,
} from "node:fs";
import { dirname, join, relative, sep } from "node:path";
import { TrustFileError } from "../../core/trust/trust_file.ts";
import { readTrustFile } from "../trust/trust_files.ts";
import { SkillSourceError } from "./skill_source_error.ts";

/**
 * The steps of a change to the install roots and the lockfile, each a point
 * where it can fail. The lifecycle uses {@linkcode nodeLifecycleFs}; tests
 * pass one that fails a chosen step.
 */
export interface LifecycleFs {
  /** Rename a folder or file (both in one file system). */
  rename(from: string, to: string): void;
  /** Create `path` (it must not exist) holding `text`, flushed to disk. */
  writeFile(path: string, text: string): void;
}

/** The file system itself. */
export const nodeLifecycleFs: LifecycleFs = Object.freeze({
  rename: (from: string, to: string): void => renameSync(from, to),
  writeFile: (path: string, text: string): void => {
    const fd = openSync(path, "wx", 0o644);
    try {
      const bytes = new TextEncoder().encode(text);
      let written = 0;
      while (written < bytes.length) {
        written += writeSync(fd, bytes, written, bytes.length - written);
      }
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  },
});

/** Whether something (a link included) is at `path`. */
export function present(path: string): boolean {
  try {
    lstatSync(path);
    return true;
  } catch {
    return false;
  }
}

function reason(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

/**
 * A temporary folder beside an install root, on the same file system (so
 * a staged folder moves into the root by one rename), and the folders made
 * for it, removed again when empty.
 */
export class StagingArea {
  /** The temporary folder. */
  readonly dir: string;
  /** The install root it sits beside. */
  readonly root: string;
  readonly #made: readonly string[];
  #kept = false;

  private constructor(dir: string, root: string, made: readonly string[]) {
    this.dir = dir;
    this.root = root;
    this.#made = made;
  }

  /**
   * Open a staging area beside `root`, making the root and the folders
   * above it up to `base` where missing.
   *
   * @param base The folder the root lies in (the project, or `~/.agents`), trusted as it is.
   * @param root The install root.
   * @param tag A word in the temporary folder's name.
   * @returns The area; {@linkcode StagingArea.close} it.
   * @throws {SkillSourceError} `OUTSIDE_ROOT` when a folder between `base` and `root` is a link or not a folder.
   */
  static open(base: string, root: string, tag: string): StagingArea {
    const made: string[] = [];
    const rel = relative(base, root);
    if (rel.startsWith("..") || rel === "") {
      throw new RangeError(`The install root ${JSON.stringify(root)} is not inside ${base}`);
    }
    if (!present(base)) {
      mkdirSync(base, { recursive: true });
      made.push(base);
    }
    let at = base;
    for (const part of rel.split(sep)) {
      at = join(at, part);
      let isDir = false;
      let exists = true;
      try {
        const stat = lstatSync(at);
        isDir = stat.isDirectory();
        if (stat.isSymbolicLink()) isDir = false;
      } catch {
        exists = false;
      }
      if (exists && !isDir) {
        throw new SkillSourceError(
          "OUTSIDE_ROOT",
          `The install root ${JSON.stringify(root)} passes through ${
            JSON.stringify(at)
          }, a link or not a folder: skills are added, updated and removed only in real folders`,
        );
      }
      if (!exists) {
        mkdirSync(at);
        made.push(at);
      }
    }
    const dir = mkdtempSync(join(dirname(root), `.skillset-${tag}-`));
    return new StagingArea(dir, root, made);
  }

  /** A path inside the area. */
  path(name: string): string {
    return join(this.dir, name);
  }

  /** Leave the area on disk when closed (it holds what could not be put back). */
  keep(): void {
    this.#kept = true;
  }

  /** Remove the area (unless kept) and the folders made for it that are still empty. */
  close(): void {
    try {
      if (!this.#kept) rmSync(this.dir, { recursive: true, force: true });
    } catch {
      // Left behind (a temporary folder, named as one): the change itself is done or undone.
    }
    for (const dir of [...this.#made].reverse()) {
      try {
        rmdirSync(dir);
      } catch {
        // Not empty: it holds skills now.
      }
    }
  }
}

/**
 * The text of a file the transaction replaces, or undefined when nothing is
 * there; a link, a folder or another kind of file is refused.
 *
 * @throws {TrustFileError} `FOREIGN_FILE`; as `readTrustFile` reads.
 */
function ownFileText(path: string): string | undefined {
  let stat;
  try {
    stat = lstatSync(path);
  } catch {
    return undefined;
  }
  if (stat.isSymbolicLink() || !stat.isFile()) {
    throw new TrustFileError(
      "FOREIGN_FILE",
      path,
      `${
        stat.isSymbolicLink() ? "The file is a link; name the file itself" : "Not a regular file"
      }; not replaced (remove it, or name another file)`,
    );
  }
  return readTrustFile(path) ?? undefined;
}

/** One planned change: `from` (a staged folder) put at `dir`, or `dir` taken out; the old one kept in `area`. */
interface Step {
  readonly dir: string;
  readonly from: string | undefined;
  readonly area: StagingArea;
  /** Nothing was at `dir` when planned: what appears there meanwhile is not skillset's to move. */
  readonly fresh: boolean;
}

/** A temporary name beside `path`. */
function tempBeside(path: string): string {
  const random = crypto.getRandomValues(new Uint8Array(6));
  return `${path}.${Array.from(random, (b) => b.toString(16).padStart(2, "0")).join("")}.tmp`;
}

/**
 * Changes to install roots and files (the lockfile), applied all or none
 * (see the module's doc). Folders of several roots may join one
 * transaction, each kept aside in a staging area beside its own root.
 *
 * | operation | cost |
 * |---|---|
 * | `put`, `write` | O(1) |
 * | `commit` | two renames per folder; per file, one read of the old file, one write and one rename |
 */
export class Transaction {
  readonly #area: StagingArea;
  readonly #fs: LifecycleFs;
  readonly #steps: Step[] = [];
  readonly #files = new Map<string, string>();

  /**
   * A transaction keeping old folders in `area` unless told otherwise.
   *
   * @param area Where old folders are kept until the commit (same file system as the roots).
   * @param fs The file system's steps.
   */
  constructor(area: StagingArea, fs: LifecycleFs = nodeLifecycleFs) {
    this.#area = area;
    this.#fs = fs;
  }

  /** The number of folder changes planned. */
  get size(): number {
    return this.#steps.length;
  }

  /**
   * Plan a change: the folder staged at `from` put at `dir` (what is there
   * now, a link included, moved aside), or, with `from` undefined, `dir`
   * taken out.
   *
   * @param dir A folder of an install root.
   * @param from A staged folder (same file system), or undefined.
   * @param area Where the old folder is kept until the commit: a staging area beside `dir`'s root.
   * @param fresh Whether `dir` was found empty when planned (an added skill or target): then
   *   anything there at the commit appeared meanwhile, is left as it is, and fails the change.
   */
  put(
    dir: string,
    from: string | undefined,
    area: StagingArea = this.#area,
    fresh = false,
  ): void {
    this.#steps.push({ dir, from, area, fresh });
  }

  /**
   * Plan a file written whole (the lockfile), after every folder change.
   *
   * @param path The file.
   * @param text Its new text.
   */
  write(path: string, text: string): void {
    this.#files.set(path, text);
  }

  /**
   * Apply every planned change, folders first and files last; on any
   * failure, undo what was done.
   *
   * @throws {SkillSourceError} `APPLY_FAILED`, the tree and files as they were (or, when even
   *   putting back failed, saying where the old folders are kept).
   * @throws {TrustFileError} `FOREIGN_FILE` before anything changes, when a file to write (the
   *   lockfile) is a link, a folder or not a regular file.
   */
  commit(): void {
    const undo: (() => void)[] = [];
    const fs = this.#fs;
    // What each file holds now, to put back: a regular file, never read or replaced through a
    // link (docs/security.md#own-files), checked before anything changes.
    const old = new Map<string, string | undefined>();
    for (const path of this.#files.keys()) old.set(path, ownFileText(path));
    const replace = (path: string, text: string, fresh = false): void => {
      const temp = tempBeside(path);
      try {
        fs.writeFile(temp, text);
        if (fresh && present(path)) {
          throw new Error(`${JSON.stringify(path)} appeared meanwhile`);
        }
        fs.rename(temp, path);
      } catch (e) {
        try {
          unlinkSync(temp);
        } catch {
          // Never made.
        }
        throw e;
      }
    };
    try {
      this.#steps.forEach((step, i) => {
        if (present(step.dir)) {
          if (step.fresh) {
            throw new Error(
              `${
                JSON.stringify(step.dir)
              } appeared meanwhile, and skillset never moves what it did not install`,
            );
          }
          const aside = step.area.path(`old-${i}`);
          fs.rename(step.dir, aside);
          undo.push(() => fs.rename(aside, step.dir));
        }
        if (step.from !== undefined) {
          fs.rename(step.from, step.dir);
          undo.push(() => fs.rename(step.dir, step.area.path(`undone-${i}`)));
        }
      });
      for (const [path, text] of this.#files) {
        const was = old.get(path);
        replace(path, text, was === undefined);
        undo.push(() => (was === undefined ? unlinkSync(path) : replace(path, was)));
      }
    } catch (e) {
      for (const step of undo.reverse()) {
        try {
          step();
        } catch (again) {
          const areas = new Set([this.#area, ...this.#steps.map((s) => s.area)]);
          for (const area of areas) area.keep();
          throw new SkillSourceError(
            "APPLY_FAILED",
            `Cannot apply the change (${reason(e)}), nor undo it (${
              reason(again)
            }): the skills replaced or removed are kept in ${
              [...areas].map((a) => JSON.stringify(a.dir)).join(", ")
            }`,
            { cause: e },
          );
        }
      }
      throw new SkillSourceError(
        "APPLY_FAILED",
        `Cannot apply the change (${reason(e)}): the skills and the lockfile are as they were`,
        { cause: e },
      );
    }
  }
}
