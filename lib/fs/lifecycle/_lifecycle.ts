/**
 * The skill lifecycle: `add` (install skills from a git repository or a
 * folder into a scope's conventional root) and `remove` (`outdated` and
 * `update` are `_update.ts`'s). Every change is one transaction
 * (`_transaction.ts`): the skills are staged beside the root, swapped in by
 * renames and the lockfile written last, or nothing changes; each skill that
 * cannot be added or removed is named with its reason and the others
 * proceed. The lockfile records where each skill came from
 * (`installed_from`, with the source's revision). Git runs as `_git.ts`
 * sets it up (nothing from the source runs); the defences against a hostile
 * source are `_source_tree.ts`'s, against a hostile lockfile
 * `_installed.ts`'s.
 *
 * Folder `lib/fs/lifecycle/` — the lifecycle: add, outdated, update, remove from git and folder sources.
 *
 * @module
 */
import { existsSync, mkdirSync, realpathSync } from "node:fs";
import { dirname, relative, resolve, sep } from "node:path";
import process from "node:process";
import type { InstalledFrom, InstallTarget } from "../../core/trust/installed_from.ts";
import {
  createLockfile,
  type LockEntry,
  type Lockfile,
  lockKey,
  renderLockfile,
} from "../../core/trust/lockfile.ts";
import { discoverSkills } from "../discovery/discover.ts";
import type { Refusal } from "./_source_tree.ts";
import { sourceOf, type SourceRef } from "./_source_kinds.ts";
import {
  entryAt,
  folderOf,
  type LifecycleOptions,
  localState,
  type Place,
  placeOf,
  placeProblem,
  recordedFolder,
  safeName,
} from "./_installed.ts";
import { present, StagingArea, Transaction } from "./_transaction.ts";
import { agentNamed } from "./_agents.ts";
import {
  agentsFor,
  checkTargets,
  describeTarget,
  planTargets,
  TargetAreas,
  targetBase,
  type TargetOptions,
} from "./_targets.ts";
import { type SkillSourceCode, SkillSourceError } from "./skill_source_error.ts";
import { readLockfile, recordedPath } from "../trust/trust_files.ts";

export type { LifecycleOptions };

function posix(path: string): string {
  return sep === "/" ? path : path.split(sep).join("/");
}

/** A message with the staged tree's path (a temporary folder, gone after) left out. */
export function untemp(message: string, tree: string): string {
  let out = message;
  for (const t of new Set([tree, safeRealpath(tree)])) {
    out = out.replaceAll(`${t}${sep}`, "").replaceAll(t, ".");
  }
  return out;
}

function safeRealpath(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

/** A new folder for a staged tree inside a staging area. */
export function treeIn(area: StagingArea, name: string): string {
  const tree = area.path(name);
  mkdirSync(tree);
  return tree;
}

/** What to add. */
export interface AddOptions extends LifecycleOptions, TargetOptions {
  /** A branch, tag or full commit; default the remote's `HEAD`. */
  readonly ref?: string;
  /** The skills to install, by name; default every skill found. */
  readonly skills?: readonly string[];
  /**
   * The source's digest the skills must have (`sha256:<hex>`): required for a well-known
   * source (its host publishes none), checked for a folder or npm source, refused for git.
   */
  readonly digest?: string;
}

/** One skill installed. */
export interface Installed {
  readonly name: string;
  /** Its folder now. */
  readonly folder: string;
  readonly digest: string;
  readonly installed_from: InstalledFrom;
  /** The link or copy made for each agent named (none for an agent reading the canonical folder). */
  readonly targets: readonly InstallTarget[];
}

/** What {@linkcode addSkills} did. */
export interface AddResult {
  readonly installed: readonly Installed[];
  /** Skill folders of the source refused (a defence, a SKILL.md that does not load, a name clash), and skills not installed (already there). */
  readonly refused: readonly Refusal[];
  /** The commit installed (undefined for a folder). */
  readonly commit: string | undefined;
  /** The source's revision: the commit (git) or the digest of its skill folders (a folder). */
  readonly revision: string;
  readonly lockfile: string;
}

/**
 * Install skills from a source (see the module's doc).
 *
 * @param source A git URL, a local repository, a folder, `npm:<package>[/<path>]` or a
 *   well-known site (`https://<host>[/<path>]`).
 * @param options The ref, the skills, the scope, the agents (each skill linked, or copied, into
 *   each agent's folder: `_targets.ts`).
 * @returns What was installed and refused (`FOREIGN_FILE`: something is already at a target's name).
 * @throws {SkillSourceError} `NO_SKILL` when the source has none (or not one named), `OUTSIDE_ROOT`
 *   when the install root or an agent's folder passes through a link, `UNKNOWN_AGENT`,
 *   `APPLY_FAILED` when the change could not be made (and was undone), `DIGEST_REQUIRED` for a
 *   well-known source without `digest`, `DIGEST_MISMATCH` when it serves another, or as git,
 *   fetching and staging do.
 */
export async function addSkills(source: string, options: AddOptions = {}): Promise<AddResult> {
  const place = placeOf(options);
  const agents = agentsFor(options.agents ?? [], place.scope);
  const base = targetBase(place, options);
  const cwd = resolve(options.cwd ?? process.cwd());
  const { kind, url } = sourceOf(source, cwd);
  const from: SourceRef = { url, ...options.ref === undefined ? {} : { ref: options.ref } };
  const area = StagingArea.open(place.base, place.root, "add");
  const areas = new TargetAreas(place, base);
  try {
    // Every agent's folder checked (and made) before the source is fetched.
    for (const agent of agents) areas.area(agent, "add");
    if (options.digest !== undefined && kind.name === "git") {
      throw new SkillSourceError(
        "REF_NOT_FOUND",
        `Source ${JSON.stringify(url)} is a git repository: pin a commit with ref, not a digest`,
      );
    }
    const staged = await kind.stage(
      from,
      treeIn(area, "tree"),
      undefined,
      options,
      options.digest,
    );
    if (kind.pinned && options.digest === undefined) {
      throw new SkillSourceError(
        "DIGEST_REQUIRED",
        `Source ${
          JSON.stringify(url)
        } publishes no digest: pin the one its publisher gives with --digest (it serves ${staged.revision} now)`,
      );
    }
    const refused: Refusal[] = [...staged.refused];
    const real = realpathSync(staged.tree);
    const folders = new Set(staged.folders);
    const discovery = discoverSkills([{ scope: "source", path: staged.tree }], {
      conventionalRoots: true,
    });
    const pathOf = (p: string): string => posix(relative(real, realpathSync(p))) || ".";
    let found = discovery.skills
      .map((s) => ({ name: s.name, path: pathOf(s.path) }))
      .filter((s) => folders.has(s.path) && !s.path.startsWith(".."));
    // Skill folders that are no skill: a SKILL.md that does not load, a name another folder won.
    const unusable: Refusal[] = [
      ...discovery.skipped.map((s) => ({
        path: pathOf(s.path),
        code: "INVALID_SKILL" as const,
        message: `Skill folder ${JSON.stringify(pathOf(s.path))} of the source cannot be loaded: ${
          untemp(s.diagnostics.map((d) => d.message).join("; ") || "no usable SKILL.md", real)
        }`,
      })),
      ...discovery.shadowed.map((s) => ({
        path: pathOf(s.path),
        code: "INVALID_SKILL" as const,
        message: `Skill folder ${JSON.stringify(pathOf(s.path))} of the source is named ${
          JSON.stringify(s.name)
        }, as ${JSON.stringify(pathOf(s.winner.path))} is, which is installed instead`,
      })),
    ].filter((r) => folders.has(r.path) && !r.path.startsWith(".."));
    if (options.skills !== undefined) {
      const missing = options.skills.filter((n) => !found.some((s) => s.name === n));
      if (missing.length > 0) {
        const why = [...refused, ...unusable];
        throw new SkillSourceError(
          "NO_SKILL",
          `No skill ${missing.map((n) => JSON.stringify(n)).join(", ")} in ${JSON.stringify(url)}${
            why.length > 0 ? ` (refused: ${why.map((r) => r.message).join("; ")})` : ""
          }; it has ${found.map((s) => JSON.stringify(s.name)).join(", ") || "none"}`,
        );
      }
      found = found.filter((s) => options.skills!.includes(s.name));
    }
    // A skill inside another one installed comes with it.
    const within = (p: string, o: string): boolean => o === "." || p.startsWith(`${o}/`);
    found = found.filter((s) => !found.some((o) => o !== s && within(s.path, o.path)));
    if (options.skills === undefined) {
      refused.push(...unusable.filter((u) => !found.some((o) => within(u.path, o.path))));
    }
    if (found.length === 0 && refused.length === 0) {
      throw new SkillSourceError("NO_SKILL", `No skill in ${JSON.stringify(url)}`);
    }
    const installed: Installed[] = [];
    const entries: LockEntry[] = [];
    const tx = new Transaction(area, options.fs);
    const refuse = (path: string, code: SkillSourceCode, message: string): void => {
      refused.push({ path, code, message });
    };
    for (const s of found) {
      if (!safeName(s.name)) {
        refuse(
          s.path,
          "UNSAFE_SOURCE",
          `Skill name ${JSON.stringify(s.name)} cannot name a folder`,
        );
        continue;
      }
      const dest = folderOf(place, s.name);
      if (present(dest) || entries.some((e) => e.name === s.name)) {
        refuse(
          s.path,
          "ALREADY_INSTALLED",
          `Skill ${JSON.stringify(s.name)} is already installed at ${
            JSON.stringify(recordedPath(dirname(place.lockfile), dest))
          }: use update, or remove it first`,
        );
        continue;
      }
      const installedFrom: InstalledFrom = kind.record({ ...from, path: s.path }, staged);
      const at = s.path === "." ? staged.tree : resolve(staged.tree, s.path);
      let entry: LockEntry;
      try {
        entry = await entryAt(at, place.scope, recordedFolder(place, s.name), installedFrom);
      } catch (e) {
        refuse(
          s.path,
          "INVALID_SKILL",
          `Skill folder ${JSON.stringify(s.path)} of the source cannot be loaded: ${
            untemp(e instanceof Error ? e.message : String(e), real)
          }`,
        );
        continue;
      }
      if (placeProblem(entry, place) !== undefined) {
        refuse(
          s.path,
          "INVALID_SKILL",
          `Skill folder ${JSON.stringify(s.path)} of the source is found as ${
            JSON.stringify(s.name)
          } but loads as ${JSON.stringify(entry.name)}`,
        );
        continue;
      }
      const targets = planTargets(
        agents,
        s.name,
        at,
        place,
        areas,
        base,
        tx,
        options.copy === true,
      );
      if ("code" in targets) {
        refuse(s.path, targets.code, targets.message);
        continue;
      }
      tx.put(dest, at, undefined, true);
      entries.push(targets.length === 0 ? entry : Object.freeze({ ...entry, targets }));
      installed.push(
        Object.freeze({
          name: s.name,
          folder: dest,
          digest: entry.digest,
          installed_from: installedFrom,
          targets,
        }),
      );
    }
    if (entries.length > 0) {
      tx.write(place.lockfile, renderLockfile(merged(place, entries, [])));
      tx.commit();
    }
    return Object.freeze({
      installed: Object.freeze(installed),
      refused: Object.freeze(refused),
      commit: kind.name === "git" ? staged.revision : undefined,
      revision: staged.revision,
      lockfile: place.lockfile,
    });
  } finally {
    areas.close();
    area.close();
  }
}

/** The lockfile of a place with `put` entries in and `drop` keys out (a new one records the scope's root). */
export function merged(place: Place, put: readonly LockEntry[], drop: readonly string[]): Lockfile {
  const file = place.lockfile;
  const old = existsSync(file) ? readLockfile(file) : undefined;
  const replaced = new Set([...put.map(lockKey), ...drop]);
  const kept = (old?.skills ?? []).filter((s) => !replaced.has(lockKey(s)));
  const roots = old === undefined
    ? [{ scope: place.scope, path: recordedPath(dirname(file), place.root) }]
    : old.roots;
  return createLockfile([...kept, ...put], roots, old?.base);
}

/**
 * A new lock with the `installed_from` (and, for an unchanged skill, the
 * `version`) of the lockfile it replaces kept, for each skill at the same folder (so `skillset lock` does not forget where
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
    old.skills.filter((s) => s.installed_from !== undefined).map((s) => [lockKey(s), s]),
  );
  if (from.size === 0) return lock;
  return createLockfile(
    lock.skills.map((s) => {
      const was = from.get(lockKey(s));
      if (was === undefined) return s;
      // The version is the SKILL.md's: kept only while the skill is the one it was read from.
      const version = was.version !== undefined && was.digest === s.digest
        ? was.version
        : undefined;
      return Object.freeze({
        ...version === undefined ? {} : { version },
        ...s,
        installed_from: was.installed_from!,
        ...was.targets === undefined ? {} : { targets: was.targets },
      });
    }),
    lock.roots,
    lock.base,
  );
}

/** A skill a command did not act on, and why. */
export interface SkillRefusal {
  readonly name: string;
  readonly code: SkillSourceCode;
  readonly message: string;
}

/** What to remove. */
export interface RemoveOptions extends LifecycleOptions {
  /** Remove a skill changed here since it was locked. */
  readonly force?: boolean;
}

/** What {@linkcode removeSkills} did. */
export interface RemoveResult {
  /** The folders removed (a skill whose folder was already gone has its entry dropped). */
  readonly removed: readonly string[];
  /** The skills left as they are, and why. */
  readonly refused: readonly SkillRefusal[];
}

/**
 * Remove installed skills, in one transaction: each folder (exactly
 * `<install root>/<name>`, never through a link) renamed aside and its lock
 * entry dropped, then the old folders deleted. A skill changed here since it
 * was locked is refused (`LOCALLY_MODIFIED`) unless `force`, its digest
 * checked before anything is deleted; an entry naming another folder is
 * refused (`OUTSIDE_ROOT`). Each agent target goes with its skill: a copy
 * changed or a link pointing elsewhere counts as a local change; a target
 * recorded at a path other than the agent's folder is refused
 * (`OUTSIDE_ROOT`) and left alone.
 *
 * @param names The skills, by name.
 * @param options The scope or lockfile, force.
 * @returns The folders removed, and the skills refused.
 * @throws {SkillSourceError} `NOT_INSTALLED` for a name the lockfile has not installed (nothing is
 *   removed then), `OUTSIDE_ROOT` for an install root through a link, `APPLY_FAILED` (undone).
 */
export async function removeSkills(
  names: readonly string[],
  options: RemoveOptions = {},
): Promise<RemoveResult> {
  const place = placeOf(options);
  const lock = readLockfile(place.lockfile);
  const chosen = lock.skills.filter((s) =>
    s.installed_from !== undefined && s.source !== undefined && names.includes(s.name)
  );
  for (const n of names) {
    if (!chosen.some((s) => s.name === n)) {
      throw new SkillSourceError(
        "NOT_INSTALLED",
        `Skill ${JSON.stringify(n)} was not installed by skillset add (not in ${
          JSON.stringify(place.lockfile)
        })`,
      );
    }
  }
  const refused: SkillRefusal[] = [];
  const removed: string[] = [];
  const drop: string[] = [];
  const base = targetBase(place, options);
  const area = StagingArea.open(place.base, place.root, "remove");
  const areas = new TargetAreas(place, base);
  try {
    const tx = new Transaction(area, options.fs);
    for (const s of chosen) {
      const problem = placeProblem(s, place);
      if (problem !== undefined) {
        refused.push({ name: s.name, code: "OUTSIDE_ROOT", message: problem });
        continue;
      }
      const targets = await checkTargets(s, place, base);
      const outside = targets.find((t) => t.state === "outside");
      if (outside !== undefined) {
        refused.push({
          name: s.name,
          code: "OUTSIDE_ROOT",
          message: describeTarget(s.name, outside),
        });
        continue;
      }
      const dir = folderOf(place, s.name);
      const local = await localState(dir, s);
      const changed = targets.filter((t) => t.state === "edited" || t.state === "retargeted");
      if (
        ((local.modified && !local.missing) || changed.length > 0) && options.force !== true
      ) {
        refused.push({
          name: s.name,
          code: "LOCALLY_MODIFIED",
          message: `Skill ${JSON.stringify(s.name)} changed here since it was locked${
            changed.map((t) => ` (${describeTarget(s.name, t)})`).join("")
          }: remove --force deletes it`,
        });
        continue;
      }
      if (!local.missing) tx.put(dir, undefined);
      for (const t of targets) {
        if (t.state === "missing") continue;
        tx.put(t.dir!, undefined, areas.area(agentNamed(t.agent)!, "remove"));
        removed.push(t.dir!);
      }
      drop.push(lockKey(s));
      removed.push(dir);
    }
    if (drop.length > 0) {
      tx.write(place.lockfile, renderLockfile(merged(place, [], drop)));
      tx.commit();
    }
  } finally {
    areas.close();
    area.close();
  }
  return Object.freeze({ removed: Object.freeze(removed), refused: Object.freeze(refused) });
}
