/**
 * Trust on disk: locking, verifying and approving discovered skills, and a
 * discovery narrowed to the skills that match their lock and are approved.
 * The files themselves are read and written by `trust_files.ts`; every
 * entry of a skill folder is walked by `_trust_entries.ts`.
 *
 * Folder `lib/fs/trust/` — trust on disk: lock, verify, approve, and the trust files.
 *
 * @module
 */
import { dirname, resolve } from "node:path";
import {
  approvalChanges,
  type ApprovalDecision,
  type ApprovalRecord,
  approvalRecordWithEntries,
  type ApprovalStore,
  decideApproval,
} from "../../core/trust/approval.ts";
import {
  compareLock,
  createLockfile,
  type LockComparison,
  type LockDifference,
  type LockEntry,
  lockEntry,
  type Lockfile,
  lockKey,
  type LockRoot,
  withEntries,
} from "../../core/trust/lockfile.ts";
import type { OtherEntry } from "../../core/trust/entries.ts";
import { type SkillManifest, skillManifest } from "../../core/trust/manifest.ts";
import { pinBundle } from "../../core/trust/pin.ts";
import { describeChanges } from "../../core/trust/trust_file.ts";
import { otherEntries } from "./_trust_entries.ts";
import type { DiscoveredSkill, Discovery } from "../discovery/discovery.ts";
import { Discovery as DiscoveryClass } from "../discovery/discovery.ts";
import { diagnostic, type SkillDiagnostic } from "../discovery/skill_diagnostic.ts";
import type { LoadedSkill } from "../load/skill_folder.ts";
import { withBody } from "../discovery/_read_skill.ts";
import { MAX_BODY } from "../../core/search/_fields.ts";
import { FILE_ORIGIN, readLockfile, recordedPath } from "./trust_files.ts";

/** Options of {@linkcode lockSkills} and {@linkcode verifySkills}. */
export interface LockOptions {
  /** The folder source paths are recorded relative to (the lockfile's). Default: the working folder. */
  readonly base?: string;
  /** The discovery roots, recorded in the lockfile relative to `base` (version 2). */
  readonly roots?: readonly { readonly scope: string; readonly path: string }[];
  /** `base` relative to the repository root, recorded in the lockfile (version 3). */
  readonly recordBase?: string;
}

/** A skill that could not be hashed, and why. */
export interface TrustError {
  /** Its identity ({@linkcode lockKey}). */
  readonly key: string;
  /** Its name. */
  readonly name: string;
  /** Why. */
  readonly message: string;
}

/** The lock entry of one discovered skill, or why there is none. */
async function entryOf(
  discovery: Discovery,
  skill: DiscoveredSkill,
  base: string,
): Promise<
  {
    entry: LockEntry;
    manifest: SkillManifest;
    bundle: LoadedSkill;
    others: readonly OtherEntry[];
  } | TrustError
> {
  const source = recordedPath(base, skill.path);
  try {
    // Loaded now, hashed, then used: never a bundle read before this check.
    const bundle = discovery.loadBundle(skill.name)!;
    const manifest = await skillManifest(bundle);
    const others = otherEntries(bundle);
    const entry = await withEntries(lockEntry(manifest, { scope: skill.scope, source }), others);
    return { entry, manifest, bundle, others };
  } catch (e) {
    return Object.freeze({
      key: lockKey({ source }),
      name: skill.name,
      message: e instanceof Error ? e.message : String(e),
    });
  }
}

/**
 * Lock the skills a discovery uses (its winners): each skill's full file
 * list, digests and source.
 *
 * @param discovery What {@linkcode discoverSkills} found.
 * @param options Where source paths are relative to.
 * @returns The lockfile, and the skills that could not be hashed.
 */
export async function lockSkills(
  discovery: Discovery,
  options: LockOptions = {},
): Promise<{ readonly lock: Lockfile; readonly errors: readonly TrustError[] }> {
  const base = options.base ?? ".";
  const entries: LockEntry[] = [];
  const errors: TrustError[] = [];
  for (const skill of discovery.skills) {
    const got = await entryOf(discovery, skill, base);
    if ("entry" in got) entries.push(got.entry);
    else errors.push(got);
  }
  const roots: LockRoot[] | undefined = options.roots?.map((r) => ({
    scope: r.scope,
    path: recordedPath(base, r.path),
  }));
  return Object.freeze({
    lock: createLockfile(entries, roots, options.recordBase),
    errors: Object.freeze(errors),
  });
}

/**
 * Recompute every discovered skill and compare with a lockfile.
 *
 * @param discovery What {@linkcode discoverSkills} found.
 * @param lock The lockfile.
 * @param options Where source paths are relative to; `frozen: true` also
 *   fails on skills that are not locked.
 * @returns The comparison, and the skills that could not be hashed (each a failure).
 */
export async function verifySkills(
  discovery: Discovery,
  lock: Lockfile,
  options: LockOptions & { readonly frozen?: boolean } = {},
): Promise<LockComparison & { readonly errors: readonly TrustError[] }> {
  const { lock: now, errors } = await lockSkills(discovery, options);
  const failed = new Set(errors.map((e) => e.key));
  // A skill that cannot be hashed is neither "removed" nor "changed": it is an error.
  const comparison = await compareLock(
    createLockfile(lock.skills.filter((s) => !failed.has(lockKey(s)))),
    now.skills,
    options,
  );
  return Object.freeze({ ...comparison, ok: comparison.ok && errors.length === 0, errors });
}

/** Options of {@linkcode trustDiscovery}. */
export interface TrustOptions {
  /** A lockfile (or its path): a skill that differs from its entry, or has none, is not loaded. */
  readonly lock?: Lockfile | string;
  /** `"enforce"` (the default) keeps a mismatching skill out; `"warn"` loads it with a warning. */
  readonly lockMode?: "enforce" | "warn";
  /** Where the lockfile's source paths are relative to; default the lockfile's folder (or the working folder). */
  readonly lockBase?: string;
  /** Approvals: a skill not approved at its current digest is not loaded (`NEEDS_APPROVAL`). */
  readonly approvals?: ApprovalStore;
}

/** One skill's standing against a lock and approvals. */
export interface TrustStanding {
  /** The skill. */
  readonly skill: DiscoveredSkill;
  /** Its manifest, when it could be hashed. */
  readonly manifest: SkillManifest | null;
  /** The bundle that was hashed, pinned to `manifest` (see {@linkcode pinBundle}), when it could be. */
  readonly bundle: LoadedSkill | null;
  /** The approval decision, when `approvals` was given and it could be hashed. */
  readonly approval: ApprovalDecision | null;
  /** What keeps it out or warns about it. */
  readonly diagnostics: readonly SkillDiagnostic[];
  /** Whether it is loaded. */
  readonly loaded: boolean;
}

/** A lockfile ready to compare folders with: its entries by key, and the folder its sources are relative to. */
export interface LoadedLock {
  /** The entries by {@linkcode lockKey}. */
  readonly entries: ReadonlyMap<string, LockEntry>;
  /** The folder the entries' sources are relative to. */
  readonly base: string;
}

/**
 * Read a lock option: a lockfile's path (its folder is the base) or a lockfile.
 *
 * @param lock The option.
 * @param base Where sources are relative to, when not the lockfile's folder.
 * @returns The entries by key and the base.
 * @throws {TrustFileError} When the path names a missing or malformed lockfile.
 */
export function loadLock(lock: Lockfile | string, base?: string): LoadedLock {
  const file = typeof lock === "string" ? readLockfile(lock) : lock;
  return Object.freeze({
    entries: new Map(file.skills.map((s) => [lockKey(s), s])),
    base: base ?? (typeof lock === "string" ? dirname(resolve(lock)) : "."),
  });
}

/**
 * How a skill folder compares with a lock: `null` when it matches its entry,
 * else the diagnostic code and a message naming the files that differ.
 *
 * @param lock The lock.
 * @param folder The skill folder.
 * @param manifest Its manifest now.
 * @returns `null`, or why it does not match.
 */
export async function lockMismatch(
  lock: LoadedLock,
  folder: string,
  manifest: SkillManifest,
  others: readonly OtherEntry[] = [],
): Promise<{ readonly code: "LOCK_MISMATCH" | "NOT_LOCKED"; readonly message: string } | null> {
  const source = recordedPath(lock.base, folder);
  const entry = lock.entries.get(lockKey({ source }));
  if (entry === undefined) {
    return { code: "NOT_LOCKED", message: `Skill "${manifest.name}" is not in the lockfile` };
  }
  const now = await withEntries(lockEntry(manifest, { scope: entry.scope ?? "", source }), others);
  const { differences } = await compareLock(createLockfile([entry]), [now]);
  const d = differences[0];
  if (d === undefined) return null;
  return {
    code: "LOCK_MISMATCH",
    message: `Skill "${manifest.name}" differs from its lockfile entry: ${describeDifference(d)}`,
  };
}

/**
 * What differs in a changed skill, for messages: its files, its other entries, its frontmatter.
 *
 * @param d A `changed` difference.
 * @returns `"a.md" changed, "x" (fifo) added, frontmatter changed`.
 */
export function describeDifference(d: LockDifference): string {
  return describeChanges([...d.files, ...d.entries], d.frontmatter_changed);
}

/**
 * Each discovered skill's standing: its manifest, how it compares with its
 * lock entry, and its approval.
 *
 * @param discovery What {@linkcode discoverSkills} found.
 * @param options The lock, its mode, the approvals.
 * @returns One standing per winning skill, in discovery order.
 * @throws {TrustFileError} When `lock` is a path to a missing or malformed lockfile.
 */
export async function trustStandings(
  discovery: Discovery,
  options: TrustOptions,
): Promise<readonly TrustStanding[]> {
  const lock = options.lock === undefined ? undefined : loadLock(options.lock, options.lockBase);
  const base = lock?.base ?? ".";
  const warnOnly = options.lockMode === "warn";
  const out: TrustStanding[] = [];
  for (const skill of discovery.skills) {
    const got = await entryOf(discovery, skill, base);
    const diagnostics: SkillDiagnostic[] = [];
    if (!("entry" in got)) {
      diagnostics.push(
        diagnostic(
          "error",
          "LOCK_MISMATCH",
          skill.path,
          `Skill "${skill.name}" could not be hashed: ${got.message}`,
        ),
      );
      out.push(
        Object.freeze({
          skill,
          manifest: null,
          bundle: null,
          approval: null,
          diagnostics: Object.freeze(diagnostics),
          loaded: false,
        }),
      );
      continue;
    }
    let loaded = true;
    if (lock !== undefined) {
      const mismatch = await lockMismatch(lock, skill.path, got.manifest, got.others);
      if (mismatch !== null) {
        diagnostics.push(
          diagnostic(warnOnly ? "warning" : "error", mismatch.code, skill.path, mismatch.message),
        );
        if (!warnOnly) loaded = false;
      }
    }
    let approval: ApprovalDecision | null = null;
    if (options.approvals !== undefined) {
      approval = await decideApproval(
        options.approvals,
        FILE_ORIGIN,
        skill.path,
        got.manifest,
        got.others,
      );
      if (approval.status !== "approved") {
        diagnostics.push(diagnostic(
          "error",
          "NEEDS_APPROVAL",
          skill.path,
          approval.status === "needs_approval"
            ? `Skill "${skill.name}" needs approval`
            : `Skill "${skill.name}" changed since it was approved: ${approvalChanges(approval)}`,
        ));
        loaded = false;
      }
    }
    out.push(
      Object.freeze({
        skill,
        manifest: got.manifest,
        bundle: pinBundle(got.bundle, got.manifest),
        approval,
        diagnostics: Object.freeze(diagnostics),
        loaded,
      }),
    );
  }
  return Object.freeze(out);
}

/**
 * A discovery narrowed by a lock and approvals: a skill that differs from
 * its lock entry (or has none) is moved to `skipped` with a `LOCK_MISMATCH`
 * (`NOT_LOCKED`) diagnostic naming the files — or kept with the diagnostic
 * as a warning under `lockMode: "warn"` — and a skill not approved at its
 * current digest is moved to `skipped` with `NEEDS_APPROVAL`, saying what
 * changed since its last approval. So it is in no catalog, prompt block or
 * tool enum built from the result, and the skill tool cannot activate it.
 * The skills kept are pinned to what was checked ({@linkcode pinBundle}):
 * their bundles list only the files that were hashed, and a read of a file
 * that changed since is refused (`RESOURCE_CHANGED`). Without a lock and
 * approvals, the discovery is returned as it is.
 *
 * @param discovery What {@linkcode discoverSkills} found.
 * @param options The lock, its mode, the approvals.
 * @returns The narrowed discovery.
 * @throws {TrustFileError} When `lock` is a path to a missing or malformed lockfile.
 */
export async function trustDiscovery(
  discovery: Discovery,
  options: TrustOptions,
): Promise<Discovery> {
  if (options.lock === undefined && options.approvals === undefined) return discovery;
  const standings = await trustStandings(discovery, options);
  const skills: DiscoveredSkill[] = [];
  const bundles = new Map<string, LoadedSkill>();
  const skipped = [...discovery.skipped];
  for (const s of standings) {
    if (s.loaded && s.bundle !== null) {
      bundles.set(s.skill.name, s.bundle);
      // The description a model sees comes from the bytes that were checked,
      // not from what discovery read before the check.
      // So does the body search reads.
      const instructions = s.bundle.instructions;
      skills.push(Object.freeze(withBody({
        ...s.skill,
        description: s.bundle.frontmatter.description,
        frontmatter: s.bundle.frontmatter,
        diagnostics: s.diagnostics.length === 0
          ? s.skill.diagnostics
          : Object.freeze([...s.skill.diagnostics, ...s.diagnostics]),
      }, () => instructions.length > MAX_BODY ? instructions.slice(0, MAX_BODY) : instructions)));
    } else {
      skipped.push(Object.freeze({
        scope: s.skill.scope,
        path: s.skill.path,
        real_path: s.skill.real_path,
        skill_md: s.skill.skill_md,
        nested: s.skill.nested,
        parent: s.skill.parent,
        alias: s.skill.alias,
        diagnostics: Object.freeze([...s.diagnostics]),
      }));
    }
  }
  return new DiscoveryClass(
    {
      skills,
      shadowed: discovery.shadowed,
      conflicts: discovery.conflicts,
      skipped,
      diagnostics: discovery.diagnostics,
      unavailable: discovery.unavailable,
    },
    undefined,
    { bundles },
  );
}

/**
 * Approve one loaded skill folder as it is now: its files and its other
 * entries (links, pipes, files no reader serves), keyed by its location.
 *
 * @param store The approvals.
 * @param skill The folder as loaded (by `loadSkillFolder`).
 * @returns The record stored.
 * @throws {ResourceReadError} When a file cannot be hashed.
 */
export async function approveSkillFolder(
  store: ApprovalStore,
  skill: LoadedSkill,
): Promise<ApprovalRecord> {
  const manifest = await skillManifest(skill);
  const record = await approvalRecordWithEntries(
    FILE_ORIGIN,
    skill.location,
    manifest,
    otherEntries(skill),
  );
  await store.put(record);
  return record;
}

/**
 * Approve discovered skills as they are now.
 *
 * @param discovery What {@linkcode discoverSkills} found.
 * @param store The approvals.
 * @param names The skills to approve (by name), or `"all"`.
 * @returns The records stored.
 * @throws {RangeError} When a name is not a discovered skill.
 * @throws {ResourceReadError} When a skill's file cannot be hashed.
 */
export async function approveSkills(
  discovery: Discovery,
  store: ApprovalStore,
  names: readonly string[] | "all",
): Promise<readonly ApprovalRecord[]> {
  const chosen = names === "all" ? discovery.skills : names.map((name) => {
    const skill = discovery.skill(name);
    if (skill === undefined) {
      throw new RangeError(`No skill named ${JSON.stringify(name)} was found`);
    }
    return skill;
  });
  const out: ApprovalRecord[] = [];
  for (const skill of chosen) {
    const bundle = discovery.loadBundle(skill.name)!;
    const manifest = await skillManifest(bundle);
    const record = await approvalRecordWithEntries(
      FILE_ORIGIN,
      skill.path,
      manifest,
      otherEntries(bundle),
    );
    await store.put(record);
    out.push(record);
  }
  return Object.freeze(out);
}
