/**
 * The skill lifecycle's `outdated` (each installed skill stale upstream,
 * modified here, both, or neither — read-only, one `git ls-remote` per
 * source) and `update` (one fetch per source and ref, a file-level diff
 * against the local copy, then every new version swapped in and the
 * lockfile rewritten in one transaction; a local change refused without
 * `force`). Each skill is judged on its own: one whose source cannot be
 * reached, whose new version does not load, or whose lock entry names a
 * folder other than `<install root>/<name>`, or whose source the host does
 * not trust (`trustsSource`), is named with its reason, and the others
 * proceed.
 *
 * Folder `lib/fs/lifecycle/` — the lifecycle: add, outdated, update, remove from git and folder sources.
 *
 * @module
 */
import { resolve } from "node:path";
import { type InstalledFrom, renderFrom } from "../../core/trust/installed_from.ts";
import { type LockEntry, renderLockfile } from "../../core/trust/lockfile.ts";
import {
  entryAt,
  folderOf,
  type LifecycleOptions,
  type LocalState,
  localState,
  type Place,
  placeOf,
  placeProblem,
  recordedFolder,
} from "./_installed.ts";
import { merged, treeIn, untemp } from "./_lifecycle.ts";
import { kindOf, type RefCache, type SourceKind, type StagedSource } from "./_source_kinds.ts";
import { StagingArea, Transaction } from "./_transaction.ts";
import { type FileDiff, skillDiff } from "./_skill_diff.ts";
import { SkillSourceError } from "./skill_source_error.ts";
import {
  checkTargets,
  describeTarget,
  replanTargets,
  TargetAreas,
  targetBase,
  type TargetCheck,
} from "./_targets.ts";
import { readLockfile } from "../trust/trust_files.ts";

/** A locked skill's standing against its source. */
export interface OutdatedSkill {
  readonly name: string;
  /** Its folder, as the lockfile records it. */
  readonly source: string;
  readonly installed_from: InstalledFrom;
  /** The version its SKILL.md stated when installed, as the lockfile records it. */
  readonly version?: string;
  /** The commit the source's ref is at now (git). */
  readonly remote_commit?: string;
  /** The version its SKILL.md states upstream now, where the source was staged to compare files. */
  readonly remote_version?: string;
  /** An npm source's package version installed now. */
  readonly remote_package_version?: string;
  /** The upstream changed since it was installed. */
  readonly stale: boolean;
  /** The local copy differs from its lock entry (or is missing). */
  readonly modified: boolean;
  /** The local folder is gone. */
  readonly missing: boolean;
  /** Each agent target with its state (a target not `ok` makes the skill modified). */
  readonly targets: readonly TargetCheck[];
  /** `up_to_date`, `stale`, `modified`, `stale_modified`, or `unknown` (the source could not be reached: see `error`). */
  readonly state: "up_to_date" | "stale" | "modified" | "stale_modified" | "unknown";
  /** Why the state is unknown. */
  readonly error?: { readonly code: string; readonly message: string };
}

function stateOf(stale: boolean, modified: boolean): OutdatedSkill["state"] {
  return stale ? (modified ? "stale_modified" : "stale") : modified ? "modified" : "up_to_date";
}

/** A skill's reason for being unknown or refused. */
interface Why {
  readonly code: string;
  readonly message: string;
}

/**
 * Why a skill's source is not fetched: the lockfile names it, but the user never chose it
 * here (`options.trustsSource` refuses it). Undefined when it may be fetched.
 */
function distrusted(s: LockEntry, options: LifecycleOptions): SkillSourceError | undefined {
  const url = s.installed_from!.url;
  if (options.trustsSource === undefined || options.trustsSource(url)) return undefined;
  return new SkillSourceError(
    "UNTRUSTED_SOURCE",
    `Source ${JSON.stringify(url)} of skill ${
      JSON.stringify(s.name)
    } comes from the lockfile, not from you: skillset add ${
      JSON.stringify(url)
    } (or --trust-source ${JSON.stringify(url)}) lets skillset fetch it`,
  );
}

function whyOf(e: unknown): Why {
  return {
    code: e instanceof SkillSourceError ? e.code : "GIT_FAILED",
    message: e instanceof Error ? e.message : String(e),
  };
}

/** The skills of one source to stage together, and what became of them. */
interface Group {
  readonly kind: SourceKind;
  readonly from: InstalledFrom;
  readonly skills: LockEntry[];
}

/** Skills grouped by source kind, URL, ref and `extra` (one staging each). */
function groupBy(
  skills: readonly LockEntry[],
  extra: (s: LockEntry) => string | undefined,
): Group[] {
  const groups = new Map<string, Group>();
  for (const s of skills) {
    const from = s.installed_from!;
    const kind = kindOf(from);
    const key = JSON.stringify([kind.name, from.url, from.ref ?? null, extra(s) ?? null]);
    const group = groups.get(key) ?? { kind, from, skills: [] };
    group.skills.push(s);
    groups.set(key, group);
  }
  return [...groups.values()];
}

/** One skill of a staged source: its staged folder and new entry, or why there is none. */
type Upstream =
  | { readonly at: string; readonly entry: LockEntry }
  | { readonly gone: Why }
  | { readonly error: Why };

/** Each skill of a staged group at its new version. */
async function upstreamOf(
  staged: StagedSource,
  group: Group,
  place: Place,
): Promise<Map<LockEntry, Upstream>> {
  const out = new Map<LockEntry, Upstream>();
  for (const s of group.skills) {
    const from = s.installed_from!;
    const refusal = staged.refused.find((r) => r.path === from.path);
    if (refusal !== undefined) {
      out.set(s, { error: { code: refusal.code, message: refusal.message } });
      continue;
    }
    if (!staged.folders.includes(from.path)) {
      out.set(s, {
        gone: {
          code: "NO_SKILL",
          message: `No skill at ${JSON.stringify(from.path)} in ${JSON.stringify(from.url)} now`,
        },
      });
      continue;
    }
    const at = from.path === "." ? staged.tree : resolve(staged.tree, from.path);
    const to = group.kind.record(from, staged);
    try {
      out.set(s, { at, entry: await entryAt(at, place.scope, recordedFolder(place, s.name), to) });
    } catch (e) {
      out.set(s, {
        error: {
          code: "INVALID_SKILL",
          message: `Skill folder ${JSON.stringify(from.path)} of ${
            JSON.stringify(from.url)
          } at ${staged.revision} cannot be loaded: ${untemp(whyOf(e).message, staged.tree)}`,
        },
      });
    }
  }
  return out;
}

/**
 * Report every installed skill of a lockfile against its source: one
 * `git ls-remote` per distinct URL (none for a skill pinned to a commit),
 * then, where the commit moved (and for every folder source), one staging
 * per source, ref and revision to compare each skill's files; writes
 * nothing outside a temporary folder.
 *
 * @param options The scope or lockfile, how to run git.
 * @returns The skills, in the lockfile's order.
 * @throws {TrustFileError} When there is no lockfile or it is malformed.
 * @throws {SkillSourceError} `OUTSIDE_ROOT` when the install root passes through a link.
 */
export async function outdatedSkills(
  options: LifecycleOptions = {},
): Promise<readonly OutdatedSkill[]> {
  const place = placeOf(options);
  const targetHome = targetBase(place, options);
  const lock = readLockfile(place.lockfile);
  const installed = lock.skills.filter((s) =>
    s.installed_from !== undefined && s.source !== undefined
  );
  const outside = new Map<LockEntry, string>();
  for (const s of installed) {
    const problem = placeProblem(s, place);
    if (problem !== undefined) outside.set(s, problem);
  }
  const untrusted = new Map<LockEntry, Why>();
  for (const s of installed) {
    const refusal = outside.has(s) ? undefined : distrusted(s, options);
    if (refusal !== undefined) untrusted.set(s, whyOf(refusal));
  }
  const ours = installed.filter((s) => !outside.has(s) && !untrusted.has(s));
  // The revision of each source now, where its kind tells without staging (all asked at once).
  const cache: RefCache = new Map();
  const asked = ours.map((s) => {
    const p = kindOf(s.installed_from!).peek(s.installed_from!, options, cache);
    p.catch(() => {});
    return [s, p] as const;
  });
  const peeked = new Map<LockEntry, string | undefined | Why>();
  for (const [s, p] of asked) {
    try {
      peeked.set(s, await p);
    } catch (e) {
      peeked.set(s, whyOf(e));
    }
  }
  // One staging per source and revision where the revision moved or is known only by staging:
  // a skill is stale when its files there differ from what was locked, not merely when it moved.
  const toStage = ours.filter((s) => {
    const now = peeked.get(s);
    return now === undefined ||
      (typeof now === "string" && now !== kindOf(s.installed_from!).revision(s.installed_from!));
  });
  const upstream = new Map<LockEntry, Upstream>();
  const revisionNow = new Map<LockEntry, string>();
  if (toStage.length > 0) {
    const area = StagingArea.open(place.base, place.root, "outdated");
    try {
      const groups = groupBy(toStage, (s) => peeked.get(s) as string | undefined);
      for (const [i, group] of groups.entries()) {
        const peek = peeked.get(group.skills[0]!) as string | undefined;
        try {
          const staged = await group.kind.stage(
            group.from,
            treeIn(area, `g${i}`),
            group.skills.map((s) => s.installed_from!.path),
            options,
            peek,
          );
          for (const s of group.skills) revisionNow.set(s, staged.revision);
          for (const [s, u] of await upstreamOf(staged, group, place)) upstream.set(s, u);
        } catch (e) {
          for (const s of group.skills) upstream.set(s, { error: whyOf(e) });
        }
      }
    } finally {
      area.close();
    }
  }
  const out: OutdatedSkill[] = [];
  for (const s of installed) {
    const from = s.installed_from!;
    const problem = outside.get(s);
    const local: LocalState = problem === undefined
      ? await localState(folderOf(place, s.name), s)
      : { missing: false, modified: false };
    const targets = problem === undefined ? await checkTargets(s, place, targetHome) : [];
    const astray = targets.find((t) => t.state === "outside");
    const modified = local.modified || targets.some((t) => t.state !== "ok");
    const base = {
      name: s.name,
      source: s.source!,
      installed_from: from,
      ...s.version === undefined ? {} : { version: s.version },
      modified,
      missing: local.missing,
      targets,
    };
    const unknown = (why: Why): OutdatedSkill =>
      Object.freeze({ ...base, stale: false, state: "unknown" as const, error: why });
    if (problem !== undefined || astray !== undefined) {
      out.push(unknown({
        code: "OUTSIDE_ROOT",
        message: problem ?? describeTarget(s.name, astray!),
      }));
      continue;
    }
    const refusal = untrusted.get(s);
    if (refusal !== undefined) {
      out.push(unknown(refusal));
      continue;
    }
    const now = peeked.get(s);
    if (now !== undefined && typeof now !== "string") {
      out.push(unknown(now));
      continue;
    }
    const up = upstream.get(s);
    if (up !== undefined && "error" in up) {
      out.push(unknown(up.error));
      continue;
    }
    const remote = revisionNow.get(s) ?? now;
    // An npm package also goes stale when another version (or build) is installed.
    const stale = up === undefined ? false : "gone" in up ? true : up.entry.digest !== s.digest ||
      up.entry.installed_from?.version !== from.version ||
      up.entry.installed_from?.integrity !== from.integrity;
    const remotePackage = up !== undefined && "entry" in up
      ? up.entry.installed_from?.version
      : undefined;
    const remoteVersion = up !== undefined && "entry" in up ? up.entry.version : undefined;
    out.push(Object.freeze({
      ...base,
      ...remote === undefined ? {} : { remote_commit: remote },
      ...remoteVersion === undefined ? {} : { remote_version: remoteVersion },
      ...remotePackage === undefined ? {} : { remote_package_version: remotePackage },
      stale,
      state: stateOf(stale, modified),
    }));
  }
  return Object.freeze(out);
}

/** What to update. */
export interface UpdateOptions extends LifecycleOptions {
  /** Show what would change; write nothing. */
  readonly preview?: boolean;
  /** Overwrite a skill changed locally. */
  readonly force?: boolean;
  /** Apply only if each source is still at this revision: a commit (git) or a digest (a folder), as `outdated` or a preview reported it. */
  readonly commit?: string;
}

/** One skill's update. */
export interface UpdatedSkill {
  readonly name: string;
  readonly source: string;
  readonly installed_from: InstalledFrom;
  /** The version its SKILL.md stated when installed, as the lockfile records it. */
  readonly version?: string;
  /** The revision it would move to: a commit (git) or a digest (a folder). */
  readonly to_commit?: string;
  /** The version the update's SKILL.md states. */
  readonly to_version?: string;
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
 * every new version swapped in and the lockfile rewritten, all in one
 * transaction. A skill changed locally is refused unless `force`; a skill
 * whose source fails, whose new version does not load, or whose lock entry
 * names another folder than `<install root>/<name>` is refused, and the
 * others proceed.
 *
 * @param names The skills, by name; default every installed one.
 * @param options Preview, force, the expected revision, the scope.
 * @returns Each skill's update, in the lockfile's order.
 * @throws {SkillSourceError} `NOT_INSTALLED` for a name the lockfile has not installed,
 *   `OUTSIDE_ROOT` for an install root through a link, `APPLY_FAILED` (undone).
 * @throws {TrustFileError} When there is no lockfile or it is malformed.
 */
export async function updateSkills(
  names: readonly string[],
  options: UpdateOptions = {},
): Promise<readonly UpdatedSkill[]> {
  const place = placeOf(options);
  const lock = readLockfile(place.lockfile);
  const installed = lock.skills.filter((s) =>
    s.installed_from !== undefined && s.source !== undefined
  );
  for (const n of names) {
    if (!installed.some((s) => s.name === n)) {
      throw new SkillSourceError(
        "NOT_INSTALLED",
        `Skill ${JSON.stringify(n)} was not installed by skillset add (not in ${
          JSON.stringify(place.lockfile)
        })`,
      );
    }
  }
  const chosen = names.length === 0 ? installed : installed.filter((s) => names.includes(s.name));
  const done = new Map<LockEntry, UpdatedSkill>();
  const ours: LockEntry[] = [];
  for (const s of chosen) {
    const problem = placeProblem(s, place);
    const refusal = problem === undefined ? distrusted(s, options) : undefined;
    if (problem !== undefined) done.set(s, refusedUpdate(s, false, "OUTSIDE_ROOT", problem));
    else if (refusal === undefined) ours.push(s);
    else {
      const local = await localState(folderOf(place, s.name), s);
      done.set(s, refusedUpdate(s, local.modified, refusal.code, refusal.message));
    }
  }
  const put: LockEntry[] = [];
  const targetHome = targetBase(place, options);
  const area = StagingArea.open(place.base, place.root, "update");
  const areas = new TargetAreas(place, targetHome);
  try {
    const tx = new Transaction(area, options.fs);
    for (const [i, group] of groupBy(ours, () => undefined).entries()) {
      let staged: StagedSource;
      try {
        staged = await group.kind.stage(
          group.from,
          treeIn(area, `g${i}`),
          group.skills.map((s) => s.installed_from!.path),
          options,
          options.commit,
        );
      } catch (e) {
        if (!(e instanceof SkillSourceError)) throw e;
        for (const s of group.skills) {
          const local = await localState(folderOf(place, s.name), s);
          done.set(s, refusedUpdate(s, local.modified, e.code, e.message));
        }
        continue;
      }
      const pinned = group.kind.revision(group.from);
      if (
        group.kind.pinned && options.commit === undefined && options.preview !== true &&
        staged.revision !== pinned
      ) {
        // A host publishing no digest moves only to a digest the user names.
        for (const s of group.skills) {
          const local = await localState(folderOf(place, s.name), s);
          done.set(
            s,
            refusedUpdate(
              s,
              local.modified,
              "DIGEST_REQUIRED",
              `Source ${
                JSON.stringify(group.from.url)
              } serves skills whose digest is ${staged.revision}, not ${
                pinned ?? "the one locked"
              }: update --commit ${staged.revision} takes it if its publisher gives that digest`,
            ),
          );
        }
        continue;
      }
      const upstream = await upstreamOf(staged, group, place);
      for (const s of group.skills) {
        const dir = folderOf(place, s.name);
        const checks = await checkTargets(s, place, targetHome);
        const astray = checks.find((t) => t.state === "outside");
        const copyState = await localState(dir, s);
        const local: LocalState = {
          ...copyState,
          modified: copyState.modified || checks.some((t) => t.state !== "ok"),
        };
        if (astray !== undefined) {
          done.set(
            s,
            refusedUpdate(s, local.modified, "OUTSIDE_ROOT", describeTarget(s.name, astray)),
          );
          continue;
        }
        const up = upstream.get(s)!;
        if (!("entry" in up)) {
          const why = "gone" in up ? up.gone : up.error;
          done.set(s, refusedUpdate(s, local.modified, why.code, why.message));
          continue;
        }
        const next = up.entry;
        const common = {
          name: s.name,
          source: s.source!,
          installed_from: s.installed_from!,
          ...s.version === undefined ? {} : { version: s.version },
          to_commit: staged.revision,
          ...next.version === undefined ? {} : { to_version: next.version },
          modified: local.modified,
          files: skillDiff(
            { dir: local.now === undefined ? undefined : dir, files: local.now?.files ?? [] },
            { dir: up.at, files: next.files },
          ),
        };
        if (!local.modified && next.digest === s.digest) {
          if (
            renderFrom(next.installed_from!) !== renderFrom(s.installed_from!) &&
            options.preview !== true
          ) {
            put.push(Object.freeze({ ...s, installed_from: next.installed_from! }));
          }
          // Another version of an npm package with the same files: only the lock entry changes.
          const repackaged = next.installed_from?.version !== s.installed_from?.version ||
            next.installed_from?.integrity !== s.installed_from?.integrity;
          const status = !repackaged
            ? "up_to_date" as const
            : options.preview === true
            ? "would_update" as const
            : "updated" as const;
          done.set(s, Object.freeze({ ...common, status }));
          continue;
        }
        if (local.modified && options.force !== true) {
          done.set(
            s,
            Object.freeze({
              ...common,
              status: "refused" as const,
              error: {
                code: "LOCALLY_MODIFIED",
                message: `Skill ${JSON.stringify(s.name)} changed here since it was locked${
                  checks.filter((t) => t.state !== "ok").map((t) =>
                    ` (${describeTarget(s.name, t)})`
                  ).join("")
                }: update --force overwrites it`,
              },
            }),
          );
          continue;
        }
        if (options.preview === true) {
          done.set(s, Object.freeze({ ...common, status: "would_update" as const }));
          continue;
        }
        tx.put(dir, up.at, undefined, local.missing);
        replanTargets(checks, s.name, up.at, place, areas, targetHome, tx);
        put.push(s.targets === undefined ? next : Object.freeze({ ...next, targets: s.targets }));
        done.set(s, Object.freeze({ ...common, status: "updated" as const }));
      }
    }
    if (put.length > 0) {
      tx.write(place.lockfile, renderLockfile(merged(place, put, [])));
      tx.commit();
    }
  } finally {
    areas.close();
    area.close();
  }
  return Object.freeze(chosen.map((s) => done.get(s)!));
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
    ...s.version === undefined ? {} : { version: s.version },
    status: "refused",
    modified,
    files: [],
    error: { code, message },
  });
}
