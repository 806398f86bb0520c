/**
 * Discovery's scan of one root: breadth-first (so a folder is met at its
 * shallowest depth), entries in code-unit order, within the depth and folder
 * bounds, following symbolic links to folders with a cycle guard (the same
 * real folder counts once), and the alias rule for a `SKILL.md` that is a
 * link to another folder's `SKILL.md`. It reads no SKILL.md: each skill
 * folder met is handed to the caller (`discover.ts`), which reads it
 * (`_read_skill.ts`) or only records it (`findSkillFolders`).
 *
 * Folder `lib/fs/discovery/` — discovery over roots and what it found: walk, diagnostics, validation.
 *
 * @module
 */
import { basename, dirname, join, sep } from "node:path";
import type { DiscoveryEntry, DiscoveryFileSystem } from "./discovery.ts";
import { diagnostic, type SkillDiagnostic } from "./skill_diagnostic.ts";
import { SKILL_MD_NAMES } from "../load/skill_folder.ts";

/** A folder waiting to be listed. */
export interface Folder {
  /** The folder as reached from its root (through links, if any). */
  readonly path: string;
  /** Its real path. */
  readonly real: string;
  /** Its depth below the root (the root is 0). */
  readonly depth: number;
  /** The folder it was listed in (`null` for the root): the walk's way back, for the cycle check. */
  readonly parent: Folder | null;
  /** The nearest skill folder above it (as reached), or `null`. */
  readonly skill: string | null;
}

/** The bounds and file system of a scan (from `DiscoverOptions`). */
export interface Limits {
  /** How deep below a root to look; the root is depth 0. */
  readonly maxDepth: number;
  /** The most folders listed per root. */
  readonly maxFolders: number;
  /** The file system read through. */
  readonly fs: DiscoveryFileSystem;
  /** Folder names never entered. */
  readonly skip: ReadonlySet<string>;
}

/** A root as scanned: a conventional root knows the root it lies in (links may lead anywhere inside that). */
export interface ScanRoot {
  /** The scope's name. */
  readonly scope: string;
  /** The folder to scan (absolute). */
  readonly path: string;
  /** The real path a SKILL.md link must stay inside to be an alias (`null`: the root's own real path). */
  readonly within: string | null;
  /** Real folders scanned as roots of their own (conventional roots): not entered again, silently. */
  readonly scannedApart: ReadonlySet<string>;
}

/**
 * Scan one root breadth-first within the bounds, calling `onSkill` for each
 * folder that holds a `SKILL.md` (or `skill.md`) as it is met, and adding a
 * diagnostic for every folder not entered or stopped in.
 *
 * @param root The root.
 * @param limits The bounds, skip list and file system.
 * @param onSkill Called with the skill folder, its SKILL.md entry, the
 *   folder's entries and the real path an alias must stay inside.
 * @param diagnostics Where what the scan met is added.
 */
export function scanRoot(
  root: ScanRoot,
  limits: Limits,
  onSkill: (
    folder: Folder,
    skillMd: DiscoveryEntry,
    entries: readonly DiscoveryEntry[],
    within: string,
  ) => void,
  diagnostics: SkillDiagnostic[],
): void {
  const { fs, maxDepth, maxFolders, skip } = limits;
  let real: string;
  try {
    real = fs.realpath(root.path);
    if (!fs.isDirectory(real)) throw new Error("not a folder");
  } catch (e) {
    diagnostics.push(
      isPermissionError(e)
        ? diagnostic(
          "error",
          "PERMISSION_DENIED",
          root.path,
          `Permission denied: ${JSON.stringify(root.path)} cannot be read; scope ${
            JSON.stringify(root.scope)
          } has nothing from there`,
        )
        : diagnostic(
          "info",
          "ROOT_NOT_FOUND",
          root.path,
          `No folder at ${JSON.stringify(root.path)}; scope ${
            JSON.stringify(root.scope)
          } has nothing there`,
        ),
    );
    return;
  }
  const within = root.within ?? real;
  const visited = new Set<string>([real]);
  const queue: Folder[] = [{ path: root.path, real, depth: 0, parent: null, skill: null }];
  for (let head = 0; head < queue.length; head++) {
    if (head === maxFolders) {
      const left = queue.length - head;
      diagnostics.push(
        diagnostic(
          "warning",
          "FOLDER_LIMIT",
          root.path,
          `Stopped after listing ${maxFolders} folders under ${
            JSON.stringify(root.path)
          }: ${left} more ${left === 1 ? "was" : "were"} not scanned, from ${
            JSON.stringify(queue[head]!.path)
          } on (raise maxFolders to see them)`,
        ),
      );
      break;
    }
    const folder = queue[head]!;
    let entries: readonly DiscoveryEntry[];
    try {
      entries = fs.readdir(folder.real);
    } catch (e) {
      diagnostics.push(
        isPermissionError(e)
          ? diagnostic(
            folder.depth === 0 ? "error" : "warning",
            "PERMISSION_DENIED",
            folder.path,
            `Permission denied: folder ${JSON.stringify(folder.path)} cannot be listed; skipped`,
          )
          : diagnostic(
            "warning",
            "FOLDER_UNREADABLE",
            folder.path,
            `Folder ${JSON.stringify(folder.path)} could not be listed (${errorCode(e)}); skipped`,
          ),
      );
      continue;
    }
    const skillMd = skillMdEntry(entries);
    if (skillMd !== undefined) onSkill(folder, skillMd, entries, within);
    const skillAbove = skillMd !== undefined ? folder.path : folder.skill;
    // Only folders and links can lead further: files are not sorted or joined.
    const sorted = entries.filter((e) => e !== skillMd && (e.isDirectory() || e.isSymbolicLink()))
      .sort((a, b) => compare(a.name, b.name));
    let tooDeep = 0;
    for (const entry of sorted) {
      const name = entry.name;
      const path = join(folder.path, name);
      let childReal: string;
      if (entry.isDirectory()) {
        childReal = `${folder.real}${folder.real.endsWith(sep) ? "" : sep}${name}`;
      } else if (entry.isSymbolicLink()) {
        try {
          childReal = fs.realpath(path);
        } catch (e) {
          const why = errorCode(e) === "ELOOP" ? "loops" : "is broken";
          diagnostics.push(
            diagnostic(
              "warning",
              "BROKEN_LINK",
              path,
              `Link ${JSON.stringify(path)} ${why}; skipped`,
            ),
          );
          continue;
        }
        if (!isDirectory(fs, childReal)) continue;
      } else {
        continue;
      }
      if (skip.has(name)) {
        diagnostics.push(
          diagnostic(
            "info",
            "SKIPPED_FOLDER",
            path,
            `Folder ${JSON.stringify(path)} is on the skip list; not entered`,
          ),
        );
        continue;
      }
      if (root.scannedApart.has(childReal)) continue; // scanned as a root of its own
      if (visited.has(childReal)) {
        if (isAncestor(folder, childReal)) {
          diagnostics.push(
            diagnostic(
              "warning",
              "LINK_CYCLE",
              path,
              `Link ${JSON.stringify(path)} leads back to ${
                JSON.stringify(childReal)
              }, which contains it; not followed`,
            ),
          );
        } else {
          diagnostics.push(
            diagnostic(
              "info",
              "SAME_FOLDER",
              path,
              `${JSON.stringify(path)} is a folder already reached under ${
                JSON.stringify(root.path)
              }; scanned once`,
            ),
          );
        }
        continue;
      }
      if (folder.depth + 1 > maxDepth) {
        tooDeep++;
        continue;
      }
      visited.add(childReal);
      queue.push({
        path,
        real: childReal,
        depth: folder.depth + 1,
        parent: folder,
        skill: skillAbove,
      });
    }
    if (tooDeep > 0) {
      diagnostics.push(
        diagnostic(
          // Below a skill, the folders cut off are its resources (and at most nested skills): info.
          skillAbove === null ? "warning" : "info",
          "DEPTH_LIMIT",
          folder.path,
          `${tooDeep} sub-folder${tooDeep === 1 ? "" : "s"} of ${JSON.stringify(folder.path)} ${
            tooDeep === 1 ? "is" : "are"
          } deeper than ${maxDepth} under ${
            JSON.stringify(root.path)
          }; not scanned (raise maxDepth to see them)`,
        ),
      );
    }
  }
}

/**
 * Whether an error says permission was refused (EACCES, EPERM, or Deno's missing `--allow-read`).
 *
 * @param e An error thrown by the file system.
 * @returns Whether it is a refusal.
 */
export function isPermissionError(e: unknown): boolean {
  const { code, name } = (e ?? {}) as { code?: unknown; name?: unknown };
  return code === "EACCES" || code === "EPERM" || name === "NotCapable" ||
    name === "PermissionDenied";
}

/**
 * An error's code (`ENOENT`, …) for a diagnostic, else its message.
 *
 * @param e An error thrown by the file system.
 * @returns Its code or message.
 */
export function errorCode(e: unknown): string {
  const code = (e as { code?: unknown } | null)?.code;
  if (typeof code === "string") return code;
  return e instanceof Error ? e.message : String(e);
}

function skillMdEntry(entries: readonly DiscoveryEntry[]): DiscoveryEntry | undefined {
  let lower: DiscoveryEntry | undefined;
  for (const entry of entries) {
    if (entry.name === SKILL_MD_NAMES[0]) return entry;
    if (entry.name === SKILL_MD_NAMES[1]) lower = entry;
  }
  return lower;
}

function isDirectory(fs: DiscoveryFileSystem, path: string): boolean {
  try {
    return fs.isDirectory(path);
  } catch {
    return false;
  }
}

/** Whether `real` is the real path of `folder` or of a folder the walk passed to reach it. */
function isAncestor(folder: Folder, real: string): boolean {
  for (let f: Folder | null = folder; f !== null; f = f.parent) if (f.real === real) return true;
  return false;
}

/**
 * The real folder whose SKILL.md a linked SKILL.md leads to, when it is another folder inside `within`.
 *
 * @param folder The folder holding the link.
 * @param entry The SKILL.md entry (a link).
 * @param within The real path an alias must stay inside.
 * @param fs The file system.
 * @returns The other folder's real path, or `null` when the link is no alias.
 */
export function aliasTarget(
  folder: Folder,
  entry: DiscoveryEntry,
  within: string,
  fs: DiscoveryFileSystem,
): string | null {
  let real: string;
  try {
    real = fs.realpath(join(folder.real, entry.name));
  } catch {
    return null;
  }
  return !inside(folder.real, real) && inside(within, real) &&
      SKILL_MD_NAMES.includes(basename(real))
    ? dirname(real)
    : null;
}

/**
 * Whether a real path lies below a folder (compared with a separator).
 *
 * @param folder A folder's real path.
 * @param real A real path.
 * @returns Whether `real` is inside `folder`.
 */
export function inside(folder: string, real: string): boolean {
  return real.startsWith(folder.endsWith(sep) ? folder : folder + sep);
}

/**
 * Code-unit order: the order of the scan's entries and of its results.
 *
 * @param a A string.
 * @param b Another.
 * @returns Negative, zero or positive.
 */
export function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
