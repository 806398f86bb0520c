/**
 * The skill lifecycle's `outdated` (each installed skill stale upstream,
 * modified here, both, or neither — read-only, one `git ls-remote` per
 * source) and `update` (one fetch per source and ref, a file-level diff
 * against the local copy, then the new version moved into place by renames
 * and the lockfile rewritten; a local change refused without `force`).
 *
 * Folder `lib/fs/lifecycle/` — the lifecycle: add, outdated, update, remove from git and folder sources.
 *
 * @module
 */
import { existsSync, mkdirSync, renameSync, rmSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import type { InstalledFrom } from "../../core/trust/installed_from.ts";
import type { LockEntry } from "../../core/trust/lockfile.ts";
import { COMMIT_PATTERN, listRemoteRefs, resolveRef } from "./_git.ts";
import {
  entryAt,
  isLink,
  type LifecycleOptions,
  merged,
  placeOf,
  type StagedSource,
  stageSource,
  tempBeside,
} from "./_lifecycle.ts";
import { type FileDiff, skillDiff } from "./_skill_diff.ts";
import { SkillSourceError } from "./skill_source_error.ts";
import { readLockfile, writeLockfile } from "../trust/trust_files.ts";

/** A locked skill's standing against its source. */
export interface OutdatedSkill {
  readonly name: string;
  /** Its folder, as the lockfile records it. */
  readonly source: string;
  readonly installed_from: InstalledFrom;
  /** The commit the source's ref is at now (git). */
  readonly remote_commit?: string;
  /** The upstream changed since it was installed. */
  readonly stale: boolean;
  /** The local copy differs from its lock entry (or is missing). */
  readonly modified: boolean;
  /** The local folder is gone. */
  readonly missing: boolean;
  /** `up_to_date`, `stale`, `modified`, `stale_modified`, or `unknown` (the source could not be reached: see `error`). */
  readonly state: "up_to_date" | "stale" | "modified" | "stale_modified" | "unknown";
  /** Why the state is unknown. */
  readonly error?: { readonly code: string; readonly message: string };
}

function stateOf(stale: boolean, modified: boolean): OutdatedSkill["state"] {
  return stale ? (modified ? "stale_modified" : "stale") : modified ? "modified" : "up_to_date";
}

/** Whether the folder at `dir` differs from `entry` (missing counts). */
async function localChange(
  dir: string,
  entry: LockEntry,
): Promise<{ modified: boolean; missing: boolean; now?: LockEntry }> {
  if (!existsSync(dir)) return { modified: true, missing: true };
  try {
    const now = await entryAt(dir, entry.scope ?? "project", entry.source ?? "", undefined);
    return { modified: now.digest !== entry.digest, missing: false, now };
  } catch {
    return { modified: true, missing: false };
  }
}

/**
 * Report every installed skill of a lockfile against its source: one
 * `git ls-remote` per distinct URL (none for a skill pinned to a commit),
 * then, where the commit moved, one fetch per URL, ref and commit to compare
 * each skill's files; writes nothing outside a temporary folder.
 *
 * @param options The scope or lockfile, how to run git.
 * @returns The skills, in the lockfile's order.
 * @throws {TrustFileError} When there is no lockfile or it is malformed.
 */
export async function outdatedSkills(
  options: LifecycleOptions = {},
): Promise<readonly OutdatedSkill[]> {
  const { lockfile } = placeOf(options);
  const lock = readLockfile(lockfile);
  const installed = lock.skills.filter((s) =>
    s.installed_from !== undefined && s.source !== undefined
  );
  const refs = new Map<string, Promise<ReadonlyMap<string, string>>>();
  for (const s of installed) {
    const from = s.installed_from!;
    const pinned = from.ref !== undefined && COMMIT_PATTERN.test(from.ref);
    if (from.commit !== undefined && !pinned && !refs.has(from.url)) {
      const got = listRemoteRefs(from.url, options);
      got.catch(() => {}); // read below, per skill
      refs.set(from.url, got);
    }
  }
  // Each skill's remote commit, then one fetch per source and commit that moved: the skill is
  // stale when its files there differ from what was installed, not merely when the commit moved.
  const remotes = new Map<LockEntry, string | Error>();
  for (const s of installed) {
    const from = s.installed_from!;
    if (from.commit === undefined) continue;
    try {
      const remote = refs.has(from.url)
        ? resolveRef(await refs.get(from.url)!, from.ref)
        : from.ref;
      remotes.set(
        s,
        remote ?? new SkillSourceError(
          "REF_NOT_FOUND",
          `Source ${JSON.stringify(from.url)} has no ref ${JSON.stringify(from.ref ?? "HEAD")}`,
        ),
      );
    } catch (e) {
      remotes.set(s, e instanceof Error ? e : new Error(String(e)));
    }
  }
  const upstream = await upstreamDigests(installed, remotes, options);
  const out: OutdatedSkill[] = [];
  for (const s of installed) {
    const from = s.installed_from!;
    const local = await localChange(resolve(dirname(lockfile), s.source!), s);
    const base = {
      name: s.name,
      source: s.source!,
      installed_from: from,
      modified: local.modified,
      missing: local.missing,
    };
    try {
      let stale: boolean;
      const remote = remotes.get(s);
      if (remote instanceof Error) throw remote;
      if (from.commit === undefined) {
        // A folder source: stale when its skill differs from what was installed.
        const there = join(from.url, from.path);
        stale = !existsSync(there) ||
          (await entryAt(there, "source", ".", undefined)).digest !== s.digest;
      } else if (remote === from.commit) stale = false;
      else {
        const there = upstream.get(s);
        if (there instanceof Error) throw there;
        stale = there !== s.digest;
      }
      out.push(
        Object.freeze({
          ...base,
          ...remote === undefined ? {} : { remote_commit: remote },
          stale,
          state: stateOf(stale, local.modified),
        }),
      );
    } catch (e) {
      out.push(Object.freeze({
        ...base,
        stale: false,
        state: "unknown" as const,
        error: {
          code: e instanceof SkillSourceError ? e.code : "GIT_FAILED",
          message: e instanceof Error ? e.message : String(e),
        },
      }));
    }
  }
  return Object.freeze(out);
}

/**
 * The digest of each skill at its source's new commit (undefined when the
 * skill is gone there), by one fetch per source, ref and commit.
 */
async function upstreamDigests(
  installed: readonly LockEntry[],
  remotes: ReadonlyMap<LockEntry, string | Error>,
  options: LifecycleOptions,
): Promise<Map<LockEntry, string | undefined | Error>> {
  const groups = new Map<string, LockEntry[]>();
  for (const s of installed) {
    const remote = remotes.get(s);
    if (typeof remote !== "string" || remote === s.installed_from!.commit) continue;
    const key = JSON.stringify([s.installed_from!.url, s.installed_from!.ref ?? null, remote]);
    groups.set(key, [...groups.get(key) ?? [], s]);
  }
  const out = new Map<LockEntry, string | undefined | Error>();
  for (const [key, group] of groups) {
    const [url, ref, remote] = JSON.parse(key) as [string, string | null, string];
    const stage = tempBeside(placeOf(options).root, "outdated");
    try {
      const staged = await stageSource(
        url,
        true,
        ref ?? undefined,
        stage,
        group.map((s) => s.installed_from!.path),
        options,
        remote,
      );
      for (const s of group) {
        const path = s.installed_from!.path;
        const refusal = staged.refused.find((r) => r.path === path);
        if (refusal !== undefined) {
          out.set(s, new SkillSourceError(refusal.code, refusal.message));
        } else if (!staged.folders.includes(path)) out.set(s, undefined);
        else {
          const at = path === "." ? staged.tree : join(staged.tree, path);
          out.set(s, (await entryAt(at, s.scope ?? "project", s.source!, undefined)).digest);
        }
      }
    } catch (e) {
      for (const s of group) out.set(s, e instanceof Error ? e : new Error(String(e)));
    } finally {
      rmSync(stage, { recursive: true, force: true });
    }
  }
  return out;
}

/** What to update. */
export interface UpdateOptions extends LifecycleOptions {
  /** Show what would change; write nothing. */
  readonly preview?: boolean;
  /** Overwrite a skill changed locally. */
  readonly force?: boolean;
  /** Apply only if each source's ref is still at this commit (as `outdated` or a preview reported it). */
  readonly commit?: string;
}

/** One skill's update. */
export interface UpdatedSkill {
  readonly name: string;
  readonly source: string;
  readonly installed_from: InstalledFrom;
  /** The commit (git) it would move to. */
  readonly to_commit?: string;
  /** `updated`, `would_update` (preview), `up_to_date`, or `refused` (see `error`). */
  readonly status: "updated" | "would_update" | "up_to_date" | "refused";
  /** The local copy differs from its lock entry. */
  readonly modified: boolean;
  /** Each file that changes (from the local copy to the update). */
  readonly files: readonly FileDiff[];
  readonly error?: { readonly code: string; readonly message: string };
}

/**
 * Update installed skills from their sources: one fetch per distinct URL and
 * ref, a file-level diff against the local copy, then (unless `preview`)
 * the new version moved into place and the lockfile rewritten. A skill
 * changed locally is refused unless `force`.
 *
 * @param names The skills, by name; default every installed one.
 * @param options Preview, force, the expected commit, the scope.
 * @returns Each skill's update.
 * @throws {SkillSourceError} `NOT_INSTALLED` for a name the lockfile has not installed.
 * @throws {TrustFileError} When there is no lockfile or it is malformed.
 */
export async function updateSkills(
  names: readonly string[],
  options: UpdateOptions = {},
): Promise<readonly UpdatedSkill[]> {
  const { scope, root, lockfile } = placeOf(options);
  const lock = readLockfile(lockfile);
  const installed = lock.skills.filter((s) =>
    s.installed_from !== undefined && s.source !== undefined
  );
  for (const n of names) {
    if (!installed.some((s) => s.name === n)) {
      throw new SkillSourceError(
        "NOT_INSTALLED",
        `Skill ${JSON.stringify(n)} was not installed by skillset add (not in ${
          JSON.stringify(lockfile)
        })`,
      );
    }
  }
  const chosen = names.length === 0 ? installed : installed.filter((s) => names.includes(s.name));
  const groups = new Map<string, LockEntry[]>();
  for (const s of chosen) {
    const f = s.installed_from!;
    const key = JSON.stringify([f.url, f.commit === undefined, f.ref ?? null]);
    groups.set(key, [...groups.get(key) ?? [], s]);
  }
  const base = dirname(lockfile);
  const out: UpdatedSkill[] = [];
  const put: LockEntry[] = [];
  for (const group of groups.values()) {
    const from = group[0]!.installed_from!;
    const stage = tempBeside(root, "update");
    try {
      let staged: StagedSource;
      try {
        staged = await stageSource(
          from.url,
          from.commit !== undefined,
          from.ref,
          stage,
          group.map((s) => s.installed_from!.path),
          options,
          options.commit,
        );
      } catch (e) {
        if (!(e instanceof SkillSourceError)) throw e;
        for (const s of group) {
          const local = await localChange(resolve(base, s.source!), s);
          out.push(refusedUpdate(s, local.modified, e.code, e.message));
        }
        continue;
      }
      for (const s of group) {
        const dir = resolve(base, s.source!);
        const f = s.installed_from!;
        const local = await localChange(dir, s);
        const refusal = staged.refused.find((r) => r.path === f.path);
        if (refusal !== undefined || !staged.folders.includes(f.path)) {
          out.push(
            refusedUpdate(
              s,
              local.modified,
              refusal?.code ?? "NO_SKILL",
              refusal?.message ??
                `No skill at ${JSON.stringify(f.path)} in ${JSON.stringify(f.url)} now`,
            ),
          );
          continue;
        }
        const at = f.path === "." ? staged.tree : join(staged.tree, f.path);
        const to: InstalledFrom = Object.freeze({
          ...f,
          ...staged.commit === undefined ? {} : { commit: staged.commit },
        });
        const next = await entryAt(at, s.scope ?? scope, s.source!, to);
        const files = skillDiff(
          { dir: local.missing ? undefined : dir, files: local.now?.files ?? [] },
          { dir: at, files: next.files },
        );
        const common = {
          name: s.name,
          source: s.source!,
          installed_from: f,
          ...staged.commit === undefined ? {} : { to_commit: staged.commit },
          modified: local.modified,
          files,
        };
        if (!local.modified && next.digest === s.digest) {
          if (to.commit !== f.commit && options.preview !== true) {
            put.push(Object.freeze({ ...s, installed_from: to }));
          }
          out.push(Object.freeze({ ...common, status: "up_to_date" as const }));
          continue;
        }
        if (local.modified && options.force !== true) {
          out.push(Object.freeze({
            ...common,
            status: "refused" as const,
            error: {
              code: "LOCALLY_MODIFIED",
              message: `Skill ${
                JSON.stringify(s.name)
              } changed here since it was locked: update --force overwrites it`,
            },
          }));
          continue;
        }
        if (options.preview === true) {
          out.push(Object.freeze({ ...common, status: "would_update" as const }));
          continue;
        }
        replaceFolder(at, dir, stage);
        put.push(next);
        out.push(Object.freeze({ ...common, status: "updated" as const }));
      }
    } finally {
      rmSync(stage, { recursive: true, force: true });
    }
  }
  if (put.length > 0) writeLockfile(lockfile, merged(lockfile, scope, root, put, []));
  return Object.freeze(out);
}

function refusedUpdate(
  s: LockEntry,
  modified: boolean,
  code: string,
  message: string,
): UpdatedSkill {
  return Object.freeze({
    name: s.name,
    source: s.source!,
    installed_from: s.installed_from!,
    status: "refused",
    modified,
    files: [],
    error: { code, message },
  });
}

/** Move `from` to `dir`: the old folder renamed aside first, put back if the move fails. */
function replaceFolder(from: string, dir: string, stage: string): void {
  const aside = join(stage, "old");
  const had = existsSync(dir) || isLink(dir);
  if (had) renameSync(dir, aside);
  else mkdirSync(dirname(dir), { recursive: true });
  try {
    renameSync(from, dir);
  } catch (e) {
    if (had) renameSync(aside, dir);
    throw e;
  }
}
