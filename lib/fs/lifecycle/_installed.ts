/**
 * Where the lifecycle may act, and what is there now. A scope has one
 * install root and one lockfile ({@linkcode placeOf}); a lock entry is the
 * lifecycle's only when its folder is exactly `<install root>/<name>` of
 * that scope ({@linkcode placeProblem}) — a lockfile comes with a cloned
 * project, and an entry naming `../anything` must not steer a delete or a
 * write there. What is at an entry's folder is read without following a
 * link ({@linkcode localState}): a link, a file or a folder whose digest is
 * not the locked one is a local change.
 *
 * Folder `lib/fs/lifecycle/` — the lifecycle: add, outdated, update, remove from git and folder sources.
 *
 * @module
 */
import { lstatSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, join, resolve } from "node:path";
import process from "node:process";
import type { InstalledFrom } from "../../core/trust/installed_from.ts";
import { type LockEntry, lockEntry, withEntries } from "../../core/trust/lockfile.ts";
import { skillManifest } from "../../core/trust/manifest.ts";
import { loadSkillFolder } from "../load/skill_folder.ts";
import { otherEntries } from "../trust/_trust_entries.ts";
import { recordedPath } from "../trust/trust_files.ts";
import type { GitOptions } from "./_git.ts";
import type { WebOptions } from "./_well_known.ts";
import type { LifecycleFs } from "./_transaction.ts";

/** Where the lifecycle works. */
export interface LifecycleOptions extends GitOptions {
  /** `project` (default: `<cwd>/.agents/skills`, lockfile `<cwd>/skills.lock.json`) or `user` (`<home>/.agents/skills`, lockfile `<home>/.agents/skills.lock.json`). */
  readonly scope?: "project" | "user";
  /** The project folder; default the working folder. */
  readonly cwd?: string;
  /** The user's home; default `os.homedir()`. */
  readonly home?: string;
  /** The lockfile; default by scope. */
  readonly lockfile?: string;
  /** The file-system steps of a change (tests pass one that fails a chosen step). */
  readonly fs?: LifecycleFs;
  /**
   * Whether `outdated` and `update` may fetch a lock entry's source (its `installed_from.url`):
   * a skill whose source this refuses is named with `UNTRUSTED_SOURCE` and the others proceed.
   * Default: every source (the CLI passes the sources the user added on this machine).
   */
  readonly trustsSource?: (url: string) => boolean;
  /** How a well-known source is fetched: timeouts, and plain http to loopback (tests only). */
  readonly web?: WebOptions;
}

/** A scope's place: the folder its root lies in, the root, the lockfile. */
export interface Place {
  readonly scope: "project" | "user";
  /** The project, or `~/.agents`: trusted as it is; below it, only real folders. */
  readonly base: string;
  readonly root: string;
  readonly lockfile: string;
}

/** The scope's base, skills root and lockfile. */
export function placeOf(options: LifecycleOptions): Place {
  const scope = options.scope ?? "project";
  const base = scope === "user"
    ? join(options.home ?? homedir(), ".agents")
    : resolve(options.cwd ?? process.cwd());
  const root = scope === "user" ? join(base, "skills") : join(base, ".agents", "skills");
  const lockfile = options.lockfile !== undefined
    ? resolve(options.cwd ?? process.cwd(), options.lockfile)
    : join(base, "skills.lock.json");
  return Object.freeze({ scope, base, root, lockfile });
}

/** A skill name safe as one folder name. */
export function safeName(name: string): boolean {
  // deno-lint-ignore no-control-regex
  return name !== "" && !name.startsWith(".") && !/[/\\:\x00-\x1f\x7f]/.test(name) &&
    name.length <= 255;
}

/** The folder a skill of this name has in the scope's root. */
export function folderOf(place: Place, name: string): string {
  return join(place.root, name);
}

/** An entry's folder as the lockfile records it: relative to the lockfile's folder. */
export function recordedFolder(place: Place, name: string): string {
  return recordedPath(dirname(place.lockfile), folderOf(place, name));
}

/**
 * Why a lock entry is not the lifecycle's to act on in this place, or
 * undefined when it is: its name must be a folder name, its scope the
 * place's, its folder exactly `<install root>/<name>`.
 *
 * @param entry The lock entry.
 * @param place The scope's place.
 * @returns The reason, or undefined.
 */
export function placeProblem(entry: LockEntry, place: Place): string | undefined {
  const expected = safeName(entry.name) ? recordedFolder(place, entry.name) : undefined;
  if ((entry.scope ?? "project") !== place.scope || entry.source !== expected) {
    return `Skill ${JSON.stringify(entry.name)} is locked at ${
      JSON.stringify(entry.source ?? null)
    } of scope ${JSON.stringify(entry.scope ?? null)}, not ${
      expected === undefined ? "a folder of the install root" : JSON.stringify(expected)
    } of scope "${place.scope}": skillset changes only <install root>/<name>`;
  }
  return undefined;
}

/** A skill folder's lock entry, computed from its files now. */
export async function entryAt(
  dir: string,
  scope: string,
  source: string,
  from: InstalledFrom | undefined,
): Promise<LockEntry> {
  const bundle = loadSkillFolder(dir, { lenient: true });
  const manifest = await skillManifest(bundle);
  const entry = await withEntries(lockEntry(manifest, { scope, source }), otherEntries(bundle));
  return Object.freeze({
    ...bundle.version === undefined ? {} : { version: bundle.version },
    ...entry,
    ...from === undefined ? {} : { installed_from: from },
  });
}

/** What is at a locked skill's folder. */
export interface LocalState {
  /** Nothing is there. */
  readonly missing: boolean;
  /** It differs from the lock entry: another digest, a link, a file, or unreadable (missing counts). */
  readonly modified: boolean;
  /** Its entry now, when it is a folder that loads. */
  readonly now?: LockEntry;
}

/**
 * What is at `dir` against its lock entry, read without following a link.
 *
 * @param dir The skill's folder (`<install root>/<name>`).
 * @param entry Its lock entry.
 * @returns Missing, modified, and its entry now.
 */
export async function localState(dir: string, entry: LockEntry): Promise<LocalState> {
  let isDir: boolean;
  try {
    const stat = lstatSync(dir);
    isDir = stat.isDirectory() && !stat.isSymbolicLink();
  } catch {
    return { missing: true, modified: true };
  }
  if (!isDir) return { missing: false, modified: true };
  try {
    const now = await entryAt(dir, entry.scope ?? "project", entry.source ?? "", undefined);
    return { modified: now.digest !== entry.digest, missing: false, now };
  } catch {
    return { modified: true, missing: false };
  }
}
