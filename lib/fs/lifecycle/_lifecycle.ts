/**
 * The skill lifecycle: `add` (install skills from a git repository or a
 * folder into a scope's conventional root) and `remove`, and the steps
 * `outdated` and `update` share with them (`_update.ts`). Each skill is staged
 * in a temporary folder beside the root and moved into place by one rename,
 * so a failure never leaves half a skill; the lockfile records where each
 * came from (`installed_from`) and is written atomically. Git runs as
 * `_git.ts` sets it up (nothing from the source runs); the defences against
 * a hostile source are `_source_tree.ts`'s.
 *
 * Folder `lib/fs/lifecycle/` — the lifecycle: add, outdated, update, remove from git and folder sources.
 *
 * @module
 */
import {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  realpathSync,
  renameSync,
  rmSync,
  statSync,
} from "node:fs";
import { homedir } from "node:os";
import { dirname, join, relative, resolve, sep } from "node:path";
import process from "node:process";
import type { InstalledFrom } from "../../core/trust/installed_from.ts";
import {
  createLockfile,
  type LockEntry,
  lockEntry,
  type Lockfile,
  lockKey,
  withEntries,
} from "../../core/trust/lockfile.ts";
import { skillManifest } from "../../core/trust/manifest.ts";
import { discoverSkills } from "../discovery/discover.ts";
import { dropSnapshot, fetchSnapshot, type GitOptions, listTree, type Snapshot } from "./_git.ts";
import {
  folderSource,
  gitSource,
  type Refusal,
  type Source,
  SOURCE_ENTRY_LIMIT,
  stageSkills,
} from "./_source_tree.ts";
import { otherEntries } from "../trust/_trust_entries.ts";
import { loadSkillFolder } from "../load/skill_folder.ts";
import { SkillSourceError } from "./skill_source_error.ts";
import { readLockfile, recordedPath, writeLockfile } from "../trust/trust_files.ts";

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
}

/** The scope's skills root and lockfile. */
export function placeOf(
  options: LifecycleOptions,
): { scope: string; root: string; lockfile: string } {
  const scope = options.scope ?? "project";
  const base = scope === "user"
    ? join(options.home ?? homedir(), ".agents")
    : resolve(options.cwd ?? process.cwd());
  const root = scope === "user" ? join(base, "skills") : join(base, ".agents", "skills");
  const lockfile = options.lockfile !== undefined
    ? resolve(options.cwd ?? process.cwd(), options.lockfile)
    : join(base, scope === "user" ? "skills.lock.json" : "skills.lock.json");
  return { scope, root, lockfile };
}

/** A local folder that is a git repository (a work tree or a bare one). */
function isGitFolder(path: string): boolean {
  return existsSync(join(path, ".git")) ||
    (existsSync(join(path, "HEAD")) && existsSync(join(path, "objects")) &&
      existsSync(join(path, "refs")));
}

/** A source as given: a local folder (git or plain, by its absolute path) or a URL git takes. */
function sourceOf(source: string, cwd: string): { url: string; git: boolean } {
  const local = resolve(cwd, source);
  let folder = false;
  try {
    folder = statSync(local).isDirectory();
  } catch {
    folder = false;
  }
  if (folder) return { url: local, git: isGitFolder(local) };
  return { url: source, git: true };
}

export function tempBeside(root: string, tag: string): string {
  mkdirSync(dirname(root), { recursive: true });
  return mkdtempSync(join(dirname(root), `.skillset-${tag}-`));
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
  return from === undefined ? entry : Object.freeze({ ...entry, installed_from: from });
}

/** A skill name safe as one folder name. */
function safeName(name: string): boolean {
  // deno-lint-ignore no-control-regex
  return name !== "" && !name.startsWith(".") && !/[/\\\x00-\x1f\x7f]/.test(name) &&
    name.length <= 255;
}

function posix(path: string): string {
  return sep === "/" ? path : path.split(sep).join("/");
}

/** A fetched or opened source, staged: the folders written and refused. */
export interface StagedSource {
  readonly tree: string;
  readonly commit: string | undefined;
  readonly folders: readonly string[];
  readonly refused: readonly Refusal[];
}

export async function stageSource(
  url: string,
  git: boolean,
  ref: string | undefined,
  stage: string,
  only: readonly string[] | undefined,
  options: GitOptions,
  expect?: string,
): Promise<StagedSource> {
  const tree = join(stage, "tree");
  mkdirSync(tree);
  if (!git) {
    if (ref !== undefined) {
      throw new SkillSourceError(
        "REF_NOT_FOUND",
        `Source ${JSON.stringify(url)} is a folder, not a git repository: it has no ref ${
          JSON.stringify(ref)
        }`,
      );
    }
    const staged = await stageSkills(folderSource(url), tree, only);
    return { tree, commit: undefined, ...staged };
  }
  let snapshot: Snapshot | undefined;
  try {
    snapshot = await fetchSnapshot(url, ref, options);
    if (expect !== undefined && snapshot.commit !== expect) {
      throw new SkillSourceError(
        "SOURCE_MOVED",
        `Source ${JSON.stringify(url)} moved: ${
          ref ?? "HEAD"
        } is at ${snapshot.commit}, not ${expect}`,
      );
    }
    const source: Source = gitSource(
      snapshot,
      await listTree(snapshot, options, SOURCE_ENTRY_LIMIT),
      options,
    );
    const staged = await stageSkills(source, tree, only);
    return { tree, commit: snapshot.commit, ...staged };
  } finally {
    if (snapshot !== undefined) dropSnapshot(snapshot);
  }
}

/** What to add. */
export interface AddOptions extends LifecycleOptions {
  /** A branch, tag or full commit; default the remote's `HEAD`. */
  readonly ref?: string;
  /** The skills to install, by name; default every skill found. */
  readonly skills?: readonly string[];
}

/** One skill installed. */
export interface Installed {
  readonly name: string;
  /** Its folder now. */
  readonly folder: string;
  readonly digest: string;
  readonly installed_from: InstalledFrom;
}

/** What {@linkcode addSkills} did. */
export interface AddResult {
  readonly installed: readonly Installed[];
  /** Skill folders of the source refused, and skills not installed (already there). */
  readonly refused: readonly Refusal[];
  /** The commit installed (undefined for a folder). */
  readonly commit: string | undefined;
  readonly lockfile: string;
}

/**
 * Install skills from a source (see the module's doc).
 *
 * @param source A git URL, a local repository or a folder.
 * @param options The ref, the skills, the scope.
 * @returns What was installed and refused.
 * @throws {SkillSourceError} `NO_SKILL` when the source has none (or not one named), or as git and staging do.
 */
export async function addSkills(source: string, options: AddOptions = {}): Promise<AddResult> {
  const { scope, root, lockfile } = placeOf(options);
  const cwd = resolve(options.cwd ?? process.cwd());
  const { url, git } = sourceOf(source, cwd);
  const stage = tempBeside(root, "add");
  try {
    const staged = await stageSource(url, git, options.ref, stage, undefined, options);
    const refused: Refusal[] = [...staged.refused];
    const real = realpathSync(staged.tree);
    const folders = new Set(staged.folders);
    const discovery = discoverSkills([{ scope: "source", path: staged.tree }], {
      conventionalRoots: true,
    });
    let found = discovery.skills
      .map((s) => ({ name: s.name, path: posix(relative(real, realpathSync(s.path))) || "." }))
      .filter((s) => folders.has(s.path) && !s.path.startsWith(".."));
    if (options.skills !== undefined) {
      const missing = options.skills.filter((n) => !found.some((s) => s.name === n));
      if (missing.length > 0) {
        throw new SkillSourceError(
          "NO_SKILL",
          `No skill ${missing.map((n) => JSON.stringify(n)).join(", ")} in ${JSON.stringify(url)}${
            refused.length > 0 ? ` (refused: ${refused.map((r) => r.message).join("; ")})` : ""
          }; it has ${found.map((s) => JSON.stringify(s.name)).join(", ") || "none"}`,
        );
      }
      found = found.filter((s) => options.skills!.includes(s.name));
    }
    // A skill inside another one installed comes with it.
    found = found.filter((s) =>
      !found.some((o) => o !== s && (o.path === "." || s.path.startsWith(`${o.path}/`)))
    );
    if (found.length === 0 && refused.length === 0) {
      throw new SkillSourceError("NO_SKILL", `No skill in ${JSON.stringify(url)}`);
    }
    const base = dirname(lockfile);
    const installed: Installed[] = [];
    const entries: LockEntry[] = [];
    mkdirSync(root, { recursive: true });
    for (const s of found) {
      const dest = join(root, s.name);
      if (!safeName(s.name)) {
        refused.push({
          path: s.path,
          code: "UNSAFE_SOURCE",
          message: `Skill name ${JSON.stringify(s.name)} cannot name a folder`,
        });
        continue;
      }
      if (existsSync(dest) || isLink(dest)) {
        refused.push({
          path: s.path,
          code: "ALREADY_INSTALLED",
          message: `Skill ${JSON.stringify(s.name)} is already installed at ${
            JSON.stringify(recordedPath(base, dest))
          }: use update, or remove it first`,
        });
        continue;
      }
      const from: InstalledFrom = Object.freeze({
        url,
        ...options.ref === undefined ? {} : { ref: options.ref },
        ...staged.commit === undefined ? {} : { commit: staged.commit },
        path: s.path,
      });
      const at = s.path === "." ? staged.tree : join(staged.tree, s.path);
      const entry = await entryAt(at, scope, recordedPath(base, dest), from);
      renameSync(at, dest);
      entries.push(entry);
      installed.push(
        Object.freeze({ name: s.name, folder: dest, digest: entry.digest, installed_from: from }),
      );
    }
    if (entries.length > 0) writeLockfile(lockfile, merged(lockfile, scope, root, entries, []));
    return Object.freeze({
      installed: Object.freeze(installed),
      refused: Object.freeze(refused),
      commit: staged.commit,
      lockfile,
    });
  } finally {
    rmSync(stage, { recursive: true, force: true });
  }
}

export function isLink(path: string): boolean {
  try {
    return lstatSync(path).isSymbolicLink();
  } catch {
    return false;
  }
}

/** The lockfile with `put` entries in and `drop` keys out (a new one records the scope's root). */
export function merged(
  file: string,
  scope: string,
  root: string,
  put: readonly LockEntry[],
  drop: readonly string[],
): Lockfile {
  const old = existsSync(file) ? readLockfile(file) : undefined;
  const replaced = new Set([...put.map(lockKey), ...drop]);
  const kept = (old?.skills ?? []).filter((s) => !replaced.has(lockKey(s)));
  const roots = old === undefined
    ? [{ scope, path: recordedPath(dirname(file), root) }]
    : old.roots;
  return createLockfile([...kept, ...put], roots);
}

/**
 * A new lock with the `installed_from` of the lockfile it replaces kept, for
 * each skill at the same folder (so `skillset lock` does not forget where
 * installed skills came from). An unreadable old lockfile gives none.
 *
 * @param lock The new lock.
 * @param file The lockfile about to be replaced.
 * @returns The lock, with provenance where the old one had it.
 */
export function keepInstalledFrom(lock: Lockfile, file: string): Lockfile {
  let old: Lockfile;
  try {
    if (!existsSync(file)) return lock;
    old = readLockfile(file);
  } catch {
    return lock;
  }
  const from = new Map(
    old.skills.filter((s) => s.installed_from !== undefined).map((
      s,
    ) => [lockKey(s), s.installed_from!]),
  );
  if (from.size === 0) return lock;
  return createLockfile(
    lock.skills.map((s) => {
      const f = from.get(lockKey(s));
      return f === undefined ? s : Object.freeze({ ...s, installed_from: f });
    }),
    lock.roots,
  );
}

/**
 * Remove installed skills: each folder renamed aside, then deleted; its
 * lock entry dropped.
 *
 * @param names The skills, by name.
 * @param options The scope or lockfile.
 * @returns The folders removed.
 * @throws {SkillSourceError} `NOT_INSTALLED` for a name the lockfile has not installed (nothing is removed then).
 */
export function removeSkills(
  names: readonly string[],
  options: LifecycleOptions = {},
): readonly string[] {
  const { scope, root, lockfile } = placeOf(options);
  const lock = readLockfile(lockfile);
  const base = dirname(lockfile);
  const chosen = lock.skills.filter((s) =>
    s.installed_from !== undefined && s.source !== undefined && names.includes(s.name)
  );
  for (const n of names) {
    if (!chosen.some((s) => s.name === n)) {
      throw new SkillSourceError(
        "NOT_INSTALLED",
        `Skill ${JSON.stringify(n)} was not installed by skillset add (not in ${
          JSON.stringify(lockfile)
        })`,
      );
    }
  }
  const removed: string[] = [];
  for (const s of chosen) {
    const dir = resolve(base, s.source!);
    if (existsSync(dir) || isLink(dir)) {
      const stage = tempBeside(dir, "remove");
      try {
        renameSync(dir, join(stage, "old"));
      } finally {
        rmSync(stage, { recursive: true, force: true });
      }
    }
    removed.push(dir);
  }
  writeLockfile(lockfile, merged(lockfile, scope, root, [], chosen.map(lockKey)));
  return Object.freeze(removed);
}
